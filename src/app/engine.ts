/**
 * The on-device voice engine (Supertonic in a worker) as the page uses it: started once, with the
 * download's progress reported, and wrapped for the device speaker so that a piece waits for the
 * model to be ready — the first download can take minutes.
 */
import type { LoadProgress, PageConfig, TtsApi } from '../../common/voice/api';
import { loadFailureOf } from '../../common/voice/loadFailure';
import { TtsClient } from '../platform/ttsClient';
import { sayWord } from '../platform/words';

/** The on-device engine: not needed (an endpoint speaks), downloading, ready, or failed. */
export type EngineState =
  | { kind: 'not-needed' }
  | { kind: 'starting' }
  | { kind: 'downloading'; bytesDone: number; bytesTotal: number }
  | { kind: 'ready'; onDevice: 'webgpu' | 'wasm' }
  | { kind: 'failed'; reason: string };

export interface EngineOptions {
  /** Which model to load, and from where (the page config's). */
  model: PageConfig['model'];
  /** The voice to load first: the one the device will speak in. */
  voice: () => string;
  /** Each change of the engine's state, until it is disposed. */
  onState: (state: EngineState) => void;
  /** Makes the worker client; default the page's `TtsClient`. */
  client?: () => Pick<TtsClient, 'load' | 'speak' | 'cancel' | 'dispose'>;
}

export interface DeviceEngine {
  /**
   * Starts (once) downloading or reading the model from the cache; rejects with a sentence. A load
   * that failed stays failed (each piece asked for is refused with that sentence, and it is said
   * once) until `retry`.
   */
  start(): Promise<unknown>;
  /**
   * Loads again after a failure, in a fresh worker (the person pressed "Try again": the model hub
   * may be back, the connection restored); a load under way or done is left as it is.
   */
  retry(): Promise<unknown>;
  /**
   * The engine as the device speaker uses it: a piece starts the engine and waits for it, so a bot
   * whose site voice speaks starts it only when that voice has failed — a working endpoint never
   * costs the page the model.
   */
  readonly tts: Pick<TtsApi, 'speak' | 'cancel'>;
  dispose(): void;
}

/**
 * Why the voice could not start, for a person: a sentence in their language chosen by the failure's
 * kind. The error itself — a host, a status, a file — goes to the console, for whoever debugs it.
 */
export function couldNotStart(error: unknown): string {
  console.warn('The on-device voice could not start:', error);
  return sayWord(`page-voice.could-not-start-${loadFailureOf(error)}`);
}

export function deviceEngine(options: EngineOptions): DeviceEngine {
  let client: Pick<TtsClient, 'load' | 'speak' | 'cancel' | 'dispose'> | null = null;
  let load: Promise<unknown> | null = null;
  let failed = false;
  let disposed = false;
  const report = (state: EngineState) => {
    if (!disposed) options.onState(state);
  };

  function start(): Promise<unknown> {
    if (load !== null) return load;
    const tts = (client ??= (options.client ?? (() => new TtsClient()))());
    const { model } = options;
    report({ kind: 'starting' });
    load = tts
      .load({ version: model.version, base: model.base, voices: [options.voice()], preferWebGpu: true }, (progress: LoadProgress) => {
        report({ kind: 'downloading', bytesDone: progress.bytesDone, bytesTotal: progress.bytesTotal });
      })
      .then((loaded) => {
        report({ kind: 'ready', onDevice: loaded.executionProvider });
      })
      .catch((error: unknown) => {
        failed = true;
        const reason = couldNotStart(error);
        report({ kind: 'failed', reason });
        throw new Error(reason, { cause: error });
      });
    load.catch(() => undefined);
    return load;
  }

  function retry(): Promise<unknown> {
    if (!failed || disposed) return start();
    failed = false;
    load = null;
    const broken = client;
    client = null;
    void broken?.dispose().catch(() => undefined);
    return start();
  }

  return {
    start,
    retry,
    tts: {
      async speak(request) {
        await start();
        return (client as NonNullable<typeof client>).speak(request);
      },
      cancel: (utteranceId) => client?.cancel(utteranceId) ?? Promise.resolve(),
    },
    dispose() {
      disposed = true;
      void client?.dispose();
    },
  };
}
