/**
 * What an app file may say about its own calls: `limits`, calls per window over everybody, in the
 * window grammar of a bot's `limits` (`perMinute`, `perHour`, `perDay`, `perWeek`, `perMonth`, each
 * `{ calls: N }`), and `pricePerCallUsd`, what one call costs the site. The one gate
 * (`server/gate.ts`) holds every call of the app to both.
 *
 * ```yaml
 * limits: { perMinute: { calls: 30 }, perDay: { calls: 1000 } }
 * pricePerCallUsd: 0.002
 * ```
 */
import type { PersonLimits } from '../db/limits';
import { LIMIT_WINDOWS } from '../db/limits';
import { AppFileError } from './appFileError';

/** The most one call may be priced at, USD: a price above this is a typo, not a tariff. */
const PRICE_MAX_USD = 10;

/** The file's `limits` as windows the gate counts calls in (each call one answer); undefined when it sets none. */
export function appLimitsOf(file: string, value: unknown): PersonLimits | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new AppFileError(file, 'limits', `must be windows of calls, such as { perMinute: { calls: 30 } }; windows: ${LIMIT_WINDOWS.join(', ')}.`);
  const limits: PersonLimits = {};
  for (const [window, ceiling] of Object.entries(value as Record<string, unknown>)) {
    if (!(LIMIT_WINDOWS as string[]).includes(window)) throw new AppFileError(file, `limits.${window}`, `is not a window; use ${LIMIT_WINDOWS.join(', ')}.`);
    const calls = ceiling !== null && typeof ceiling === 'object' && !Array.isArray(ceiling) ? (ceiling as Record<string, unknown>).calls : undefined;
    const keys = ceiling !== null && typeof ceiling === 'object' ? Object.keys(ceiling) : [];
    if (typeof calls !== 'number' || !Number.isInteger(calls) || calls < 0 || keys.some((key) => key !== 'calls')) {
      throw new AppFileError(file, `limits.${window}`, 'must be { calls: N }, a whole number of calls, 0 or more, over everybody.');
    }
    limits[window as keyof PersonLimits] = { answers: calls };
  }
  return limits;
}

/** The file's `pricePerCallUsd`: what one call costs the site, USD; 0 when unset. */
export function pricePerCallOf(file: string, value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > PRICE_MAX_USD) {
    throw new AppFileError(file, 'pricePerCallUsd', `is ${JSON.stringify(value)}; give what one call costs in US dollars, from 0 to ${String(PRICE_MAX_USD)}.`);
  }
  return value;
}
