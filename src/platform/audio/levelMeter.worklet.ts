/**
 * The microphone level meter, run on the audio rendering thread (AudioWorkletGlobalScope): it
 * hears every sample of the capture as it arrives and posts one frame (peak |sample|, end sample on
 * the audio clock) per `frameSamples`. On the audio thread nothing is missed or coalesced the way
 * an analyser polled from the page on animation frames misses and coalesces; and the frame's time
 * is the sample clock's, not the moment the page happened to look.
 *
 * Loaded by microphone.ts with `audioWorklet.addModule`; Vite bundles it (with its one import) as a
 * module of its own in dev and in the build.
 */
import { LEVEL_METER_PROCESSOR, PeakFramer } from './peakFrames';
import type { LevelMeterMessage, LevelMeterOptions } from './peakFrames';

// The AudioWorkletGlobalScope's names: TypeScript ships no lib for this scope, and the DOM lib
// this folder compiles with has only the page side (AudioWorkletNode).
declare const currentFrame: number;
declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: AudioWorkletNodeOptions);
}
declare function registerProcessor(
  name: string,
  processor: new (options: AudioWorkletNodeOptions) => AudioWorkletProcessor,
): void;

/** Posts each frame's peak to the page; it outputs nothing and keeps running until disconnected. */
class LevelMeter extends AudioWorkletProcessor {
  readonly #framer: PeakFramer;

  constructor(options: AudioWorkletNodeOptions) {
    super(options);
    const { frameSamples } = options.processorOptions as LevelMeterOptions;
    this.#framer = new PeakFramer(frameSamples);
  }

  process(inputs: Float32Array[][]): boolean {
    const channels = inputs[0] ?? [];
    // A render quantum is 128 samples; an input with no channels (nothing arriving yet) is silence.
    const blockLength = channels[0]?.length ?? 128;
    this.#framer.push(channels, blockLength, currentFrame, (message: LevelMeterMessage) => {
      this.port.postMessage(message);
    });
    return true;
  }
}

registerProcessor(LEVEL_METER_PROCESSOR, LevelMeter);
