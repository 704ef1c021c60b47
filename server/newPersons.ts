/**
 * How many new local persons each client address has become lately: in local mode a person is a
 * cookie, and a script that drops its cookie would be a new person, with fresh ceilings, at every
 * request. Counted in the database, so every instance over it shares one count (`sharedCounts.ts`):
 * a sliding hour of arrivals per address, at most `perHour` of them, so no hour anywhere holds more.
 * The address is kept only as a digest, and each arrival lapses with its hour. Times are given, never
 * read, so a test's clock is the clock.
 */
import { checkOption } from '../common/options';
import type { Database } from './db/database';
import { countKey, takePlace } from './db/sharedCounts';
import type { Room } from './db/sharedCounts';

/** The window the count is over, in ms: an hour. */
export const NEW_PERSONS_WINDOW_MS = 60 * 60_000;

export interface NewPersons {
  /** Counts a new person from `address` at `nowMs`, or refuses it with how long until one may come. */
  arrive(address: string, nowMs: number): Promise<Room>;
}

export function newPersons(db: Database, perHour: number): NewPersons {
  checkOption('newPersons.perHour', perHour, { min: 1, whole: true });
  return {
    arrive: (address, nowMs) => db.asServer((tx) => takePlace(tx, { key: countKey('new-persons', address), max: perHour, nowMs, untilMs: nowMs + NEW_PERSONS_WINDOW_MS })),
  };
}
