/**
 * How a refused turn is told: which ceiling was reached and when it frees up, in the words of the
 * person's language (`## ceilings`, `## windows`, `## waits`). `server/db/limits.ts` says what was
 * refused; this says it.
 */
import type { LimitWindow, Refusal, Whose } from '../db/limits';
import { BASE_LANGUAGE, shippedWords } from './loadWords';
import { say } from './words';
import type { WordKey, Words } from './words';

/** How each window is said (`## windows` of the words files). */
const WINDOW_WORDS: Readonly<Record<LimitWindow, WordKey>> = {
  perMinute: 'windows.per-minute',
  perHour: 'windows.per-hour',
  perDay: 'windows.per-day',
  perWeek: 'windows.per-week',
  perMonth: 'windows.per-month',
};

/**
 * The refusal's sentence: which ceiling, and when it frees up, counted from `now`, in `words`
 * (`## ceilings`; default the shipped English), as `whose` windows refused.
 */
export function refusalSentence(refusal: Omit<Refusal, 'ok' | 'sentence'>, now: Date, whose: Whose = 'bot', words: Words = shippedWords().wordsIn(BASE_LANGUAGE)): string {
  const wait = () => waitWords((refusal.freesAt?.getTime() ?? 0) - now.getTime(), words);
  const window = () => say(words, WINDOW_WORDS[refusal.window]);
  const ceiling = () => (refusal.kind === 'answers' ? String(refusal.ceiling) : dollars(refusal.ceiling));
  if (typeof whose === 'object') {
    if (refusal.freesAt === null) return say(words, 'ceilings.app-none', { app: whose.app });
    return say(words, 'ceilings.app', { app: whose.app, window: window(), ceiling: ceiling(), wait: wait() });
  }
  if (whose === 'background') return refusal.freesAt === null ? say(words, 'ceilings.background-none') : say(words, 'ceilings.background', { window: window(), wait: wait() });
  const site = whose === 'site' ? 'site-' : '';
  if (refusal.freesAt === null) return say(words, `ceilings.${site}no-${refusal.kind}` as WordKey);
  return say(words, `ceilings.${site}${refusal.kind}` as WordKey, { window: window(), ceiling: ceiling(), wait: wait() });
}

/** Dollars and cents, or the exact figure when a ceiling is smaller than a cent. */
function dollars(usd: number): string {
  return usd >= 0.01 || usd === 0 ? `$${usd.toFixed(2)}` : `$${usd}`;
}

/** A wait in words, rounded up so that the promise holds: "40 seconds", "12 minutes", "3 hours", "2 days". */
export function waitWords(ms: number, words: Words = shippedWords().wordsIn(BASE_LANGUAGE)): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  const unit = (n: number, one: WordKey, many: WordKey) => say(words, n === 1 ? one : many, { n: String(n) });
  if (seconds < 90) return unit(seconds, 'waits.second', 'waits.seconds');
  if (seconds < 90 * 60) return unit(Math.ceil(seconds / 60), 'waits.minute', 'waits.minutes');
  if (seconds < 36 * 3600) return unit(Math.ceil(seconds / 3600), 'waits.hour', 'waits.hours');
  return unit(Math.ceil(seconds / 86_400), 'waits.day', 'waits.days');
}
