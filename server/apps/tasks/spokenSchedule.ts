/**
 * What the tasks app and the bots' wakes (`server/runs/wakes.ts`) both say of a schedule, apart from
 * the app's index: an app's index is its own bundle, which finds its words beside it, so what is
 * shared is a module that is handed the words rather than one that reads them.
 */
import { DEFAULT_AT, clockOf, dayNumber, daysOf } from '../../runs/recurrence';
import type { Recurrence } from '../../runs/recurrence';
import type { AppWords } from '../appWords';

/** Most active schedules a person may keep, over all their bots. */
export const SCHEDULES_MAX = 20;
const DAY_MS = 86_400_000;

/**
 * How a schedule runs, as said back in `language`: "every weekday at 08:00", "every 2 weeks on Monday
 * and Friday at 09:30, until 30 June 2026". `time` is how its time is said (default its `HH:MM`); `WORDS` are the tasks app's own.
 */
export function spokenSchedule(WORDS: AppWords, recurrence: Recurrence, language: string | undefined, time?: string): string {
  const tag = language ?? 'en';
  const interval = recurrence.interval ?? 1;
  const n = String(interval);
  const at = time ?? recurrence.at ?? DEFAULT_AT;
  let said: string;
  if (recurrence.every === 'hour') {
    const minute = String(clockOf(recurrence.at).minute);
    said = interval === 1 ? WORDS.say(language, 'every-hour', { minute }) : WORDS.say(language, 'every-n-hours', { minute, n });
  } else if (recurrence.every === 'week') {
    // The days by the language's own names (1 January 2023 was a Sunday), listed as it lists them.
    const dayName = new Intl.DateTimeFormat(tag, { weekday: 'long', timeZone: 'UTC' });
    const days = new Intl.ListFormat(tag, { type: 'conjunction' }).format([...daysOf(recurrence)].map((day) => dayName.format(Date.UTC(2023, 0, 1 + day))));
    said = WORDS.say(language, interval === 1 ? 'every-week' : 'every-n-weeks', { days, at, n });
  } else {
    said = WORDS.say(language, interval === 1 ? `every-${recurrence.every}` : `every-n-${recurrence.every}s`, { at, n });
  }
  const dated = new Intl.DateTimeFormat(tag, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  const dayOf = (day: string) => dated.format(dayNumber(day) * DAY_MS);
  if (recurrence.until !== undefined) said = WORDS.say(language, 'until', { said, day: dayOf(recurrence.until) });
  if (recurrence.except !== undefined && recurrence.except.length > 0) {
    said = WORDS.say(language, 'except', { said, days: new Intl.ListFormat(tag, { type: 'conjunction' }).format(recurrence.except.map(dayOf)) });
  }
  return said;
}

