/**
 * How many new local persons each client address has become lately: in local mode a person is a
 * cookie, and a script that drops its cookie would be a new person, with fresh ceilings, at every
 * request. Kept in this process's memory, per instance (N instances allow N times the count): a
 * sliding hour of arrival times per address, at most `perHour` of them, so no hour anywhere holds
 * more. Times are given, never read, so a test's clock is the clock.
 */
import { checkOption } from '../common/options';

/** The window the count is over, in ms: an hour. */
export const NEW_PERSONS_WINDOW_MS = 60 * 60_000;
/** Addresses remembered at once; past it the one seen longest ago is forgotten first. */
const NEW_PERSONS_ADDRESSES_MAX = 65_536;

type Arrival = { ok: true } | { ok: false; retryAfterMs: number };

export interface NewPersons {
  /** Counts a new person from `address` at `nowMs`, or refuses it with how long until one may come. */
  arrive(address: string, nowMs: number): Arrival;
}

export function newPersons(perHour: number, addressesMax = NEW_PERSONS_ADDRESSES_MAX): NewPersons {
  checkOption('newPersons.perHour', perHour, { min: 1, whole: true });
  /** Arrival times by address, oldest first; the Map's order is the order addresses last arrived. */
  const arrivals = new Map<string, number[]>();
  return {
    arrive(address, nowMs) {
      const times = (arrivals.get(address) ?? []).filter((at) => nowMs - at < NEW_PERSONS_WINDOW_MS);
      arrivals.delete(address);
      const oldest = times[0];
      if (times.length >= perHour && oldest !== undefined) {
        arrivals.set(address, times);
        return { ok: false, retryAfterMs: oldest + NEW_PERSONS_WINDOW_MS - nowMs };
      }
      times.push(nowMs);
      arrivals.set(address, times);
      for (const forgotten of arrivals.keys()) {
        if (arrivals.size <= addressesMax) break;
        arrivals.delete(forgotten);
      }
      return { ok: true };
    },
  };
}
