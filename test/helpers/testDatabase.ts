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
  const name = `confab_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(server, `create database ${name} template ${TEMPLATE_DATABASE}`);
  const db = await openDatabase({ url: urlFor(server, name) });
  return {
    ...db,
    async close() {
      await db.close();
      await adminQuery(server, `drop database if exists ${name} with (force)`);
    },
  };
}
