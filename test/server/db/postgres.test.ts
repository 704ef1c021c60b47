import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_DEFAULTS, openDatabase } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import { DatabaseError, RefusedError } from '../../../server/db/errors';
import { addLine, listLines } from '../../../server/db/lines';
import { listMemories, recall, rememberLine } from '../../../server/db/memories';
import { readMigrations } from '../../../server/db/migrate';
import { reserveAnswer } from '../../../server/db/reservations';
import { createThread, listThreads } from '../../../server/db/threads';
import { axis, DB_TEST_MS, OPENING_MS, somebody, startSocketPostgres } from './fixtures';
import type { SocketPostgres } from './fixtures';
import { ownDatabaseOn } from '../../helpers/testDatabase';

/**
 * The `DATABASE_URL` path: `pg` over the Postgres wire protocol, to a PGlite served by pglite-socket —
 * and, when `CONFAB_TEST_DATABASE_URL` names one (with pgvector), to a real Postgres too. Two
 * `Database` objects over one server stand for two Confab instances over one Postgres.
 *
 * PGlite is one session, so over pglite-socket transactions already take turns and the per-person
 * advisory lock is never contended; only a real Postgres shows the lock is what keeps the ceiling.
 */
const realPostgres = process.env.CONFAB_TEST_DATABASE_URL;
const targets: { name: string; start: () => Promise<SocketPostgres> }[] = [
  { name: 'PGlite served by pglite-socket', start: startSocketPostgres },
  ...(realPostgres === undefined || realPostgres === ''
    ? []
    : [{ name: 'CONFAB_TEST_DATABASE_URL', start: () => ownDatabaseOn(realPostgres).then(({ url, drop }) => ({ url, stop: drop })) }]),
];

describe.each(targets)('on Postgres through pg: $name', { timeout: DB_TEST_MS }, ({ start }) => {
  let postgres: SocketPostgres;
  let one: Database;
  let two: Database;

  beforeAll(async () => {
    postgres = await start();
    [one, two] = await Promise.all([openDatabase({ url: postgres.url }), openDatabase({ url: postgres.url })]);
  }, OPENING_MS);

  afterAll(async () => {
    await one.close();
    await two.close();
    await postgres.stop();
  });

  it('runs the same migrations once, however many instances open the database', async () => {
    const three = await openDatabase({ url: postgres.url });
    const ledger = await three.asServer((tx) => tx.query<{ version: number }>('select version from schema_migrations order by version'));
    await three.close();
    const files = await readMigrations(DATABASE_DEFAULTS.migrationsDir);
    expect(ledger.rows.map((r) => r.version)).toEqual(files.map((m) => m.version));
  });

  it('keeps conversations and confines them to their person, whichever instance answers', async () => {
    const ana = somebody();
    const bob = somebody();
    const thread = await one.asPerson(ana, (tx) => createThread(tx, { person: ana, bot: 'demo' }));
    await two.asPerson(ana, (tx) => addLine(tx, { threadId: thread.id, person: ana, who: 'person', text: 'Hello from the second server.', clientId: 'c1' }));
    expect((await one.asPerson(ana, (tx) => listThreads(tx, { bot: 'demo' }))).map((t) => t.title)).toEqual(['Hello from the second server.']);
    expect(await two.asPerson(bob, (tx) => listThreads(tx, { bot: 'demo' }))).toEqual([]);
    expect(await two.asPerson(bob, (tx) => listLines(tx, thread.id))).toEqual([]);
    await expect(one.asPerson(bob, (tx) => addLine(tx, { threadId: thread.id, person: bob, who: 'person', text: 'Injected.', clientId: 'c2' }))).rejects.toBeInstanceOf(RefusedError);
  });

  it('stores and recalls memories, which only the server may write', async () => {
    const ana = somebody();
    await one.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'I grow tomatoes.', embedder: 'hash-v1', embedding: axis(3) }));
    const recalled = await two.asServer((tx) => recall(tx, { person: ana, bot: 'demo', embedder: 'hash-v1', embedding: axis(3), limit: 5, maxDistance: 0.5 }));
    expect(recalled.map((m) => m.text)).toEqual(['I grow tomatoes.']);
    expect(await two.asPerson(somebody(), (tx) => listMemories(tx, { bot: 'demo' }))).toEqual([]);
    await expect(one.asPerson(ana, (tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'Forged.', embedder: 'hash-v1', embedding: axis(3) }))).rejects.toBeInstanceOf(
      RefusedError,
    );
  });

  it("holds a person's ceiling across two instances: twenty at once, a ceiling of five, five admitted", async () => {
    const ana = somebody();
    const now = new Date();
    const limits = { perMinute: { answers: 5 } };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).asServer((tx) => reserveAnswer(tx, { person: ana, bot: 'demo', limits, now }))));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    const refusals = results.filter((r) => !r.ok);
    expect(new Set(refusals.map((r) => r.window))).toEqual(new Set(['perMinute']));
  });

  it('rolls back a transaction that fails, and hands its connection on clean', async () => {
    const ana = somebody();
    await expect(
      one.asPerson(ana, async (tx) => {
        await createThread(tx, { person: ana, bot: 'demo' });
        await tx.query('select * from no_such_table');
      }),
    ).rejects.toBeInstanceOf(DatabaseError);
    expect((await one.asServer((tx) => tx.query('select id from threads where person = $1', [ana]))).rows).toEqual([]);
    const after = await one.asServer(async (tx) => (await tx.query<{ who: string }>('select current_user as who')).rows[0]?.who);
    expect(after).not.toBe('confab_person');
  });

  it('reads outside a transaction, each statement its own, and a failed read leaves the pool usable', async () => {
    const ana = somebody();
    await one.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'Kept by the first server.', embedder: 'hash-v1', embedding: axis(5) }));
    const [ids, kept] = await two.readAsServer((reader) =>
      Promise.all([
        Promise.all([reader.query<{ id: string }>('select txid_current()::text as id'), reader.query<{ id: string }>('select txid_current()::text as id')]),
        reader.query<{ text: string }>('select text from memories where person = $1', [ana]),
      ]),
    );
    expect(new Set(ids.map((r) => r.rows[0]?.id)).size).toBe(2);
    expect(kept.rows).toEqual([{ text: 'Kept by the first server.' }]);
    await expect(two.readAsServer((reader) => reader.query('select * from no_such_table'))).rejects.toThrow(/Query "select \* from no_such_table"/);
    expect((await two.readAsServer((reader) => reader.query<{ n: number }>('select 1 as n'))).rows).toEqual([{ n: 1 }]);
  });

  it('refuses to open on a server that is not there, saying what failed', async () => {
    await expect(openDatabase({ url: 'postgres://postgres@127.0.0.1:1/postgres' })).rejects.toThrow(/Connecting to Postgres failed/);
  });
});
