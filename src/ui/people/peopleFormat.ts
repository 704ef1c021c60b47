/**
 * How "You" writes sums, dates and counts: in the person's own formats (the browser's locale), the
 * words from the words files.
 */
import { say } from '../words';

/** US dollars in the person's currency format; a sum under a dollar keeps its cents' fractions. */
export function money(usd: number): string {
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: usd > 0 && usd < 1 ? 4 : 2 }).format(usd);
}

/** A date and time (ISO 8601, or ms since the epoch). */
export function dateTime(when: string | number): string {
  const date = new Date(when);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** A moment soon after `nowMs`: the time alone within a day (its seconds within an hour), else the date too. */
export function soon(atMs: number, nowMs: number): string {
  const ahead = atMs - nowMs;
  const date = new Date(atMs);
  if (ahead < HOUR_MS) return date.toLocaleTimeString(undefined, { timeStyle: 'medium' });
  if (ahead < DAY_MS) return date.toLocaleTimeString(undefined, { timeStyle: 'short' });
  return dateTime(atMs);
}

/** How long is left, as minutes and seconds (`4:07`). */
export function minutesLeft(leftMs: number): string {
  const seconds = Math.max(0, Math.ceil(leftMs / 1000));
  return `${String(Math.floor(seconds / 60))}:${String(seconds % 60).padStart(2, '0')}`;
}

export function answers(n: number): string {
  return n === 1 ? say('page-people.answer-one') : say('page-people.answers', { n });
}
