/**
 * The level meter's arithmetic, apart from the AudioWorklet that runs it so it can be tested in
 * Node: cut the microphone's samples into frames of a fixed length and report each frame's peak
 * |sample| with the audio-clock sample at which it ended.
 *
 * Loudness is the envelope of the waveform — how far it swings from centre now — and not a mean
 * over the spectrum: speech puts nearly all its energy low, so a mean across every bin divides it by
 * the silent rest and reads as a small, flat figure that does not follow the syllables.
 */
import { checkOption } from '../../../common/options';

/** The name the level meter is registered under in the AudioWorklet scope. */
export const LEVEL_METER_PROCESSOR = 'confab-level-meter';

/** What the worklet is constructed with (`processorOptions`). */
export interface LevelMeterOptions {
  /** Samples per frame at the context's rate (10 ms is 480 at 48 kHz). */
  frameSamples: number;
}

/** What the page may post to the worklet: a port to send the microphone to at 16 kHz (speechFrames.ts). */
export interface SpeechPortMessage {
  speech: MessagePort;
}

/** One frame as the worklet posts it to the page. */
export interface LevelMeterMessage {
  /** Peak |sample| over the frame, across channels, 0..1 (a clipping capture may exceed 1). */
  peak: number;
  /** The audio-clock sample frame just after the frame's last sample (the context's `currentFrame` scale). */
  endSample: number;
  /**
   * Peak |sample| of the second input (the assistant's own output) over the very same samples, when
   * one is connected: the echo gate's reference, aligned to the microphone sample for sample.
   */
  reference?: number;
  /**
   * Peak |sample| over the same samples of the microphone with the assistant's output cancelled
   * from it (echoCanceller.ts, at 16 kHz), while the canceller is trusted; absent when it is not.
   */
  residual?: number;
  /** Present, true, when the residual is the canceller's own misfit of the leak (`CancelledFrame.echoLeft`). */
  echoLeft?: true;
}

/**
 * Samples per frame for a frame of about `frameMs` at `sampleRateHz`, at least one. Throws
 * `OptionError` naming the bad value.
 */
export function frameSamplesFor(sampleRateHz: number, frameMs: number): number {
  checkOption('levelMeter.sampleRateHz', sampleRateHz, { over: 0 });
  checkOption('levelMeter.frameMs', frameMs, { over: 0, max: 1000 });
  return Math.max(1, Math.round((sampleRateHz * frameMs) / 1000));
}

/** The largest |sample| at indices `from` (inclusive) to `to` (exclusive) of any channel; 0 when there are none. */
export function peakOf(channels: readonly Float32Array[], from: number, to: number): number {
  let peak = 0;
  for (const channel of channels) {
    const end = Math.min(to, channel.length);
    for (let i = from; i < end; i++) {
      const magnitude = Math.abs(channel[i] ?? 0);
      if (magnitude > peak) peak = magnitude;
    }
  }
  return peak;
}

/**
 * Cuts blocks of samples (a render quantum at a time, or any length) into frames of
 * `frameSamples`, carrying a part-filled frame from one block to the next.
 */
export class PeakFramer {
  readonly frameSamples: number;
  #peak = 0;
  #filled = 0;

  constructor(frameSamples: number) {
    this.frameSamples = checkOption('levelMeter.frameSamples', frameSamples, { min: 1, whole: true });
  }

  /**
   * Hears one block of `blockLength` samples whose first sample is `firstSample` on the audio
   * clock. `channels` may be empty (nothing connected yet), which reads as silence: time passes
   * all the same. Calls `emit` once for each frame the block completes, in order.
   */
  push(channels: readonly Float32Array[], blockLength: number, firstSample: number, emit: (message: LevelMeterMessage) => void): void {
    let at = 0;
    while (at < blockLength) {
      const take = Math.min(blockLength - at, this.frameSamples - this.#filled);
      this.#peak = Math.max(this.#peak, peakOf(channels, at, at + take));
      this.#filled += take;
      at += take;
      if (this.#filled === this.frameSamples) {
        emit({ peak: this.#peak, endSample: firstSample + at });
        this.#peak = 0;
        this.#filled = 0;
      }
    }
  }
}
