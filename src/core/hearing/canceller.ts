/**
 * What the level meter asks of an echo canceller, whichever one runs: it hears the microphone and
 * the player's output (the reference) in the same blocks, and hands back, at the level meter's own
 * frames, what is left of the microphone once the output's leak is taken out — but only while it
 * can say that what is left is not the leak. The second gate (gatePair.ts) judges that residual
 * with a low bar; a residual that is still the leak would be taken for a person.
 */

/** One frame of a canceller's residual, at the level meter's frames. */
export interface CancelledFrame {
  /** Peak |residual| over the frame, 0..1, when the canceller is trusted; null when it is not. */
  residual: number | null;
  /**
   * Whether the frame's residual, while trusted, is mostly the canceller's own misfit of the leak,
   * not a person; false while it is not trusted, and from a canceller that cannot tell. The gate
   * hears such a frame as a dip rather than as a sound.
   */
  echoLeft: boolean;
  /** The audio-clock sample frame just after the frame's last sample. */
  endSample: number;
}

/** An echo canceller run by the level meter worklet on the audio thread. */
export interface Canceller {
  /** The level meter's frame, in input samples: each emitted frame spans this many. */
  readonly frameSamples: number;
  /** Whether the residual is trusted now. */
  readonly trusted: boolean;
  /** The leak removed, in dB, over the output's recent audio (0 before any). */
  readonly enhancementDb: number;
  /**
   * Hears one block: `mic` and `ref` are the microphone's and the output's first channels (either
   * may be missing: silence), `blockLength` samples whose first is `firstSample` on the audio clock.
   * Calls `emit` for each frame of `frameSamples` the block completes, in order, at the same samples
   * as the level meter's own frames (the stream's first sample starts the first frame).
   */
  push(mic: Float32Array | undefined, ref: Float32Array | undefined, blockLength: number, firstSample: number, emit: (frame: CancelledFrame) => void): void;
}
