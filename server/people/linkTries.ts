/**
 * How many wrong link codes each client has sent lately. A code is 40 random bits, lives five minutes
 * and works once, so guessing one is hopeless already; this keeps anybody from trying in earnest: past
 * `LINK_TRIES_MAX` wrong codes in `LINK_TRIES_WINDOW_MS` a client is refused until the oldest falls
 * out. A client is its address (the socket's), or its person where there is no socket. Kept in this
 * process's memory, per instance, as `newPersons.ts` keeps new persons. Times are given, never read.
 */

/** Wrong codes one client may send in the window. */
export const LINK_TRIES_MAX = 10;
/** The window, in ms: ten minutes. */
export const LINK_TRIES_WINDOW_MS = 10 * 60_000;
/** Clients remembered at once; past it the one that failed longest ago is forgotten first. */
const CLIENTS_MAX = 65_536;

export interface LinkTries {
  /** Whether `client` may try a code at `nowMs`, or how long until it may. */
  allowed(client: string, nowMs: number): { ok: true } | { ok: false; retryAfterMs: number };
  /** `client` sent a wrong code at `nowMs`. */
  failed(client: string, nowMs: number): void;
}

export function linkTries(max = LINK_TRIES_MAX, windowMs = LINK_TRIES_WINDOW_MS): LinkTries {
  /** Wrong tries by client, oldest first; the Map's order is the order clients last failed. */
  const tries = new Map<string, number[]>();
  const recent = (client: string, nowMs: number) => (tries.get(client) ?? []).filter((at) => nowMs - at < windowMs);
  return {
    allowed(client, nowMs) {
      const times = recent(client, nowMs);
      const oldest = times[0];
      return times.length >= max && oldest !== undefined ? { ok: false, retryAfterMs: oldest + windowMs - nowMs } : { ok: true };
    },
    failed(client, nowMs) {
      const times = recent(client, nowMs);
      times.push(nowMs);
      tries.delete(client);
      tries.set(client, times);
      for (const forgotten of tries.keys()) {
        if (tries.size <= CLIENTS_MAX) break;
        tries.delete(forgotten);
      }
    },
  };
}
