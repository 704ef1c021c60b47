/**
 * A bot's ceilings on what one person may have from it over rolling windows, and what a refusal is:
 * which window, which ceiling, when it frees up. Pure: `reservations.ts` does the counting, and the
 * sentence a refusal is told in comes from the words files (`server/words/refusalWords.ts`).
 */

/** What one rolling window allows. An omitted field has no ceiling. */
interface WindowCeiling {
  /** Answers begun in the window: a whole number, 0 or more. 0 refuses every answer. */
  answers?: number;
  /**
   * US dollars spent in the window: the recorded cost of answers that finished plus the spend holds of
   * answers still running. 0 or more; 0 refuses every answer.
   */
  spend?: number;
}

/**
 * A person's ceilings for one bot, over rolling windows ending now. Each is independent, and an
 * answer is admitted only when every one of them has room. Counted per person and bot: the ceilings
 * come from the bot's file, so what a person had from another bot does not count against this one.
 * Other keys (a bot file's per-answer `steps`, `spend`, `minutes`) are ignored, so a bot's limits
 * can be passed as they are.
 */
export interface PersonLimits {
  perMinute?: WindowCeiling;
  perHour?: WindowCeiling;
  perDay?: WindowCeiling;
  perWeek?: WindowCeiling;
  /** A month is 30 days. */
  perMonth?: WindowCeiling;
}

export type LimitWindow = keyof PersonLimits;

/** Each window's length in milliseconds. */
export const WINDOW_MS: Readonly<Record<LimitWindow, number>> = Object.freeze({
  perMinute: 60_000,
  perHour: 3_600_000,
  perDay: 86_400_000,
  perWeek: 7 * 86_400_000,
  perMonth: 30 * 86_400_000,
});

export const LIMIT_WINDOWS = Object.keys(WINDOW_MS) as LimitWindow[];

/**
 * Refuses limits no answer could be counted against: an unknown field in a window, a negative or
 * fractional answer count, a negative or non-finite spend, or a per-answer spend hold larger than a spend
 * ceiling (no answer would ever fit). The message names the field.
 */
export function validateLimits(limits: PersonLimits, spendHoldUsd = 0): void {
  if (!(Number.isFinite(spendHoldUsd) && spendHoldUsd >= 0)) throw new RangeError(`spendHoldUsd is ${spendHoldUsd}; give US dollars, 0 or more.`);
  for (const window of LIMIT_WINDOWS) {
    const ceiling: unknown = limits[window];
    if (ceiling === undefined) continue;
    if (typeof ceiling !== 'object' || ceiling === null) throw new RangeError(`limits.${window} must be { answers?, spend? }.`);
    for (const [field, value] of Object.entries(ceiling) as [string, unknown][]) {
      if (value === undefined) continue;
      if (field === 'answers') {
        if (!(typeof value === 'number' && Number.isInteger(value) && value >= 0)) {
          throw new RangeError(`limits.${window}.answers is ${show(value)}; give a whole number of answers, 0 or more.`);
        }
      } else if (field === 'spend') {
        if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
          throw new RangeError(`limits.${window}.spend is ${show(value)}; give US dollars, 0 or more.`);
        }
        if (value > 0 && spendHoldUsd > value) {
          throw new RangeError(`One answer's spend hold is $${spendHoldUsd}, more than limits.${window}.spend ($${value}); no answer could ever fit.`);
        }
      } else {
        throw new RangeError(`limits.${window}.${field} is not a ceiling; use answers or spend.`);
      }
    }
  }
}

function show(value: unknown): string {
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

export interface Refusal {
  ok: false;
  /** The window that refused; when several do, the one that frees up last. */
  window: LimitWindow;
  kind: 'answers' | 'spend';
  /** The ceiling that was reached: answers, or US dollars. */
  ceiling: number;
  /** When an answer fits again, or null when this ceiling admits none at all. */
  freesAt: Date | null;
  /** What to tell the person, with no figures from anybody else (`refusalSentence`, in the server's words). */
  sentence: string;
}

/**
 * Whose windows refused: the bot's for one person, the site's over everybody (`CONFAB_SITE_LIMITS`),
 * the background share of the site's (`CONFAB_BACKGROUND_SHARE`), or an outside app's own calls.
 */
export type Whose = 'bot' | 'site' | 'background' | { app: string };
