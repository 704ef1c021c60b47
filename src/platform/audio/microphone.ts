/**
 * The page's own microphone, used for levels only: never recorded, never sent. The echo gate hears
 * barge-in from it, because the browser's recogniser opens a capture of its own that the page's
 * echo cancellation does not touch; this stream is the one that gets `echoCancellation`.
 *
 * The level of each frame (about 10 ms) is measured on the audio thread by the level meter
 * worklet (levelMeter.worklet.ts) and arrives here with its time on the AudioContext's clock, in
 * milliseconds, so it shares a clock with the player's schedule.
 */
import meterUrl from './levelMeter.worklet.ts?worker&url';
import { frameSamplesFor, LEVEL_METER_PROCESSOR } from './peakFrames';
import type { LevelMeterMessage, LevelMeterOptions, SpeechPortMessage } from './peakFrames';
import { sayWord } from '../words';
import { resolveOptions } from '../../../common/options';
import type { Limits } from '../../../common/options';

/** How the microphone is opened and metered. */
export interface MicrophoneOptions {
  /**
   * Ask the browser to cancel the page's own output from the capture. What makes barge-in on
   * speakers possible at all; tests with a fake capture device turn it off, as there is no real
   * loop for it to cancel. Default true.
   */
  echoCancellation: boolean;
  /**
   * The browser's automatic gain control. Default true, the browser's own default, under which the
   * echo gate's floor was measured; tests turn it off, because it raises a quiet fake signal about
   * eightfold and re-levels every scenario.
   */
  autoGainControl: boolean;
  /** The browser's noise suppression. Default true, the browser's own default; tests turn it off. */
  noiseSuppression: boolean;
  /** The length of one level frame, in milliseconds. Default 10. */
  frameMs: number;
}

/** The defaults, each explained on its field in `MicrophoneOptions`. */
export const MICROPHONE: Readonly<MicrophoneOptions> = Object.freeze({
  echoCancellation: true,
  autoGainControl: true,
  noiseSuppression: true,
  frameMs: 10,
});

/** One frame of microphone level. */
export interface LevelFrame {
  /** Peak |sample| over the frame, 0..1 (1 when the capture clips). */
  readonly level: number;
  /** When the frame's last sample was captured, in milliseconds on the AudioContext's clock. */
  readonly atMs: number;
  /**
   * The assistant's own output level over the same samples, 0..1, when the meter was given the
   * player's output as its reference.
   */
  readonly assistantLevel?: number;
  /**
   * The microphone's level over the same samples with the assistant's output cancelled from it,
   * 0..1, while the level meter's echo canceller is trusted (echoCanceller.ts); absent otherwise.
   */
  readonly cancelledLevel?: number;
  /** Whether the cancelled level is the echo canceller's own misfit of the leak, not anything new (`CancelledFrame.echoLeft`). */
  readonly echoLeft?: boolean;
}

/** Anything that hands out level frames in time order. */
export interface LevelSource {
  /** Calls `listener` with every frame from now on; the returned function stops that. */
  onFrame(listener: (frame: LevelFrame) => void): () => void;
}

/** An open microphone, metered. */
export interface MicrophoneLevel extends LevelSource {
  /** What the browser actually granted (whether echo cancellation is really on, the device's rate). */
  readonly settings: MediaTrackSettings;
  /** Calls `listener` once if the capture ends by itself (unplugged, permission revoked). */
  onEnded(listener: () => void): () => void;
  /**
   * Sends the capture on to `port` from the audio thread, at 16 kHz in the voice activity model's
   * frames (speechFrames.ts), until stopped; a later port replaces it. The port is transferred.
   */
  sendSpeechTo(port: MessagePort): void;
  /** Stops metering and releases the device (its tracks stop, so the browser's indicator goes off). Idempotent. */
  stop(): void;
}

/**
 * Why the microphone could not be opened:
 * - `refused`: the person or the browser said no (NotAllowedError, SecurityError);
 * - `missing`: there is no capture device that fits (NotFoundError, OverconstrainedError);
 * - `unavailable`: there is one but it could not be opened (in use elsewhere, a driver fault), or
 *   the level meter could not be loaded;
 * - `unsupported`: this browser or context has no capture or no AudioWorklet (an insecure page).
 */
export type MicrophoneProblem = 'refused' | 'missing' | 'unavailable' | 'unsupported';

/** The microphone could not be opened; `problem` says why, the message says what a person can do. */
export class MicrophoneError extends Error {
  override readonly name = 'MicrophoneError';

  constructor(
    readonly problem: MicrophoneProblem,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const PROBLEM_BY_NAME: Readonly<Record<string, MicrophoneProblem>> = {
  NotAllowedError: 'refused',
  SecurityError: 'refused',
  NotFoundError: 'missing',
  OverconstrainedError: 'missing',
  NotReadableError: 'unavailable',
  AbortError: 'unavailable',
};

/** The person's sentence for `problem`, in their language. */
const sentenceFor = (problem: MicrophoneProblem): string => sayWord(`page-hearing.mic-${problem}`);

/** Reads what `getUserMedia` (or loading the meter) threw as a `MicrophoneError`, keeping it as the cause. */
export function microphoneErrorFrom(error: unknown): MicrophoneError {
  if (error instanceof MicrophoneError) return error;
  const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  const problem = PROBLEM_BY_NAME[name] ?? 'unavailable';
  return new MicrophoneError(problem, sentenceFor(problem), { cause: error });
}

const LIMITS: Limits<MicrophoneOptions> = { frameMs: { min: 1, max: 100 } };

/** Merges partial options over `MICROPHONE`; throws `OptionError` naming a bad frame length (`microphone.frameMs`). */
export function resolveMicrophone(partial: Partial<MicrophoneOptions> = {}): MicrophoneOptions {
  return resolveOptions('microphone', MICROPHONE, partial, LIMITS);
}

/** The meter module is loaded once per context; a second microphone reuses it. */
const meterLoaded = new WeakMap<BaseAudioContext, Promise<void>>();

function loadMeter(context: BaseAudioContext): Promise<void> {
  let loading = meterLoaded.get(context);
  if (loading === undefined) {
    loading = context.audioWorklet.addModule(meterUrl).catch((cause: unknown) => {
      meterLoaded.delete(context);
      throw new MicrophoneError('unavailable', sayWord('page-hearing.mic-meter'), { cause });
    });
    meterLoaded.set(context, loading);
  }
  return loading;
}

/** Where the browser's capture comes from; `navigator.mediaDevices` unless a test supplies one. */
export type MediaDevicesLike = Pick<MediaDevices, 'getUserMedia'>;

/** The page's capture devices, or undefined where there are none to ask (an http page, no browser), whatever the DOM types say. */
function pageMediaDevices(): MediaDevicesLike | undefined {
  const navigator = globalThis.navigator as Navigator | undefined;
  return navigator?.mediaDevices;
}

/**
 * Opens the microphone with `options` and meters it on `context` (which must be running for
 * frames to flow). Rejects with a `MicrophoneError` when it cannot.
 *
 * The capture starts at the `getUserMedia` call; the meter is loaded first, so the first frames
 * are not lost to loading it.
 */
export async function openMicrophoneLevel(
  context: AudioContext,
  partial: Partial<MicrophoneOptions> = {},
  devices: MediaDevicesLike | undefined = pageMediaDevices(),
  /** The assistant's output (the player's `output`), metered beside the microphone in the same frames. */
  reference?: AudioNode,
): Promise<MicrophoneLevel> {
  const options = resolveMicrophone(partial);
  if (devices === undefined || typeof AudioWorkletNode === 'undefined') {
    throw new MicrophoneError('unsupported', sentenceFor('unsupported'));
  }
  await loadMeter(context);
  let stream: MediaStream;
  try {
    stream = await devices.getUserMedia({
      audio: {
        echoCancellation: options.echoCancellation,
        autoGainControl: options.autoGainControl,
        noiseSuppression: options.noiseSuppression,
      },
      video: false,
    });
  } catch (error) {
    throw microphoneErrorFrom(error);
  }
  return meter(context, stream, options.frameMs, reference);
}

function meter(context: AudioContext, stream: MediaStream, frameMs: number, reference: AudioNode | undefined): MicrophoneLevel {
  const tracks = stream.getAudioTracks();
  const track = tracks[0];
  if (track === undefined) {
    for (const t of stream.getTracks()) t.stop();
    throw new MicrophoneError('missing', sentenceFor('missing'));
  }
  const processorOptions: LevelMeterOptions = { frameSamples: frameSamplesFor(context.sampleRate, frameMs) };
  const source = context.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(context, LEVEL_METER_PROCESSOR, {
    numberOfInputs: reference === undefined ? 1 : 2,
    numberOfOutputs: 0,
    channelCount: 1,
    channelCountMode: 'explicit',
    processorOptions,
  });
  source.connect(node);
  reference?.connect(node, 0, 1);

  const frameListeners = new Set<(frame: LevelFrame) => void>();
  const endedListeners = new Set<() => void>();
  const msPerSample = 1000 / context.sampleRate;
  let stopped = false;

  node.port.onmessage = (event: MessageEvent<LevelMeterMessage>) => {
    const { peak, endSample, reference: output, residual, echoLeft } = event.data;
    const atMs = endSample * msPerSample;
    const frame: LevelFrame =
      output === undefined
        ? { level: peak, atMs }
        : residual === undefined
          ? { level: peak, atMs, assistantLevel: output }
          : { level: peak, atMs, assistantLevel: output, cancelledLevel: residual, ...(echoLeft === true ? { echoLeft } : {}) };
    for (const listener of frameListeners) listener(frame);
  };
  const ended = () => {
    if (stopped) return;
    for (const listener of endedListeners) listener();
    endedListeners.clear();
  };
  track.addEventListener('ended', ended);

  return {
    settings: track.getSettings(),
    onFrame(listener) {
      frameListeners.add(listener);
      return () => frameListeners.delete(listener);
    },
    onEnded(listener) {
      endedListeners.add(listener);
      return () => endedListeners.delete(listener);
    },
    sendSpeechTo(port) {
      if (stopped) return;
      const message: SpeechPortMessage = { speech: port };
      node.port.postMessage(message, [port]);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      track.removeEventListener('ended', ended);
      node.port.onmessage = null;
      node.port.close();
      source.disconnect();
      if (reference !== undefined) {
        try {
          reference.disconnect(node);
        } catch {
          // Already disconnected (the player was disposed first).
        }
      }
      node.disconnect();
      for (const t of stream.getTracks()) t.stop();
      frameListeners.clear();
      endedListeners.clear();
    },
  };
}
