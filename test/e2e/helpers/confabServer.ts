/**
 * A Confab server started by a browser test itself, for a configuration the shared one (the
 * playwright.config.ts webServer) does not have — a voice endpoint, above all. It is the real server
 * assembled the way server/index.ts assembles it (`createBackend` + `createApp`, an in-memory
 * database), serving the same e2e build and tiny models as the shared one, on 127.0.0.1 and a port of
 * its own.
 */
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import config from '../../../playwright.config';
import { createApp } from '../../../server/app';
import { createBackend } from '../../../server/backend';
import type { BackendDeps } from '../../../server/backend';
import type { Database } from '../../../server/db/database';
import type { App } from '../../../server/verbs/verb';
import { DEFAULT_PRICES } from '../../../server/backendConfig';
import { loadBots } from '../../../server/bots';
import { readConfig } from '../../../server/config';
import { openDatabase } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { createRegistry, loadApps } from '../../../server/verbs/registry';
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
  const db = await openDatabase({ dataDir: 'memory://' });
  const api = createBackend({
    db,
    bots: await loadBots(options.botsDir ?? resolve(ROOT, 'bots')),
    grantSecret: randomBytes(32),
    personMode: { kind: 'local' },
    providers: options.providers ?? [],
    live: options.live ?? false,
    prices: DEFAULT_PRICES,
    speech: options.speech,
    embedder: hashEmbedder,
    registry: createRegistry([...(await loadApps()), ...(options.extraApps ?? [])]),
    clock: Date.now,
    log: () => undefined,
    verbLog: () => undefined,
  });
  const app = createApp({ config: readConfig(sharedServerEnv(), ROOT), api });
  const server = await serveApp(app);
  return {
    url: server.url,
    db,
    close: async () => {
      await server.close();
      await db.close();
    },
  };
}
