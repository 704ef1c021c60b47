/**
 * Wall-clock time in a person's time zone, and how it is said aloud, for the apps. Built on `Intl`
 * alone: the zone's offset at an instant is read from `Intl.DateTimeFormat`, so daylight saving and
 * half-hour zones (Asia/Kolkata, +05:30) come out right without a time-zone library. Times are ms
 * since the epoch; a zone is an IANA name (`Europe/Lisbon`).
 */
import { intlLanguage, joinWords, saysEnglish } from './spoken';

/** A wall-clock reading in one zone. */
export interface LocalTime {
  year: number;
  /** 1–12. */
  month: number;
  /** 1–31. */
  day: number;
  /** 0–23. */
  hour: number;
  minute: number;
  second: number;
  /** 0 Sunday … 6 Saturday. */
  weekday: number;
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (format === undefined) {
    // Throws RangeError for a zone Intl does not know.
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formats.set(timeZone, format);
  }
  return format;
}

/** Whether Intl knows `timeZone` as an IANA zone. */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

const SHORT_WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The wall clock in `timeZone` at `ms`. */
export function localTime(ms: number, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const part of formatFor(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: SHORT_WEEKDAYS.indexOf(parts.weekday ?? ''),
  };
}

/** The zone's offset from UTC at `ms`, in ms (New York in winter: −5 h). */
export function offsetMs(ms: number, timeZone: string): number {
  const wholeSecondMs = Math.floor(ms / 1000) * 1000;
  const local = localTime(wholeSecondMs, timeZone);
  return Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - wholeSecondMs;
}

/**
 * The instant a wall-clock reading in `timeZone` names. Fields may overflow (`day: 32`) as with
 * `Date.UTC`, which is how "tomorrow" is asked for. A reading that happens twice (clocks going back)
 * is the first; one that never happens (clocks going forward) lands an hour later.
 */
export function fromLocal(time: { year: number; month: number; day: number; hour: number; minute: number; second?: number }, timeZone: string): number {
  const asUtc = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second ?? 0);
  // The offsets a day either side bracket any change near the reading; a candidate is real when the
  // zone has that offset at that instant.
  const before = offsetMs(asUtc - DAY_MS, timeZone);
  const after = offsetMs(asUtc + DAY_MS, timeZone);
  const real = [asUtc - before, asUtc - after].filter((ms, i) => offsetMs(ms, timeZone) === (i === 0 ? before : after));
  return real.length === 0 ? asUtc - before : Math.min(...real);
}

/** `2026-12-01T15:05:00-05:00`: the local reading with its offset. */
export function isoLocal(ms: number, timeZone: string): string {
  const t = localTime(ms, timeZone);
  const offsetMinutes = Math.round(offsetMs(ms, timeZone) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${t.year}-${two(t.month)}-${two(t.day)}T${two(t.hour)}:${two(t.minute)}:${two(t.second)}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/**
 * The time of day as said: in English "3:05 pm", "7 pm", "noon", "midnight"; in another language its
 * own clock, as `Intl` writes it ("15:05").
 */
export function spokenClock(t: Pick<LocalTime, 'hour' | 'minute'>, language?: string): string {
  if (!saysEnglish(language)) {
    return new Intl.DateTimeFormat(intlLanguage(language), { hour: 'numeric', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' }).format(Date.UTC(2000, 0, 1, t.hour, t.minute));
  }
  if (t.minute === 0 && t.hour === 12) return 'noon';
  if (t.minute === 0 && t.hour === 0) return 'midnight';
  const hour12 = t.hour % 12 === 0 ? 12 : t.hour % 12;
  const half = t.hour < 12 ? 'am' : 'pm';
  return t.minute === 0 ? `${hour12} ${half}` : `${hour12}:${two(t.minute)} ${half}`;
}

/** The date as said: in English "Tuesday, 1 December"; in another language as `Intl` writes it ("martes, 1 de diciembre"). */
export function spokenDate(t: Pick<LocalTime, 'year' | 'month' | 'day' | 'weekday'>, language?: string): string {
  if (!saysEnglish(language)) {
    return new Intl.DateTimeFormat(intlLanguage(language), { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }).format(Date.UTC(t.year, t.month - 1, t.day));
  }
  return `${WEEKDAYS[t.weekday] ?? ''}, ${t.day} ${MONTHS[t.month - 1] ?? ''}`;
}

/** How many calendar days `later` is after `earlier` on the wall clock (0 the same day, 1 the next). */
export function daysBetween(earlier: LocalTime, later: LocalTime): number {
  return Math.round((Date.UTC(later.year, later.month - 1, later.day) - Date.UTC(earlier.year, earlier.month - 1, earlier.day)) / DAY_MS);
}

/** A span as said after "in", in `language`: "45 seconds", "1 minute", "2 hours", "1 hour and 30 minutes", "1 hora y 30 minutos". */
export function spokenSpan(seconds: number, language?: string): string {
  const tag = intlLanguage(language);
  const count = (n: number, unit: 'second' | 'minute' | 'hour') => new Intl.NumberFormat(tag, { style: 'unit', unit, unitDisplay: 'long' }).format(n);
  if (seconds < 60) return count(Math.max(1, Math.round(seconds)), 'second');
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return count(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? count(hours, 'hour') : joinWords([count(hours, 'hour'), count(rest, 'minute')], language);
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}
