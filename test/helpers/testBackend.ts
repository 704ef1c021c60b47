/**
 * The whole API in process for a test or a bench, assembled as `server/index.ts` assembles it
 * (`createBackend` + `createApp`) with test defaults: local persons, no provider (the stand-in
 * answers), no paid voice, the hash embedder, the wall clock, silent logs. A test overrides only
 * what it is about.
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { createApp } from '../../server/app';
import type { AppDeps } from '../../server/app';
import { createBackend } from '../../server/backend';
import type { Backend, BackendDeps } from '../../server/backend';
import { DEFAULT_PRICES } from '../../server/backendConfig';
import type { Database } from '../../server/db/database';
import { hashEmbedder } from '../../server/memory/embed';
import { openTestDatabase } from './testDatabase';

/** Nothing served from disk; the models named as the hub names them. */
export const TEST_APP_CONFIG: AppDeps['config'] = { distDir: '/nonexistent', modelsDir: '/nonexistent', modelBase: { kind: 'hub' }, modelVersion: 'supertonic-3' };

/** `createBackend`'s deps over `db` with the test defaults; `overrides` win. */
export function testBackendDeps(db: Database, overrides: Partial<BackendDeps> = {}): BackendDeps {
  return {
    db,
    bots: new Map(),
    grantSecret: randomBytes(32),
    personMode: { kind: 'local' },
    providers: [],
    live: false,
    prices: DEFAULT_PRICES,
    speech: undefined,
    embedder: hashEmbedder,
    clock: Date.now,
    log: () => undefined,
    verbLog: () => undefined,
    mcpLog: () => undefined,
    ...overrides,
  };
}

export interface TestBackend {
  db: Database;
  api: Backend;
  app: Hono;
  /** The secret grants and person cookies are signed with, for a test that signs its own. */
  grantSecret: Uint8Array;
  /** A request to the app in process, as `Hono.request`. */
  request: Hono['request'];
  /** Ends the presence streams; `openTestBackend`'s also closes the database it opened. */
  close: () => Promise<void>;
}

export interface TestBackendOptions extends Partial<BackendDeps> {
  /** `createApp`'s config; default `TEST_APP_CONFIG`. */
  config?: AppDeps['config'];
}

/** The API over a database the test holds (and closes): two instances over one, or one across a restart. */
export function testBackend(db: Database, options: TestBackendOptions = {}): TestBackend {
  const { config = TEST_APP_CONFIG, ...overrides } = options;
  const deps = testBackendDeps(db, overrides);
  const api = createBackend(deps);
  const app = createApp({ config, api });
  return {
    db,
    api,
    app,
    grantSecret: deps.grantSecret,
    request: (input, init, env, executionCtx) => app.request(input, init, env, executionCtx),
    close: () => api.presence.close(),
  };
}

/** The API over a fresh in-memory PGlite; `close` closes both. */
export async function openTestBackend(options: TestBackendOptions = {}): Promise<TestBackend> {
  const db = await openTestDatabase();
  const backend = testBackend(db, options);
  return {
    ...backend,
    close: async () => {
      await backend.close();
      await db.close();
    },
  };
}
