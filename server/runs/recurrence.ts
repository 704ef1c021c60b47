/**
 * When a schedule's work is due: the recurrence grammar (every, on, at, zone, until) and its next
 * occurrence, pure, on wall-clock time in the person's zone (daylight saving included, through
 * `fromLocal`). A schedule keeps its own clock — the next occurrence not yet fired — and `firing`
 * decides each look at it: due or not, and where its clock goes next. A clock that fell behind (a
 * server down for a week) fires once, for the last occurrence, and moves on past now; it never
 * replays the ones it missed.
 */
import { fromLocal, localTime } from '../apps/localTime';

export type Every = 'day' | 'weekday' | 'weekend' | 'week' | 'hour';
export const EVERY: readonly Every[] = ['day', 'weekday', 'weekend', 'week', 'hour'];

export interface Recurrence {
  every: Every;
  /** For `week`: the days, 0 Sunday … 6 Saturday (default: the day it was made). */
  on?: readonly number[];
  /** Wall-clock time, `HH:MM` on the 24-hour clock (default 09:00; for `hour`, the minute past). */
  at?: string;
  /** The IANA zone the times are read in. */
  zone: string;
  /** No occurrence after this instant, ms since the epoch. */
  untilMs?: number;
}

const HOUR_MS = 3_600_000;
/** The time of a schedule that names none. */
export const DEFAULT_AT = '09:00';

/** Days `every` covers, 0 Sunday … 6 Saturday. */
export function daysOf(recurrence: Recurrence): ReadonlySet<number> {
  switch (recurrence.every) {
    case 'day':
    case 'hour':
      return new Set([0, 1, 2, 3, 4, 5, 6]);
    case 'weekday':
      return new Set([1, 2, 3, 4, 5]);
    case 'weekend':
      return new Set([0, 6]);
    case 'week':
      return new Set(recurrence.on !== undefined && recurrence.on.length > 0 ? recurrence.on : [1]);
  }
}

/** The wall-clock time of `at` (default 09:00); throws `RangeError` for one that is no time. */
export function clockOf(at: string | undefined): { hour: number; minute: number } {
  const match = /^(\d{1,2}):(\d{2})$/.exec(at ?? DEFAULT_AT);
  const hour = Number(match?.[1] ?? 9);
  const minute = Number(match?.[2] ?? 0);
  if (match === null || hour > 23 || minute > 59) throw new RangeError(`A schedule's time is "${at ?? ''}"; give HH:MM on the 24-hour clock, e.g. 08:00.`);
  return { hour, minute };
}

/** The first occurrence strictly after `afterMs`; undefined when there is none before `untilMs`. */
export function nextOccurrence(recurrence: Recurrence, afterMs: number): number | undefined {
  const { hour, minute } = clockOf(recurrence.at);
  const days = daysOf(recurrence);
  let found: number | undefined;
  if (recurrence.every === 'hour') {
    // The minute past each hour, on the wall clock.
    const start = Math.floor(afterMs / HOUR_MS) * HOUR_MS;
    for (let h = 0; h <= 48 && found === undefined; h += 1) {
      const local = localTime(start + h * HOUR_MS, recurrence.zone);
      const at = fromLocal({ year: local.year, month: local.month, day: local.day, hour: local.hour, minute }, recurrence.zone);
      if (at > afterMs) found = at;
    }
  } else {
    const today = localTime(afterMs, recurrence.zone);
    for (let d = 0; d <= 8 && found === undefined; d += 1) {
      const at = fromLocal({ year: today.year, month: today.month, day: today.day + d, hour, minute }, recurrence.zone);
      if (at > afterMs && days.has(localTime(at, recurrence.zone).weekday)) found = at;
    }
  }
  return found === undefined || (recurrence.untilMs !== undefined && found > recurrence.untilMs) ? undefined : found;
}

export interface Firing {
  /** Fire now, once. */
  fire: boolean;
  /** The schedule's clock after this look: the next occurrence not yet fired; null when it is over. */
  nextAtMs: number | null;
}

/**
 * A look at a schedule whose clock says `nextAtMs`, at `nowMs`. Due (now at or past its clock): it
 * fires once — for the last occurrence between its last firing and now, however many fell between —
 * and its clock moves to the first occurrence after now.
 */
export function firing(recurrence: Recurrence, nextAtMs: number | null, nowMs: number): Firing {
  if (nextAtMs === null) return { fire: false, nextAtMs: null };
  if (nowMs < nextAtMs) return { fire: false, nextAtMs };
  return { fire: true, nextAtMs: nextOccurrence(recurrence, nowMs) ?? null };
}

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** The day a person names ("monday", "mondays", "mon"), 0 Sunday … 6 Saturday; undefined when none. */
export function dayNamed(name: string): number | undefined {
  const said = name.trim().toLowerCase().replace(/s$/, '');
  const index = DAY_NAMES.findIndex((day) => day === said || day.slice(0, 3) === said);
  return index === -1 ? undefined : index;
}
