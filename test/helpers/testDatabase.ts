/**
 * The database a test opens. One suite, two databases: PGlite in memory by default, and — when the
 * suite runs on Postgres (`npm run test:postgres`, which sets `CONFAB_TEST_ENGINE=postgres` beside
 * `CONFAB_TEST_DATABASE_URL`) — a database of its own on that server, copied from the template the
 * run migrated once (test/postgres/template.ts), and dropped when the test closes it.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { adminQuery, TEMPLATE_DATABASE, urlFor } from '../postgres/template';

/** Whether this run's tests open their databases on Postgres rather than PGlite. */
export function onPostgres(): boolean {
  return process.env.CONFAB_TEST_ENGINE === 'postgres';
}

export async function openTestDatabase(): Promise<Database> {
  const server = process.env.CONFAB_TEST_DATABASE_URL;
  if (!onPostgres()) return openDatabase({ dataDir: 'memory://' });
  if (server === undefined || server === '') throw new Error('CONFAB_TEST_ENGINE=postgres needs CONFAB_TEST_DATABASE_URL.');
  return openOwnDatabase(server, TEMPLATE_DATABASE);
}

/** A database of its own on the Postgres at `server` (see `ownDatabaseOn`), opened, and dropped when closed. */
export async function openOwnDatabase(server: string, template?: string): Promise<Database> {
  const own = await ownDatabaseOn(server, template);
  const db = await openDatabase({ url: own.url });
  return {
    ...db,
    async close() {
      await db.close();
      await own.drop();
    },
  };
}

/**
 * A database of its own on the Postgres at `server` — empty, so that opening it migrates it, or a
 * copy of `template` — for a test that reaches Postgres by URL (two instances, a worker in another
 * process): test files run side by side, and one file's workers must never take another's runs.
 */
export async function ownDatabaseOn(server: string, template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `confab_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(server, template === undefined ? `create database ${name}` : `create database ${name} template ${template}`);
  return { url: urlFor(server, name), drop: () => adminQuery(server, `drop database if exists ${name} with (force)`) };
}
