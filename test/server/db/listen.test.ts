/**
 * LISTEN/NOTIFY, which presence fans out on: PGlite hears its own notifications in process, and on
 * Postgres a connection of its own listens and is opened again when it drops, saying there was a
 * gap. The Postgres half runs when `CONFAB_TEST_DATABASE_URL` names any Postgres (no extension is
 * needed: the migrations are not run); pglite-socket does not pass notifications on.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnPostgres } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import { DB_TEST_MS, OPENING_MS } from './fixtures';
import { openTestDatabase } from '../../helpers/testDatabase';

/** A notification is heard a moment after the transaction that sent it commits. */
const HEARD = { timeout: 5_000 };

describe('LISTEN/NOTIFY on PGlite', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
  }, OPENING_MS);
  afterAll(async () => {
    await db.close();
  });

  it('hears a notification when the transaction that sent it commits, and not one rolled back', async () => {
    const heard: string[] = [];
    const listen = db.listen;
    if (listen === undefined) throw new Error('openDatabase answers a database that listens');
    const stop = await listen('confab_test', { payload: (payload) => heard.push(payload) });
    await db.asPerson('someone', (tx) => tx.query("select pg_notify('confab_test', 'committed')"));
    await db
      .asServer(async (tx) => {
        await tx.query("select pg_notify('confab_test', 'rolled back')");
        throw new Error('roll it back');
      })
      .catch(() => undefined);
    await db.asServer((tx) => tx.query("select pg_notify('confab_test', 'second')"));
    await expect.poll(() => heard.length, HEARD).toBeGreaterThanOrEqual(2);
    expect(heard).toEqual(['committed', 'second']);
    // A marker on a channel of its own, sent after what must not be heard: once it is heard, that would have been.
    const markers: string[] = [];
    const stopMarkers = await listen('confab_marker', { payload: (payload) => markers.push(payload) });
    await stop();
    await db.asServer((tx) => tx.query("select pg_notify('confab_test', 'after')"));
    await db.asServer((tx) => tx.query("select pg_notify('confab_marker', 'marker')"));
    await expect.poll(() => markers, HEARD).toEqual(['marker']);
    expect(heard).toEqual(['committed', 'second']);
    await stopMarkers();
  });

  it('refuses a channel name it would have to quote', async () => {
    await expect(db.listen?.('Bad-Name', { payload: () => undefined })).rejects.toThrow(/not a channel to listen on/);
  });
});

const url = process.env.CONFAB_TEST_DATABASE_URL;

describe.runIf(url !== undefined && url !== '')('LISTEN/NOTIFY on Postgres', { timeout: DB_TEST_MS }, () => {
  it('listens on a connection of its own, and listens again after the connection is killed, saying there was a gap', async () => {
    const heard: string[] = [];
    let gaps = 0;
    const stop = await listenOnPostgres(() => new pg.Client({ connectionString: url }), 'confab_test', {
      payload: (payload) => heard.push(payload),
      gap: () => {
        gaps += 1;
      },
    });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query("select pg_notify('confab_test', 'one')");
      await expect.poll(() => heard, HEARD).toContain('one');
      // The listening connection dies (a restart, a failover): it is opened again.
      await other.query("select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen confab_test'");
      await expect.poll(() => gaps, HEARD).toBe(1);
      await other.query("select pg_notify('confab_test', 'two')");
      await expect.poll(() => heard, HEARD).toContain('two');
      expect(heard).toEqual(['one', 'two']);
    } finally {
      await stop();
      await other.end();
    }
  });
});
