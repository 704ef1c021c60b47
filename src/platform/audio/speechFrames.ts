/**
 * The microphone brought to what the voice activity model hears: 16 kHz, in frames of 512 samples
 * (`SPEECH_RATE_HZ`, `SPEECH_FRAME_SAMPLES`), each with the audio-clock sample at which it ended.
 * Run by the level meter worklet on the audio thread, apart from it so it can be tested in Node.
 *
 * Each output sample is the mean of the input it spans (the part of a sample at either edge
 * weighed by how much of it falls inside): a box filter ahead of the decimation, enough to keep
 * the speech band for a voice activity model, at any input rate (48 kHz and 44.1 kHz alike).
 */
import { SPEECH_FRAME_SAMPLES, SPEECH_RATE_HZ } from '../../core/speech/voiceActivity';

/** One frame as the worklet posts it to the voice activity worker. */
export interface SpeechFrameMessage {
  /** `SPEECH_FRAME_SAMPLES` samples at `SPEECH_RATE_HZ`. */
  samples: Float32Array;
  /** The audio-clock sample frame just after the input sample that completed it (the context's `currentFrame` scale). */
  endSample: number;
}

export class SpeechFramer {
  /** Input samples per output sample. */
  readonly #step: number;
  #frame = new Float32Array(SPEECH_FRAME_SAMPLES);
  #filled = 0;
  /** The weighed sum of the output sample being made, and how much input it still needs. */
  #sum = 0;
  #needed: number;

  constructor(inputRateHz: number) {
    if (!Number.isFinite(inputRateHz) || inputRateHz < SPEECH_RATE_HZ) {
      throw new RangeError(`the microphone's rate is ${String(inputRateHz)} Hz; voice activity needs at least ${String(SPEECH_RATE_HZ)} Hz.`);
    }
    this.#step = inputRateHz / SPEECH_RATE_HZ;
    this.#needed = this.#step;
  }

  /**
   * Hears one block of `blockLength` samples (the first channel of `channels`; none is silence)
   * whose first sample is `firstSample` on the audio clock. Calls `emit` for each frame the block
   * completes, in order, with a buffer of its own (the receiver may keep or transfer it).
   */
  push(channels: readonly Float32Array[], blockLength: number, firstSample: number, emit: (message: SpeechFrameMessage) => void): void {
    const channel = channels[0];
    for (let i = 0; i < blockLength; i++) {
      const sample = channel?.[i] ?? 0;
      let left = 1;
      while (left > 0) {
        const take = Math.min(left, this.#needed);
        this.#sum += sample * take;
        this.#needed -= take;
        left -= take;
        if (this.#needed > 1e-9) continue;
        this.#frame[this.#filled++] = this.#sum / this.#step;
        this.#sum = 0;
        this.#needed += this.#step;
        if (this.#filled === SPEECH_FRAME_SAMPLES) {
          emit({ samples: this.#frame, endSample: firstSample + i + 1 });
          this.#frame = new Float32Array(SPEECH_FRAME_SAMPLES);
          this.#filled = 0;
        }
      }
    }
  }
}
