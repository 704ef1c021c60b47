/**
 * How soon a speech recogniser that stopped by itself may be opened again. Chrome ends a continuous
 * session after a silence, and some browsers end or abort one at once, again and again (another tab
 * holds the microphone, the service is away): reopening each at once would spin. So the next
 * session may start no sooner than `firstMs` after the one before it started, doubled for each
 * session in a row that ended without hearing a word, up to `maxMs`; a word heard starts over.
 *
 * Counting from the previous session's start, not its end, means a session that listened for a
 * long while (eight silent seconds before Chrome's `no-speech`) is reopened at once, and only
 * sessions that die young are held back.
 */

export interface RestartBackoff {
  /** The shortest time between one session's start and the next, in ms. Default 250. */
  firstMs: number;
  /** The longest it grows to, in ms. Default 5000. */
  maxMs: number;
}

export const RESTART_BACKOFF_DEFAULTS: Readonly<RestartBackoff> = Object.freeze({ firstMs: 250, maxMs: 5000 });

/** A backoff no recogniser could be restarted with. */
export class RestartBackoffError extends RangeError {
  override readonly name = 'RestartBackoffError';
}

/** `given` over the defaults, checked. */
export function restartBackoff(given: Partial<RestartBackoff> = {}): RestartBackoff {
  const merged = { ...RESTART_BACKOFF_DEFAULTS, ...given };
  if (!(Number.isFinite(merged.firstMs) && merged.firstMs > 0)) {
    throw new RestartBackoffError(`The recogniser's first restart wait is ${String(merged.firstMs)} ms; give more than 0.`);
  }
  if (!(Number.isFinite(merged.maxMs) && merged.maxMs >= merged.firstMs)) {
    throw new RestartBackoffError(`The recogniser's longest restart wait is ${String(merged.maxMs)} ms; give at least the first wait (${String(merged.firstMs)} ms).`);
  }
  return merged;
}

/**
 * The least time from the last session's start to the next one's, in ms, after `endedInRow`
 * sessions in a row ended by themselves without a word heard (0: the last one heard something, or
 * none has ended by itself).
 */
export function restartWaitMs(endedInRow: number, backoff: RestartBackoff = RESTART_BACKOFF_DEFAULTS): number {
  if (endedInRow <= 0) return 0;
  return Math.min(backoff.maxMs, backoff.firstMs * 2 ** (endedInRow - 1));
}
