/**
 * The SQL of `persons_seen` (migration 022), each function taking its connection first, all as the
 * server: when a person was last seen (a grant minted for them), and whether a firing of theirs was
 * passed over while they were away, so that they are told once when they come back.
 */
import type { Queryable } from '../db/queryable';
import { iso, msOf } from '../db/rows';

/** `CONFAB_IDLE_DAYS`' default: a person unseen this long has their schedules paused until they come back. */
export const IDLE_DAYS_DEFAULT = 30;
export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Whether somebody last seen at `seenAtMs` is away at `nowMs`: unseen for more than `idleMs`. Pure;
 * every schedule's firing passes it (`dueSchedules`).
 */
export function isAway(seenAtMs: number, nowMs: number, idleMs: number): boolean {
  return nowMs - seenAtMs > idleMs;
}

/**
 * The person is seen at `nowMs`. Answers when their schedules were first paused while they were
 * away (ms since the epoch), now cleared — they are to be told — or null when nothing was paused.
 */
export async function markSeen(tx: Queryable, person: string, nowMs: number): Promise<number | null> {
  const { rows } = await tx.query<{ paused_at: Date | string | null }>('select paused_at from persons_seen where person = $1 for update', [person]);
  await tx.query(
    `insert into persons_seen (person, seen_at) values ($1, $2)
     on conflict (person) do update set seen_at = greatest(persons_seen.seen_at, excluded.seen_at), paused_at = null`,
    [person, iso(nowMs)],
  );
  return msOf(rows[0]?.paused_at ?? null);
}

/** A firing of the person's was passed over at `nowMs` because they were away (last seen `seenAtMs`). */
export async function markPaused(tx: Queryable, person: string, seenAtMs: number, nowMs: number): Promise<void> {
  await tx.query(
    `insert into persons_seen (person, seen_at, paused_at) values ($1, $2, $3)
     on conflict (person) do update set paused_at = coalesce(persons_seen.paused_at, excluded.paused_at)`,
    [person, iso(seenAtMs), iso(nowMs)],
  );
}
