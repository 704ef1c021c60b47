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
import { resolveOptions } from '../../../common/options';
import type { Limits, Relation } from '../../../common/options';

export interface RestartBackoff {
  /** The shortest time between one session's start and the next, in ms. Default 250. */
  firstMs: number;
  /** The longest it grows to, in ms. Default 5000. */
  maxMs: number;
}

const RESTART_BACKOFF_DEFAULTS: Readonly<RestartBackoff> = Object.freeze({ firstMs: 250, maxMs: 5000 });

const LIMITS: Limits<RestartBackoff> = { firstMs: { over: 0 }, maxMs: { over: 0 } };
const RELATIONS: readonly Relation<RestartBackoff>[] = [{ option: 'maxMs', is: 'at least', than: 'firstMs', because: 'the waits only grow' }];

/** `given` over the defaults, checked; throws `OptionError` naming the wait (`restartBackoff.<field>`). */
export function restartBackoff(given: Partial<RestartBackoff> = {}): RestartBackoff {
  return resolveOptions('restartBackoff', RESTART_BACKOFF_DEFAULTS, given, LIMITS, RELATIONS);
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
