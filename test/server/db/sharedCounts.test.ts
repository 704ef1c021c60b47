/**
 * The counts every instance shares (migration 030), each asked of two `Database` objects over one
 * database — two instances — as well as of one PGlite in memory: the limit holds in total, and the
 * windows slide on a simulated clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import { RefusedError } from '../../../server/db/errors';
import { sharedSecret } from '../../../server/db/serverSecrets';
import { countKey, releasePlace, renewPlace, takePlace } from '../../../server/db/sharedCounts';
import { createCallLimits } from '../../../server/mcp/callLimits';
import { NEW_PERSONS_WINDOW_MS, newPersons } from '../../../server/newPersons';
import { LINK_TRIES_MAX, LINK_TRIES_WINDOW_MS, linkTryRoom, wrongLinkTry } from '../../../server/people/linkTries';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody, startSocketPostgres } from './fixtures';
import type { SocketPostgres } from './fixtures';
import { ownDatabaseOn } from '../../helpers/testDatabase';

const NOW = 1_750_000_000_000;

/** Two pools over one server; on a real Postgres (`CONFAB_TEST_DATABASE_URL`) the only place the per-key lock is contended. */
async function twoOver(url: string, stop: () => Promise<void>) {
  const [one, two] = await Promise.all([openDatabase({ url }), openDatabase({ url })]);
  return {
    one,
    two,
    close: async () => {
      await Promise.all([one.close(), two.close()]);
      await stop();
    },
  };
}

const realPostgres = process.env.CONFAB_TEST_DATABASE_URL;
const targets: { name: string; open: () => Promise<{ one: Database; two: Database; close: () => Promise<void> }> }[] = [
  {
    name: 'one instance (PGlite in memory, or the run’s engine)',
    open: async () => {
      const db = await openMemoryDatabase();
      return { one: db, two: db, close: () => db.close() };
    },
  },
  {
    name: 'two instances over PGlite served by pglite-socket',
    open: async () => {
      const postgres: SocketPostgres = await startSocketPostgres();
      return twoOver(postgres.url, () => postgres.stop());
    },
  },
  ...(realPostgres === undefined || realPostgres === '' ? [] : [{ name: 'two instances over CONFAB_TEST_DATABASE_URL', open: () => ownDatabaseOn(realPostgres).then(({ url, drop }) => twoOver(url, drop)) }]),
];

describe.each(targets)('shared counts: $name', { timeout: DB_TEST_MS }, ({ open }) => {
  let one: Database;
  let two: Database;
  let close: () => Promise<void>;
  /** Alternates the two instances, as a load balancer would. */
  const either = (i: number) => (i % 2 === 0 ? one : two);

  beforeAll(async () => {
    ({ one, two, close } = await open());
  }, OPENING_MS);
  afterAll(async () => {
    await close();
  });

  it('admits new persons from one address up to the hour’s count over both instances, and one more as the first leaves the hour', async () => {
    const address = somebody('203.0.113');
    const [onOne, onTwo] = [newPersons(one, 3), newPersons(two, 3)];
    const arrivals = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? onOne : onTwo).arrive(address, NOW + i)));
    expect(arrivals.filter((a) => a.ok)).toHaveLength(3);
    // Refused until the first of the three leaves the hour: a refusal is not an arrival.
    expect(await onTwo.arrive(address, NOW + 60_000)).toEqual({ ok: false, retryAfterMs: NEW_PERSONS_WINDOW_MS - 60_000 });
    expect(await onOne.arrive(somebody('198.51.100'), NOW + 60_000)).toEqual({ ok: true });
    expect((await onTwo.arrive(address, NOW + NEW_PERSONS_WINDOW_MS)).ok).toBe(true);
    expect((await onOne.arrive(address, NOW + NEW_PERSONS_WINDOW_MS)).ok).toBe(false);
  });

  it('counts wrong link codes from one client over both instances, and lets it try again once the oldest is out of the window', async () => {
    const client = somebody('192.0.2');
    const guess = (db: Database, atMs: number) =>
      db.asServer(async (tx) => {
        const room = await linkTryRoom(tx, client, atMs);
        if (room.ok) await wrongLinkTry(tx, client, atMs);
        return room;
      });
    const tries = await Promise.all(Array.from({ length: LINK_TRIES_MAX + 4 }, (_, i) => guess(either(i), NOW)));
    expect(tries.filter((t) => t.ok)).toHaveLength(LINK_TRIES_MAX);
    expect(await guess(one, NOW + 1_000)).toEqual({ ok: false, retryAfterMs: LINK_TRIES_WINDOW_MS - 1_000 });
    expect(await guess(two, NOW + LINK_TRIES_WINDOW_MS)).toEqual({ ok: true });
  });

  it('holds an MCP token’s calls per second over both instances, refilling at the rate', async () => {
    const token = somebody('token');
    let nowMs = NOW;
    const limits = { maxCallsPerSecond: 4, maxInFlightCalls: 100 };
    const [onOne, onTwo] = [createCallLimits(limits, () => nowMs, one), createCallLimits(limits, () => nowMs, two)];
    const burst = (count: number) => Promise.all(Array.from({ length: count }, (_, i) => (i % 2 === 0 ? onOne : onTwo).admit(token, i)));
    const admitted = await burst(10);
    expect(admitted.map((a) => (a.ok ? 'ok' : a.code)).sort()).toEqual([...Array<string>(4).fill('ok'), ...Array<string>(6).fill('rate_limited')]);
    for (const a of admitted) if (a.ok) a.release();
    // A call's worth comes back in a quarter of a second, whichever instance asks.
    nowMs += 249;
    expect((await onTwo.admit(token, 'a')).ok).toBe(false);
    nowMs += 1;
    expect((await onTwo.admit(token, 'b')).ok).toBe(true);
    expect((await onOne.admit(token, 'c')).ok).toBe(false);
    // However long it rests, it holds no more than a second's worth.
    nowMs += 60_000;
    expect((await burst(6)).filter((a) => a.ok)).toHaveLength(4);
  });

  it('holds a person’s streams over both instances, a page opening again taking no second place, and a stopped instance’s lapsing', async () => {
    const key = countKey('presence-streams', somebody());
    const staleMs = 45_000;
    const open = (db: Database, page: string, holder: string, atMs: number) =>
      db.asServer((tx) => takePlace(tx, { key, slot: page, holder, max: 3, nowMs: atMs, untilMs: atMs + staleMs }));
    expect(await Promise.all([open(one, 'a', 'a1', NOW), open(two, 'b', 'b1', NOW), open(one, 'c', 'c1', NOW)])).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect((await open(two, 'd', 'd1', NOW)).ok).toBe(false);
    // Page a opens again on the other instance: its place moves there, and its old stream's end lets go of nothing.
    expect(await open(two, 'a', 'a2', NOW)).toEqual({ ok: true });
    await one.asServer((tx) => releasePlace(tx, { key, slot: 'a', holder: 'a1' }));
    expect((await open(two, 'd', 'd1', NOW)).ok).toBe(false);
    await two.asServer((tx) => releasePlace(tx, { key, slot: 'b', holder: 'b1' }));
    expect(await open(one, 'd', 'd1', NOW)).toEqual({ ok: true });
    // Instance one stops: its streams (c, d) are kept on no longer, while two's (a) is.
    await two.asServer((tx) => renewPlace(tx, { key, slot: 'a', holder: 'a2', untilMs: NOW + 30_000 + staleMs }));
    expect((await open(two, 'e', 'e1', NOW + staleMs - 1)).ok).toBe(false);
    expect(await open(two, 'e', 'e1', NOW + staleMs)).toEqual({ ok: true });
    expect(await open(two, 'f', 'f1', NOW + staleMs)).toEqual({ ok: true });
    expect(await open(two, 'g', 'g1', NOW + staleMs)).toEqual({ ok: false, retryAfterMs: 30_000 });
  });

  it('makes the grant secret once for both instances, whichever asks first', async () => {
    const name = somebody('secret');
    const secrets = await Promise.all(Array.from({ length: 6 }, (_, i) => either(i).asServer((tx) => sharedSecret(tx, name, `made-by-${i}-${'x'.repeat(32)}`))));
    for (const secret of secrets) expect(secret).toBe(secrets[0]);
    expect(await two.asServer((tx) => sharedSecret(tx, name, 'y'.repeat(32)))).toBe(secrets[0]);
  });

  it('lets no person read or write the counts or the secrets', async () => {
    for (const table of ['shared_places', 'shared_buckets', 'server_secrets']) {
      await expect(one.asPerson(somebody(), (tx) => tx.query(`select * from ${table}`)), table).rejects.toBeInstanceOf(RefusedError);
      await expect(two.asPerson(somebody(), (tx) => tx.query(`delete from ${table}`)), table).rejects.toBeInstanceOf(RefusedError);
    }
  });
});
