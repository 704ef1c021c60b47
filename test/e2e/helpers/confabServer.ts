/**
 * A Confab server started by a browser test itself, for a configuration the shared one (the
 * playwright.config.ts webServer) does not have — a voice endpoint, above all. It is the real server
 * assembled the way server/index.ts assembles it (`createBackend` + `createApp`, an in-memory
 * database), serving the same e2e build and tiny models as the shared one, on 127.0.0.1 and a port of
 * its own.
 */
import { resolve } from 'node:path';
import config from '../../../playwright.config';
import type { BackendDeps } from '../../../server/backend';
import type { Database } from '../../../server/db/database';
import type { App } from '../../../server/verbs/verb';
import { loadBots } from '../../../server/bots';
import { readConfig } from '../../../server/config';
import { createRegistry, loadApps } from '../../../server/verbs/registry';
import { openTestBackend } from '../../helpers/testBackend';
import { serveApp } from '../../server/chat/localServers';
import type { Listening } from '../../server/chat/localServers';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** The environment the shared webServer is started with: where the e2e build and the models are. */
function sharedServerEnv(): Record<string, string> {
  const server = config.webServer;
  const one = Array.isArray(server) ? server[0] : server;
  if (one?.env === undefined) throw new Error('playwright.config.ts has no webServer env to copy the build and model folders from.');
  return one.env;
}

/** What differs from the shared server; everything else is as `npm start` has it, in memory. */
export interface ConfabServerOptions extends Partial<Pick<BackendDeps, 'speech' | 'providers' | 'live'>> {
  /** The bot files. Default the shipped bots/. */
  botsDir?: string;
  /** Apps beside the shipped ones (server/apps/), for verbs only a test needs. */
  extraApps?: readonly App[];
}

/** The server, and its database for a test to look into. */
export interface ConfabServer extends Listening {
  db: Database;
}

/** Starts the server; `close` stops it and its database. */
export async function startConfabServer(options: ConfabServerOptions = {}): Promise<ConfabServer> {
  const backend = await openTestBackend({
    config: readConfig(sharedServerEnv(), ROOT),
    bots: await loadBots(options.botsDir ?? resolve(ROOT, 'bots')),
    providers: options.providers ?? [],
    live: options.live ?? false,
    speech: options.speech,
    registry: createRegistry([...(await loadApps()), ...(options.extraApps ?? [])]),
  });
  const server = await serveApp(backend.app);
  return {
    // Pages are visited on localhost (a visit to 127.0.0.1 is sent there), so the cookies are that name's.
    url: server.url.replace('//127.0.0.1:', '//localhost:'),
    db: backend.db,
    close: async () => {
      await server.close();
      await backend.close();
    },
  };
}
