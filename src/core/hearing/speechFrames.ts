/**
 * The microphone brought to what the voice activity model hears: 16 kHz, in frames of 512 samples
 * (`SPEECH_RATE_HZ`, `SPEECH_FRAME_SAMPLES`), each with the audio-clock sample at which it ended.
 * Run by the level meter worklet on the audio thread, apart from it so it can be tested in Node.
 *
 * Each output sample is the mean of the input it spans (`BoxDecimator`): a box filter ahead of the
 * decimation, enough to keep the speech band for a voice activity model, at any input rate (48 kHz
 * and 44.1 kHz alike).
 */
import { checkOption } from '../../../common/options';
import { SPEECH_FRAME_SAMPLES, SPEECH_RATE_HZ } from '../../../common/voiceActivity';

/** One frame as the worklet posts it to the voice activity worker. */
export interface SpeechFrameMessage {
  /** `SPEECH_FRAME_SAMPLES` samples at `SPEECH_RATE_HZ`. */
  samples: Float32Array;
  /** The audio-clock sample frame just after the input sample that completed it (the context's `currentFrame` scale). */
  endSample: number;
}

/**
 * Brings a signal at `inputRateHz` (at least `SPEECH_RATE_HZ`) to `SPEECH_RATE_HZ`, a sample at a
 * time: each output sample is the mean of the input it spans, an input sample at either edge weighed
 * by how much of it falls inside. The echo canceller puts a low-pass ahead of it; the voice activity
 * model takes it as it is.
 */
export class BoxDecimator {
  /** Input samples per output sample. */
  readonly #step: number;
  /** The weighed sum of the output sample being made, and how much input it still needs. */
  #sum = 0;
  #needed: number;

  constructor(inputRateHz: number) {
    this.#step = inputRateHz / SPEECH_RATE_HZ;
    this.#needed = this.#step;
  }

  /** Hears one input sample; returns the output sample it completes, or null. At most one: an output spans at least one input sample. */
  push(sample: number): number | null {
    const take = Math.min(1, this.#needed);
    this.#sum += sample * take;
    this.#needed -= take;
    if (this.#needed > 1e-9) return null;
    const out = this.#sum / this.#step;
    // What is left of this input sample begins the next output.
    this.#sum = sample * (1 - take);
    this.#needed += this.#step - (1 - take);
    return out;
  }
}

export class SpeechFramer {
  readonly #decimator: BoxDecimator;
  #frame = new Float32Array(SPEECH_FRAME_SAMPLES);
  #filled = 0;

  constructor(inputRateHz: number) {
    checkOption('speechFramer.inputRateHz', inputRateHz, { min: SPEECH_RATE_HZ });
    this.#decimator = new BoxDecimator(inputRateHz);
  }

  /**
   * Hears one block of `blockLength` samples (the first channel of `channels`; none is silence)
   * whose first sample is `firstSample` on the audio clock. Calls `emit` for each frame the block
   * completes, in order, with a buffer of its own (the receiver may keep or transfer it).
   */
  push(channels: readonly Float32Array[], blockLength: number, firstSample: number, emit: (message: SpeechFrameMessage) => void): void {
    const channel = channels[0];
    for (let i = 0; i < blockLength; i++) {
      const out = this.#decimator.push(channel?.[i] ?? 0);
      if (out === null) continue;
      this.#frame[this.#filled++] = out;
      if (this.#filled === SPEECH_FRAME_SAMPLES) {
        emit({ samples: this.#frame, endSample: firstSample + i + 1 });
        this.#frame = new Float32Array(SPEECH_FRAME_SAMPLES);
        this.#filled = 0;
      }
    }
  }
}
