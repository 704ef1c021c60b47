/**
 * Speech or not, from a voice activity model's per-frame probabilities, with hysteresis: speech
 * begins when a frame is over `onAt`, and ends only after `hangFrames` frames in a row under
 * `offAt`, so the short dips between syllables do not end it. What it says feeds `yielding.ts`.
 *
 * Pure: the state is plain data and each frame carries its own time.
 */

/** The rate the voice activity model (Silero VAD v5) hears at. */
export const SPEECH_RATE_HZ = 16_000;
/** Samples it takes at a time at that rate: 32 ms. */
export const SPEECH_FRAME_SAMPLES = 512;

/**
 * What the page asks of the voice activity worker: hear, with the graph at `graphUrl`, the frames
 * arriving on the port transferred with the message (the one the level meter worklet sends the
 * microphone's 16 kHz frames to).
 */
export interface VoiceActivityRequest {
  graphUrl: string;
}

/** What the voice activity worker tells the page. */
export type VoiceActivityReply =
  | { kind: 'ready' }
  /** One frame heard: how likely it is speech, 0..1, and the audio-clock sample just after it. */
  | { kind: 'frame'; endSample: number; probability: number }
  | { kind: 'failed'; reason: string };

/** The page's figures are `HEARING.voiceActivity` (src/core/hearing/tuning.ts). */
export interface VoiceActivityOptions {
  /** A frame this likely to be speech begins speech. */
  onAt: number;
  /** Frames under this count towards speech ending. */
  offAt: number;
  /** How many frames in a row under `offAt` end speech. */
  hangFrames: number;
}

export interface VoiceActivityState {
  speech: boolean;
  /** Frames in a row under `offAt` while speech goes on. */
  quietFrames: number;
}

export const NO_SPEECH: VoiceActivityState = Object.freeze({ speech: false, quietFrames: 0 });

/** The state after one frame whose probability of speech is `probability`. */
export function hearActivity(state: VoiceActivityState, probability: number, options: VoiceActivityOptions): VoiceActivityState {
  if (!state.speech) return probability >= options.onAt ? { speech: true, quietFrames: 0 } : state;
  if (probability >= options.offAt) return state.quietFrames === 0 ? state : { speech: true, quietFrames: 0 };
  const quietFrames = state.quietFrames + 1;
  return quietFrames >= options.hangFrames ? NO_SPEECH : { speech: true, quietFrames };
}
