/**
 * The echo gate's state: everything it knows, as immutable plain data a store or machine can keep.
 */
import type { EchoGateOptions } from './echoGateOptions';
import type { LeakPicture } from './leakPicture';

/** One frame the gate still remembers: when it ended, its level, and how long it stood for (ms). */
export interface HeardFrame {
  readonly atMs: number;
  readonly level: number;
  readonly ms: number;
}

/** Everything the gate knows, as immutable plain data; make one with `startEchoGate`. */
export interface EchoGateState {
  readonly options: Readonly<EchoGateOptions>;
  readonly leak: LeakPicture;
  /** Assistant audio learned since the assistant last started after a silence, in milliseconds. */
  readonly turnMs: number;
  /** The previous frame's time, or null before the first frame. */
  readonly lastAtMs: number | null;
  /** The last frame in which the assistant was audible, or null if it never was. */
  readonly lastAudibleAtMs: number | null;
  /** The frames of the last `minOverMs` of this stretch of listening, oldest first; empty while silent. */
  readonly recent: readonly HeardFrame[];
  /** True once a barge-in was reported for this stretch of assistant audio; cleared after `tailMs` of silence. */
  readonly interrupted: boolean;
  /**
   * What the gate learned of the leak as a share of the assistant's own output level (microphone
   * level over output level, divided by `RATIO_SCALE`), from frames that carried the output level.
   */
  readonly ratio: LeakPicture;
  /** The output levels of the last `referenceMs`, oldest first; empty when frames carry none. */
  readonly reference: readonly { readonly atMs: number; readonly level: number }[];
  /** The picture as it was at the last checkpoint and the one before, with the time of the last. */
  readonly checkpoint: { readonly last: LeakPicture; readonly previous: LeakPicture; readonly atMs: number | null };
}
