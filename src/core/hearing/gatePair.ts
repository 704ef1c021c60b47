/**
 * Two echo gates heard as one: the first judges the microphone as it comes, the second what is left
 * of it once the assistant's own voice is cancelled from it (the level meter's echo canceller). The
 * cancelled leak is several times quieter than the leak, so the second gate's bar is lower and it
 * hears a soft start — the glide of "yeah", the hum of "mm-hmm" — tens of milliseconds before the
 * vowel clears the first gate's bar. A person is heard when either gate hears them, once per
 * stretch of assistant audio.
 *
 * The second gate lives only while the canceller is trusted (the frames carry `cancelledLevel`): a
 * frame without it ends the second gate, and the next one with it starts a fresh gate, which warms
 * up on the residual as the first did on the leak. What it learned of a canceller it no longer
 * trusts would be a bar for a different signal. A frame the canceller says is its own misfit of the
 * leak (`echoLeft`) is a dip to the second gate: a drifted filter leaves a syllable's shape in the
 * residual nearly as loud as the microphone, over the second gate's low bar.
 *
 * Pure: the state is immutable plain data and time is the frame's `atMs`, never read.
 */
import { hearFrame, hearNothing, listenAgain, startEchoGate } from './echoGate';
import type { EchoGateFrame } from './echoGate';
import { barOf } from './echoGateBar';
import { checkEchoGate } from './echoGateOptions';
import type { EchoGateOptions } from './echoGateOptions';
import type { EchoGateState } from './echoGateState';

/** A frame of the microphone, with its cancelled level while the canceller is trusted. */
export interface GatePairFrame extends EchoGateFrame {
  /** The microphone's level with the assistant's output cancelled from it, 0..1; absent while the canceller is not trusted. */
  cancelledLevel?: number;
  /**
   * Whether the cancelled level is the canceller's own misfit of the leak, not anything new (its
   * residual followed its estimate): the second gate lets such a frame pass as a dip (`hearNothing`).
   * The first gate hears the microphone, which the misfit does not touch.
   */
  echoLeft?: boolean;
}

/** Both gates' states; `cancelled` is null while the canceller is not trusted. */
export interface GatePairState {
  readonly raw: EchoGateState;
  readonly cancelled: EchoGateState | null;
  /** The second gate's options, to start it afresh. */
  readonly cancelledOptions: EchoGateOptions;
}

/**
 * A pair that has heard nothing, with each gate's options (the page's are `HEARING.gate` and
 * `HEARING.cancelledGate`). Throws `OptionError` for an option a person must fix.
 */
export function startGatePair(options: EchoGateOptions, cancelled: EchoGateOptions): GatePairState {
  // Checked now, not when the canceller is first trusted minutes later.
  checkEchoGate(cancelled);
  return { raw: startEchoGate(options), cancelled: null, cancelledOptions: cancelled };
}

/**
 * Hears one frame with both gates; `bargeIn` is true on the frame where the first of them hears a
 * person, and that gate's barge-in counts for both: neither reports another until they re-arm.
 */
export function hearPair(state: GatePairState, frame: GatePairFrame): { state: GatePairState; bargeIn: boolean } {
  const wasInterrupted = state.raw.interrupted || (state.cancelled?.interrupted ?? false);
  const raw = hearFrame(state.raw, frame);
  let cancelled: { state: EchoGateState; bargeIn: boolean } | null = null;
  if (frame.cancelledLevel !== undefined) {
    const gate = state.cancelled ?? { ...startEchoGate(state.cancelledOptions), interrupted: state.raw.interrupted };
    cancelled = frame.echoLeft === true ? { state: hearNothing(gate, frame), bargeIn: false } : hearFrame(gate, { ...frame, level: frame.cancelledLevel });
  }
  const bargeIn = !wasInterrupted && (raw.bargeIn || (cancelled?.bargeIn ?? false));
  if (!bargeIn) return { bargeIn: false, state: { ...state, raw: raw.state, cancelled: cancelled?.state ?? null } };
  return {
    bargeIn: true,
    state: {
      ...state,
      raw: raw.bargeIn ? raw.state : { ...raw.state, interrupted: true },
      cancelled: cancelled === null ? null : cancelled.bargeIn ? cancelled.state : { ...cancelled.state, interrupted: true },
    },
  };
}

/** Both gates armed again after the voice carried on past what they heard (`listenAgain`). */
export function listenAgainPair(state: GatePairState): GatePairState {
  return { ...state, raw: listenAgain(state.raw), cancelled: state.cancelled === null ? null : listenAgain(state.cancelled) };
}

/** The first gate's bar, and the second's while it lives (null otherwise), 0..1. */
export function barsOf(state: GatePairState): { raw: number; cancelled: number | null } {
  return { raw: barOf(state.raw), cancelled: state.cancelled === null ? null : barOf(state.cancelled) };
}
