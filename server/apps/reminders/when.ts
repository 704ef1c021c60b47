/**
 * When a reminder is due: from a delay (`inSeconds`) or a time (`at`: "HH:MM" today or tomorrow in
 * the person's zone, or an ISO date-time), and how that is said back in the person's language. Pure:
 * now, the zone and the language are arguments.
 */
import { VerbInputError } from '../../verbs/errors';
import { daysBetween, fromLocal, localTime, spokenClock, spokenDate, spokenSpan } from '../localTime';
import { NUMBER_WORDS, numberSaid } from '../spoken';
import { WORDS } from './reminderWords';

/** The longest delay, in seconds: a year. */
export const LONGEST_S = 31_536_000;

const CLOCK = /^([01]?\d|2[0-3]):([0-5]\d)$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/** The `at` field's pattern, for its JSON Schema: "HH:MM" or an ISO date-time. */
export const AT_PATTERN = new RegExp(`${CLOCK.source}|${DATE_TIME.source}`);

export interface Due {
  /** ms since the epoch. */
  dueAtMs: number;
  /** "in 10 minutes", "at 7:30 pm", "at 7:30 am tomorrow", in the person's language. */
  inWords: string;
}

/**
 * The moment a reminder asked for with exactly one of `inSeconds` and `at` is due, said in
 * `language`. Throws `VerbInputError` for neither or both, for a time that has passed and for one
 * over a year away.
 */
export function dueFrom(when: { inSeconds?: number | undefined; at?: string | undefined }, nowMs: number, timeZone: string, language?: string): Due {
  const { inSeconds, at } = when;
  if (inSeconds !== undefined && at !== undefined) throw new VerbInputError(WORDS.say(language, 'delay-and-time'));
  if (inSeconds !== undefined) {
    const dueAtMs = nowMs + inSeconds * 1000;
    return { dueAtMs, inWords: inSeconds < 86_400 ? spokenIn(inSeconds, language) : spokenAt(dueAtMs, nowMs, timeZone, language) };
  }
  if (at === undefined) throw new VerbInputError(WORDS.say(language, 'needs-time'));
  const dueAtMs = CLOCK.test(at) ? nextClock(at, nowMs, timeZone) : dateTime(at, timeZone, language);
  if (dueAtMs <= nowMs) throw new VerbInputError(WORDS.say(language, 'passed'));
  if (dueAtMs - nowMs > LONGEST_S * 1000) throw new VerbInputError(WORDS.say(language, 'too-far'));
  return { dueAtMs, inWords: spokenAt(dueAtMs, nowMs, timeZone, language) };
}

/** A delay as said in `language`: "in 10 minutes", "dentro de 10 minutos". */
export function spokenIn(seconds: number, language: string | undefined): string {
  return WORDS.say(language, 'in', { span: spokenSpan(seconds, language) });
}

/**
 * When `ms` is, said from `nowMs` in `timeZone` and `language`: "at 7:30 pm", "at 7:30 am tomorrow",
 * "at 9 am on Friday, 4 December"; "now" once it has come.
 */
export function spokenAt(ms: number, nowMs: number, timeZone: string, language: string | undefined): string {
  if (ms <= nowMs) return WORDS.say(language, 'now');
  const at = localTime(ms, timeZone);
  const time = spokenClock(at, language);
  const days = daysBetween(localTime(nowMs, timeZone), at);
  if (days === 0) return WORDS.say(language, 'at-today', { time });
  if (days === 1) return WORDS.say(language, 'at-tomorrow', { time });
  return WORDS.say(language, 'at-day', { time, date: spokenDate(at, language) });
}

/** The next time the wall clock in `timeZone` reads "HH:MM": today, or tomorrow once it has passed. */
function nextClock(at: string, nowMs: number, timeZone: string): number {
  const [, hours = '', minutes = ''] = CLOCK.exec(at) ?? [];
  const today = localTime(nowMs, timeZone);
  const reading = { year: today.year, month: today.month, day: today.day, hour: Number(hours), minute: Number(minutes) };
  const todayMs = fromLocal(reading, timeZone);
  return todayMs > nowMs ? todayMs : fromLocal({ ...reading, day: reading.day + 1 }, timeZone);
}

/** An ISO date-time; without an offset it is read in `timeZone`. Refused in `language`. */
function dateTime(at: string, timeZone: string, language: string | undefined): number {
  const match = DATE_TIME.exec(at);
  if (match === null) throw new VerbInputError(WORDS.say(language, 'time-shape'));
  const [, year, month, day, hour, minute, second = '0', zone] = match;
  const reading = { year: Number(year), month: Number(month), day: Number(day), hour: Number(hour), minute: Number(minute), second: Number(second) };
  const check = new Date(Date.UTC(reading.year, reading.month - 1, reading.day, reading.hour, reading.minute, reading.second));
  if (check.getUTCMonth() !== reading.month - 1 || check.getUTCDate() !== reading.day || check.getUTCHours() !== reading.hour || check.getUTCMinutes() !== reading.minute) {
    throw new VerbInputError(WORDS.say(language, 'no-such-date'));
  }
  return zone === undefined ? fromLocal(reading, timeZone) : Date.parse(at);
}

/** Seconds in a unit, by how each unit's spoken forms begin ("mins", "minutes"; "hrs", "hours"). */
const UNIT_S: Readonly<Record<string, number>> = { sec: 1, min: 60, h: 3600 };

/** A delay as a person says it: "in ten minutes", "in 2 hours", "in half an hour", "in a minute". */
export const SAID_DELAY = String.raw`in (?:half an hour|${NUMBER_WORDS} (?:seconds?|secs?|minutes?|mins?|hours?|hrs?))`;
/** A time as a person says it: "at 7:30", "at 7 pm", "at 7:30 p.m.", "at 19:30". */
export const SAID_TIME = String.raw`at \d{1,2}(?::\d{2})?(?: ?[ap]\.? ?m\.?)?`;

/**
 * The `inSeconds` or `at` a person's "in ten minutes" or "at 7:30 pm" asks for; undefined when it
 * names no time. A time without am or pm is read on the 24-hour clock ("at 7:30" is 07:30).
 */
export function whenSaid(said: string): { inSeconds: number } | { at: string } | undefined {
  if (said === 'in half an hour') return { inSeconds: 1800 };
  const delay = new RegExp(String.raw`^in (${NUMBER_WORDS}) (sec|min|h)`).exec(said);
  if (delay !== null) {
    const count = numberSaid(delay[1] ?? '');
    const unit = UNIT_S[delay[2] ?? ''];
    return count === undefined || unit === undefined ? undefined : { inSeconds: count * unit };
  }
  const time = /^at (\d{1,2})(?::(\d{2}))?(?: ?([ap])\.? ?m\.?)?$/.exec(said);
  if (time === null) return undefined;
  const [, hours = '', minutes = '00', half] = time;
  let hour = Number(hours);
  if (half !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half === 'p' ? 12 : 0);
  }
  return hour > 23 ? undefined : { at: `${String(hour).padStart(2, '0')}:${minutes}` };
}
