/**
 * The Postgres run's template: one database migrated once before the tests start (vitest's global
 * setup), which every test's own database is copied from, so a test pays for a copy rather than for
 * every migration.
 */
import pg from 'pg';
import { openDatabase } from '../../server/db/database';

/** The database every test's own is made from. */
export const TEMPLATE_DATABASE = 'confab_test_template';

/** `server` (a Postgres URL) with its database replaced by `database`. */
export function urlFor(server: string, database: string): string {
  const url = new URL(server);
  url.pathname = `/${database}`;
  return url.toString();
}

/** One statement on the server's maintenance connection (`CREATE DATABASE` cannot run in a transaction). */
export async function adminQuery(server: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** vitest's global setup for the Postgres run: the template, migrated afresh. */
export default async function setup(): Promise<void> {
  const server = process.env.CONFAB_TEST_DATABASE_URL;
  if (server === undefined || server === '') throw new Error('The Postgres run needs CONFAB_TEST_DATABASE_URL.');
  await adminQuery(server, `drop database if exists ${TEMPLATE_DATABASE} with (force)`);
  await adminQuery(server, `create database ${TEMPLATE_DATABASE}`);
  const db = await openDatabase({ url: urlFor(server, TEMPLATE_DATABASE) });
  await db.close();
}
