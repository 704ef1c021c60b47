/**
 * Silero VAD v5 (the graph `@ricky0123/vad-web` ships, `silero_vad_v5.onnx`) over 16 kHz audio:
 * how likely each 512-sample frame (32 ms) is speech, 0..1. The model keeps a state between frames
 * and sees the last 64 samples of the frame before, so an onset straddling two frames is seen whole.
 *
 * onnxruntime-web is injected, as for the voice (`supertonic.ts`), so the same code runs in a worker
 * and under vitest in Node. What the probabilities mean for a turn is decided in core
 * (`voiceActivity.ts`, then `yielding.ts`), never here.
 */
import type * as Ort from 'onnxruntime-web';
import { SPEECH_FRAME_SAMPLES, SPEECH_RATE_HZ } from '../common/voiceActivity';
/** Samples of the previous frame the model is shown with each one. */
const CONTEXT_SAMPLES = 64;
/** The shape of the recurrent state v5 carries between frames. */
const STATE_SHAPE = [2, 1, 128] as const;

export interface Silero {
  /** How likely one frame of `SPEECH_FRAME_SAMPLES` samples at 16 kHz is speech, 0..1. */
  speechIn(frame: Float32Array): Promise<number>;
  /** Forgets what it heard: the next frame is heard as the first. */
  reset(): void;
  release(): Promise<void>;
}

/** The graph's inputs and outputs do not match Silero v5's. */
export class SileroContractError extends Error {
  override readonly name = 'SileroContractError';
}

/** Opens Silero v5 from its graph's bytes. Throws `SileroContractError` for another graph. */
export async function openSilero(ort: typeof Ort, graph: Uint8Array): Promise<Silero> {
  const session = await ort.InferenceSession.create(graph);
  for (const name of ['input', 'state', 'sr']) {
    if (!session.inputNames.includes(name)) throw new SileroContractError(`The voice activity graph has no input "${name}": it is not Silero VAD v5.`);
  }
  for (const name of ['output', 'stateN']) {
    if (!session.outputNames.includes(name)) throw new SileroContractError(`The voice activity graph has no output "${name}": it is not Silero VAD v5.`);
  }
  const rate = new ort.Tensor('int64', BigInt64Array.from([BigInt(SPEECH_RATE_HZ)]), []);
  const fresh = () => new ort.Tensor('float32', new Float32Array(STATE_SHAPE[0] * STATE_SHAPE[1] * STATE_SHAPE[2]), [...STATE_SHAPE]);
  let state: Ort.Tensor = fresh();
  let context = new Float32Array(CONTEXT_SAMPLES);
  return {
    async speechIn(frame) {
      if (frame.length !== SPEECH_FRAME_SAMPLES) throw new RangeError(`Silero hears ${String(SPEECH_FRAME_SAMPLES)} samples at a time, not ${String(frame.length)}.`);
      const input = new Float32Array(CONTEXT_SAMPLES + frame.length);
      input.set(context, 0);
      input.set(frame, CONTEXT_SAMPLES);
      // A copy: a caller may reuse its frame's buffer before the next frame.
      context = frame.slice(-CONTEXT_SAMPLES);
      const out = await session.run({ input: new ort.Tensor('float32', input, [1, input.length]), state, sr: rate });
      const next = out.stateN;
      const speech = out.output?.data[0];
      if (next === undefined || typeof speech !== 'number') throw new SileroContractError('The voice activity graph answered without a probability and a state.');
      state = next;
      return speech;
    },
    reset() {
      state = fresh();
      context = new Float32Array(CONTEXT_SAMPLES);
    },
    release: () => session.release(),
  };
}
