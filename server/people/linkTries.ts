/**
 * How many wrong link codes each client has sent lately. A code is 40 random bits, lives five minutes
 * and works once, so guessing one is hopeless already; this keeps anybody from trying in earnest: past
 * `LINK_TRIES_MAX` wrong codes in `LINK_TRIES_WINDOW_MS` a client is refused until the oldest falls
 * out. A client is its address (the socket's), or its person where there is no socket. Counted in the
 * database, in the transaction that takes the code, so every instance over it shares one count and
 * tries sent at once are counted one after the other (`sharedCounts.ts`). Times are given, never read.
 */
import type { Queryable } from '../db/queryable';
import { countKey, holdPlace, roomUnder } from '../db/sharedCounts';
import type { Room } from '../db/sharedCounts';

/** Wrong codes one client may send in the window. */
export const LINK_TRIES_MAX = 10;
/** The window, in ms: ten minutes. */
export const LINK_TRIES_WINDOW_MS = 10 * 60_000;

const keyOf = (client: string) => countKey('link-tries', client);

/** Whether `client` may try a code at `nowMs`, or how long until it may; `client`'s count is held for the rest of the transaction. */
export function linkTryRoom(tx: Queryable, client: string, nowMs: number): Promise<Room> {
  return roomUnder(tx, keyOf(client), { max: LINK_TRIES_MAX, nowMs });
}

/** `client` sent a wrong code at `nowMs`; after `linkTryRoom`, in its transaction. */
export function wrongLinkTry(tx: Queryable, client: string, nowMs: number): Promise<void> {
  return holdPlace(tx, { key: keyOf(client), nowMs, untilMs: nowMs + LINK_TRIES_WINDOW_MS });
}
