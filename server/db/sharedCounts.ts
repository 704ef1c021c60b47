/**
 * Counts every instance over one database shares (migration 030), for the limits that are the
 * site's, a person's or an address's rather than one process's: new persons per address, wrong link
 * codes per address, presence streams per person (`shared_places`), and an MCP token's calls per
 * second (`shared_buckets`). Each decision is made in the database, in one transaction, so two
 * instances asking at once are counted one after the other; times are given (`nowMs`), never read,
 * so a test's clock is the clock. Run these as the server (`asServer`).
 *
 * Rows past their time are deleted as they are passed, a few at a time and skipping any another
 * transaction holds: the sweep never waits, and is each transaction's last statement here, so no
 * two transactions can each wait for the other.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from './queryable';
import { iso, msOf } from './rows';

/** Namespace of the per-key lock (first key of the two-key advisory lock); no other lock uses it. */
const COUNT_LOCK = 0x43_4f_55_4e; // "COUN"
/** Lapsed rows one pass deletes at most, so no request pays for a long quiet spell's whole backlog. */
const SWEEP_ROWS_MAX = 64;

/** The key a count is kept under: a digest of what is counted (`kind`) and whose, never the address, person or token itself. */
export function countKey(kind: string, of: string): string {
  return createHash('sha256').update(`confab count\n${kind}\n${of}`).digest('hex');
}

/** Namespace of the making lock (`oneMakingAtATime`); no other lock uses it. */
const MAKING_LOCK = 0x4d_41_4b_45; // "MAKE"

/**
 * Waits until no other transaction is making `what` (a `countKey`), and holds it until this one ends:
 * for a cap counted by the rows themselves (a person's schedules, reminders, tokens), so two made at
 * the same moment, on one instance or two, cannot each count the other's place as free. Under READ
 * COMMITTED each count after it sees what committed before. Any role may take it.
 */
export async function oneMakingAtATime(tx: Queryable, what: string): Promise<void> {
  await lockUntilEnd(tx, MAKING_LOCK, what);
}

/** Waits for, then holds until the transaction ends, the advisory lock on `key` in the namespace `space`. */
async function lockUntilEnd(tx: Queryable, space: number, key: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [space, key]);
}

/** Room for one more, or how long until there is, in ms. */
export type Room = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Locks `key` until the transaction ends and answers whether fewer than `max` of its places are held
 * at `nowMs` (not counting `slot`, which taking again only moves), or how long until one frees.
 */
export async function roomUnder(tx: Queryable, key: string, { max, nowMs, slot }: { max: number; nowMs: number; slot?: string }): Promise<Room> {
  await lockUntilEnd(tx, COUNT_LOCK, key);
  const { rows } = await tx.query<{ held: string | number; first_until: Date | string | null }>(
    'select count(*) as held, min(until) as first_until from shared_places where key = $1 and until > $2::timestamptz and slot is distinct from $3::text',
    [key, iso(nowMs), slot ?? null],
  );
  const row = rows[0];
  const held = Number(row?.held ?? 0);
  if (held < max || row?.first_until == null) return { ok: true };
  return { ok: false, retryAfterMs: Math.max(0, msOf(row.first_until) - nowMs) };
}

/**
 * Holds a place under `key` until `untilMs` — `slot` when given (held already, it moves to
 * `holder`), a new one otherwise — then sweeps lapsed places. After `roomUnder`, in its transaction.
 */
export async function holdPlace(tx: Queryable, place: { key: string; slot?: string; holder?: string; untilMs: number; nowMs: number }): Promise<void> {
  if (place.slot === undefined) {
    await tx.query('insert into shared_places (key, until) values ($1, $2::timestamptz)', [place.key, iso(place.untilMs)]);
  } else {
    await tx.query(
      'insert into shared_places (key, slot, holder, until) values ($1, $2, $3, $4::timestamptz) on conflict (key, slot) do update set holder = excluded.holder, until = excluded.until',
      [place.key, place.slot, place.holder ?? null, iso(place.untilMs)],
    );
  }
  await tx.query(
    `delete from shared_places where (key, slot) in (
       select key, slot from shared_places where until <= $1::timestamptz limit ${SWEEP_ROWS_MAX} for update skip locked)`,
    [iso(place.nowMs)],
  );
}

/** Checks `key` for room under `max` at `nowMs` and, when there is, holds a place until `untilMs`: `roomUnder`, then `holdPlace`. */
export async function takePlace(tx: Queryable, place: { key: string; max: number; nowMs: number; untilMs: number; slot?: string; holder?: string }): Promise<Room> {
  const room = await roomUnder(tx, place.key, place);
  if (room.ok) await holdPlace(tx, place);
  return room;
}

/** Keeps `holder`'s `slot` under `key` until `untilMs` (held again if it had lapsed), unless another holder has taken it since. */
export async function renewPlace(tx: Queryable, place: { key: string; slot: string; holder: string; untilMs: number }): Promise<void> {
  await tx.query(
    `insert into shared_places (key, slot, holder, until) values ($1, $2, $3, $4::timestamptz)
     on conflict (key, slot) do update set until = excluded.until where shared_places.holder = excluded.holder`,
    [place.key, place.slot, place.holder, iso(place.untilMs)],
  );
}

/** Lets go of `slot` under `key`, if `holder` still holds it. */
export async function releasePlace(tx: Queryable, place: { key: string; slot: string; holder: string }): Promise<void> {
  await tx.query('delete from shared_places where key = $1 and slot = $2 and holder = $3', [place.key, place.slot, place.holder]);
}

/**
 * Takes one from `key`'s bucket at `nowMs`, in one statement: the bucket holds `size` and refills
 * at `perMs` a ms up to it; answers false, taking nothing, when less than one is there. Other keys'
 * buckets that are full again are deleted on the way.
 */
export async function takeFromBucket(tx: Queryable, bucket: { key: string; size: number; perMs: number; nowMs: number }): Promise<boolean> {
  // What the bucket holds at $4: what was counted, refilled since (never for a clock behind the count's).
  const refilled = 'least($2::float8, b.tokens + greatest(0, $4::bigint - b.counted_at_ms) * $3::float8)';
  const { rows } = await tx.query(
    `with swept as (
       delete from shared_buckets where key in (
         select key from shared_buckets where full_at_ms <= $4::bigint and key <> $1 limit ${SWEEP_ROWS_MAX} for update skip locked))
     insert into shared_buckets as b (key, tokens, counted_at_ms, full_at_ms)
     values ($1, $2::float8 - 1, $4::bigint, $4::bigint + ceil(1 / $3::float8)::bigint)
     on conflict (key) do update set
       tokens = ${refilled} - 1,
       counted_at_ms = greatest(b.counted_at_ms, $4::bigint),
       full_at_ms = greatest(b.counted_at_ms, $4::bigint) + ceil(($2::float8 - (${refilled} - 1)) / $3::float8)::bigint
     where ${refilled} >= 1
     returning 1`,
    [bucket.key, bucket.size, bucket.perMs, bucket.nowMs],
  );
  return rows.length > 0;
}
