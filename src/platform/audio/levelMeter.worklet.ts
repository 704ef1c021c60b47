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
import { EchoCanceller } from '../../core/hearing/echoCanceller';
import type { CancelledFrame, Canceller } from '../../core/hearing/canceller';
import { LEVEL_METER_PROCESSOR, PeakFramer } from './peakFrames';
import type { LevelMeterMessage, LevelMeterOptions, SpeechPortMessage } from './peakFrames';
import { SpeechFramer } from '../../core/hearing/speechFrames';
import type { SpeechFrameMessage } from '../../core/hearing/speechFrames';

// The AudioWorkletGlobalScope's names: TypeScript ships no lib for this scope, and the DOM lib
// this folder compiles with has only the page side (AudioWorkletNode).
declare const currentFrame: number;
declare const sampleRate: number;
declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: AudioWorkletNodeOptions);
}
declare function registerProcessor(
  name: string,
  processor: new (options: AudioWorkletNodeOptions) => AudioWorkletProcessor,
): void;

/**
 * Posts each frame's peak to the page; it outputs nothing and keeps running until disconnected.
 * Its first input is the microphone; a second one, when connected, is the assistant's own output,
 * metered in the same frames so the echo gate compares the two sample for sample, and cancelled
 * from the microphone (echoCanceller.ts): each frame also carries the residual's peak while the
 * canceller is trusted, and whether that residual is the filter's own misfit of the leak. Given a port
 * (`SpeechPortMessage`), it also sends the microphone there at 16 kHz, in the voice activity model's
 * frames, straight to the worker that runs it: the page's thread never touches the samples.
 */
class LevelMeter extends AudioWorkletProcessor {
  readonly #framer: PeakFramer;
  readonly #reference: PeakFramer;
  readonly #references: number[] = [];
  /** The one canceller that ships, the NLMS; AEC3 (test/helpers/aec3/) runs beside it only in `npm run bench -- capture-lag`. */
  readonly #canceller: Canceller;
  readonly #cancelled: CancelledFrame[] = [];
  #speech: { port: MessagePort; framer: SpeechFramer } | null = null;

  constructor(options: AudioWorkletNodeOptions) {
    super(options);
    const { frameSamples } = options.processorOptions as LevelMeterOptions;
    this.#framer = new PeakFramer(frameSamples);
    this.#reference = new PeakFramer(frameSamples);
    this.#canceller = new EchoCanceller(sampleRate, frameSamples);
    this.port.onmessage = (event: MessageEvent<SpeechPortMessage>) => {
      this.#speech?.port.close();
      this.#speech = { port: event.data.speech, framer: new SpeechFramer(sampleRate) };
    };
  }

  process(inputs: Float32Array[][]): boolean {
    const channels = inputs[0] ?? [];
    const reference = inputs[1];
    // A render quantum is 128 samples; an input with no channels (nothing arriving yet) is silence.
    const blockLength = channels[0]?.length ?? 128;
    // The framers and the canceller see the same blocks, so they complete the same frames at the same samples.
    if (reference !== undefined) {
      this.#reference.push(reference, blockLength, currentFrame, (message: LevelMeterMessage) => {
        this.#references.push(message.peak);
      });
      this.#canceller.push(channels[0], reference[0], blockLength, currentFrame, (frame: CancelledFrame) => {
        this.#cancelled.push(frame);
      });
    }
    this.#framer.push(channels, blockLength, currentFrame, (message: LevelMeterMessage) => {
      const peak = this.#references.shift();
      const cancelled = this.#cancelled.shift();
      const residual = cancelled?.residual ?? null;
      if (peak === undefined) this.port.postMessage(message);
      else if (residual === null) this.port.postMessage({ ...message, reference: peak });
      else this.port.postMessage({ ...message, reference: peak, residual, ...(cancelled?.echoLeft === true ? { echoLeft: true } : {}) });
    });
    const speech = this.#speech;
    speech?.framer.push(channels, blockLength, currentFrame, (frame: SpeechFrameMessage) => {
      speech.port.postMessage(frame, [frame.samples.buffer]);
    });
    return true;
  }
}

registerProcessor(LEVEL_METER_PROCESSOR, LevelMeter);
