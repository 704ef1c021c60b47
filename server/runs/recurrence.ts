/**
 * When a schedule's work is due: the recurrence grammar (every, on, at, zone, interval, until,
 * except) and its next occurrence, pure, on wall-clock time in the schedule's zone (daylight saving
 * included, through `fromLocal`). Days — `until`, `except`, `from` — are calendar days in that zone,
 * so "until Friday" in Sydney runs on Sydney's Friday. A schedule keeps its own clock — the next
 * occurrence not yet fired — and `firing` decides each look at it: due or not, and where its clock
 * goes next. A clock that fell behind (a server down for a week) fires once, for the last
 * occurrence, and moves on past now; it never replays the ones it missed.
 */
import { fromLocal, isTimeZone, localTime } from '../apps/localTime';

export type Every = 'day' | 'weekday' | 'weekend' | 'week' | 'hour';
export const EVERY: readonly Every[] = ['day', 'weekday', 'weekend', 'week', 'hour'];

export interface Recurrence {
  every: Every;
  /** For `week`: the days, 0 Sunday … 6 Saturday (default: Monday). */
  on?: readonly number[];
  /** Wall-clock time, `HH:MM` on the 24-hour clock (default 09:00; for `hour`, the minute past). */
  at?: string;
  /** The IANA zone the times and days are read in. */
  zone: string;
  /**
   * Every so many of `every`'s unit — days for `day`, weeks for `weekday`, `weekend` and `week`, hours
   * for `hour` — counted from `from`. A whole number from 1 to `INTERVAL_MAX`; default 1.
   */
  interval?: number;
  /** The day `interval` is counted from (its week, for the weekly ones), `YYYY-MM-DD` in `zone`; default `ANCHOR_DAY`. */
  from?: string;
  /** The last day it runs, `YYYY-MM-DD` in `zone` (that whole day is in). */
  until?: string;
  /** Days it does not run, `YYYY-MM-DD` in `zone`. */
  except?: readonly string[];
}

/** Most a schedule's `interval` may be. */
export const INTERVAL_MAX = 52;
/** Most days a schedule's `except` may list. */
export const EXCEPT_MAX = 60;
/** What `interval` counts from when a schedule names no `from`: a Monday, so weeks start on Mondays. */
const ANCHOR_DAY = '1970-01-05';
/** The time of a schedule that names none. */
export const DEFAULT_AT = '09:00';

const DAY_MS = 86_400_000;
/** 1970-01-01, day 0, was a Thursday. */
const WEEKDAY_OF_DAY_0 = 4;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

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

/** A calendar day `YYYY-MM-DD` as days since 1970-01-01; throws `RangeError` for one that is no day (2026-02-30). */
export function dayNumber(day: string): number {
  const match = ISO_DAY.exec(day);
  const [year, month, date] = [Number(match?.[1]), Number(match?.[2]), Number(match?.[3])];
  const ms = Date.UTC(year, month - 1, date);
  const back = new Date(ms);
  if (match === null || back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== date) {
    throw new RangeError(`"${day}" is not a day; give one as YYYY-MM-DD, e.g. 2026-12-24.`);
  }
  return ms / DAY_MS;
}

/** The calendar day `ms` falls on in `zone`, `YYYY-MM-DD`. */
export function dayIn(ms: number, zone: string): string {
  const t = localTime(ms, zone);
  return `${String(t.year).padStart(4, '0')}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}`;
}

const modulo = (n: number, by: number) => ((n % by) + by) % by;
/** Weeks since the week of 1970-01-05, each from Monday. */
const weekOf = (day: number) => Math.floor((day - 4) / 7);

/**
 * Throws `RangeError`, with a sentence saying what it takes, for a recurrence whose fields are not
 * what they must be: a time that is no time, a zone Intl does not know, a day that is no day, an
 * interval out of range, a weekday that is none.
 */
export function checkRecurrence(recurrence: Recurrence): void {
  clockOf(recurrence.at);
  if (!isTimeZone(recurrence.zone)) throw new RangeError(`"${recurrence.zone}" is not a time zone; give an IANA zone, e.g. Europe/Lisbon.`);
  const interval = recurrence.interval ?? 1;
  if (!Number.isInteger(interval) || interval < 1 || interval > INTERVAL_MAX) throw new RangeError(`An interval of ${String(interval)} is not one; give a whole number from 1 to ${String(INTERVAL_MAX)}.`);
  if (recurrence.on?.some((day) => !Number.isInteger(day) || day < 0 || day > 6) === true) throw new RangeError('A schedule’s days are 0 (Sunday) to 6 (Saturday).');
  if ((recurrence.except?.length ?? 0) > EXCEPT_MAX) throw new RangeError(`A schedule may leave out at most ${String(EXCEPT_MAX)} days.`);
  for (const day of [recurrence.from, recurrence.until, ...(recurrence.except ?? [])]) if (day !== undefined) dayNumber(day);
}

/** Whether the schedule runs on calendar day `day` (days since 1970-01-01 in its zone), at its `hour`. */
function runsOn(recurrence: Recurrence, day: number, hour: number, anchor: number, except: ReadonlySet<number>): boolean {
  if (!daysOf(recurrence).has(modulo(day + WEEKDAY_OF_DAY_0, 7)) || except.has(day)) return false;
  const interval = recurrence.interval ?? 1;
  switch (recurrence.every) {
    case 'day':
      return modulo(day - anchor, interval) === 0;
    case 'hour':
      return modulo((day - anchor) * 24 + hour, interval) === 0;
    default:
      return modulo(weekOf(day) - weekOf(anchor), interval) === 0;
  }
}

/** The first occurrence strictly after `afterMs`; undefined when there is none by its `until`. Throws `RangeError` as `checkRecurrence`. */
export function nextOccurrence(recurrence: Recurrence, afterMs: number): number | undefined {
  checkRecurrence(recurrence);
  const { hour, minute } = clockOf(recurrence.at);
  const anchor = dayNumber(recurrence.from ?? ANCHOR_DAY);
  const until = recurrence.until === undefined ? undefined : dayNumber(recurrence.until);
  const except = new Set((recurrence.except ?? []).map(dayNumber));
  const first = dayNumber(dayIn(afterMs, recurrence.zone));
  // Far enough to pass a whole interval and every day left out; an occurrence, if any, is within it.
  const last = first + 8 + 7 * (recurrence.interval ?? 1) + except.size;
  const hours = recurrence.every === 'hour' ? Array.from({ length: 24 }, (_, h) => h) : [hour];
  for (let day = first; day <= last && (until === undefined || day <= until); day += 1) {
    const date = new Date(day * DAY_MS);
    for (const h of hours) {
      if (!runsOn(recurrence, day, h, anchor, except)) continue;
      const at = fromLocal({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour: h, minute }, recurrence.zone);
      if (at > afterMs) return at;
    }
  }
  return undefined;
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
