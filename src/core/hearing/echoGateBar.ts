/**
 * The echo gate's bar: the level a person must stay over to be heard over the assistant — over
 * `margin` times the leak's peak level, widened while little is learned, never under `floor`, and
 * over what the current output should leak when frames carry it.
 */
import { levelWithTail } from './leakPicture';
import type { EchoGateState } from './echoGateState';

/**
 * Leak ratios (microphone level over output level) are kept in the level histogram divided by this,
 * so a microphone that reads up to four times louder than the output still fits under 1.
 */
export const RATIO_SCALE = 4;

/**
 * The leak's peak level, 0..1: the level over which the loudest `peakShare` (at least `peakMinMs`)
 * of the remembered assistant audio lay. For a steady leak it is that leak's level.
 *
 * Not the leak's mean: a voice's syllables peak at about twice its mean, and a bar set from the mean
 * is cleared by the assistant's own stressed syllables. Nor the single loudest moment, which one
 * rising edge of a person's voice can move. Read from a fading histogram of sustained levels, a person's
 * brief rise is too little audio to move it, and a syllable louder than usual is one of many.
 */
export function leakOf(state: EchoGateState): number {
  const { options, leak } = state;
  return levelWithTail(leak, Math.max(options.peakShare * leak.heardMs, options.peakMinMs));
}

/** The factor on `margin` in force now: wide while little is learned, and at the start of each answer. */
function widening(state: EchoGateState): number {
  const { options } = state;
  const span = options.settleMs - options.warmUpMs;
  const trust = span <= 0 ? 1 : Math.min(1, Math.max(0, (state.leak.heardMs - options.warmUpMs) / span));
  const cold = options.coldMargin + (options.margin - options.coldMargin) * trust;
  const fresh = options.turnSettleMs <= 0 ? 0 : Math.max(0, 1 - state.turnMs / options.turnSettleMs);
  return (cold / options.margin) * (1 + (options.turnMargin - 1) * fresh);
}

/**
 * The bar over a leak at `peak`: `margin` times it, widened while little is learned, never under
 * `floor`. When that is over full scale, a person at full scale still counts as long as the leak's
 * loudest moments (`headroom` over its peak) stay under it; past that the bar is over 1, and the
 * leak's own peaks are near full scale and no voice can be told from it.
 */
export function barFor(state: EchoGateState, peak: number): number {
  const { options } = state;
  const wide = widening(state);
  const bar = Math.max(options.floor, wide * options.margin * peak);
  if (bar > options.fullScale && wide * options.headroom * peak < options.fullScale) return options.fullScale;
  return bar;
}

/**
 * The level, 0..1, a person must stay over right now. Over 1 when the leak itself reaches full
 * scale: nothing the microphone can read clears it.
 */
export function barOf(state: EchoGateState): number {
  const reference = referenceLevel(state.reference);
  const byLevel = barFor(state, leakOf(state));
  return reference !== null && state.ratio.heardMs > 0 ? Math.max(byLevel, barFor(state, expectedLeak(state, reference))) : byLevel;
}

/** The loudest output level of the remembered reference frames, or null when frames carry none. */
export function referenceLevel(reference: EchoGateState['reference']): number | null {
  if (reference.length === 0) return null;
  let loudest = 0;
  for (const r of reference) loudest = Math.max(loudest, r.level);
  return loudest;
}

/**
 * The leak ratio's peak: the share of the output the microphone hears back, at its loud end — the
 * top `peakShare` of it, as for the level, since the share swings with the sound (a small speaker drops a vowel's bass and
 * plays a hiss in full), where the leak's level swings only with loudness.
 */
export function ratioOf(state: EchoGateState): number {
  const { options, ratio } = state;
  return RATIO_SCALE * levelWithTail(ratio, Math.max(options.peakShare * ratio.heardMs, options.peakMinMs));
}

/** The leak the microphone may hear now, from the output of the last `referenceMs` and the learned ratio. */
export function expectedLeak(state: EchoGateState, reference: number): number {
  return ratioOf(state) * reference;
}
