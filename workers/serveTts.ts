/**
 * The on-device voice's worker, served: onnxruntime-web (the WebGPU build where the browser has
 * WebGPU, else the WASM build), weights from Cache Storage or the network, exposed with comlink.
 * Each piece's PCM is transferred to the page, not copied. `tts.worker.ts` serves it as it is; a
 * browser test's worker serves it with a cost laid on the runtime, to play a slower device.
 */
import * as Comlink from 'comlink';
import manifestJson from '../models/manifest.json';
import type { LoadRequest, SpeakRequest, TtsApi } from '../common/voice/api';
import { VoiceLoadError } from '../common/voice/loadFailure';
import { parseManifest } from '../common/voice/manifest';
import { fetchLoad, fetchVoiceFile } from './modelFiles';
import { createTtsService, NotLoadedError } from './ttsService';
import type { EngineOptions } from './supertonic';
import { MODEL_CACHE_NAME } from './weights';
import { whyLoadFailed } from './whyLoadFailed';

type OrtModule = EngineOptions['ort'];

export interface ServeOptions {
  /** Wraps the runtime before the engine is given it; default: the runtime as it is. */
  adaptOrt?: (ort: OrtModule) => OrtModule;
}

const manifest = parseManifest(manifestJson);
const hasWebGpu = 'gpu' in navigator;

async function onnxRuntime(preferWebGpu: boolean): Promise<OrtModule> {
  const ort: EngineOptions['ort'] =
    preferWebGpu && hasWebGpu ? await import('onnxruntime-web/webgpu') : await import('onnxruntime-web/wasm');
  // Threads need SharedArrayBuffer, which only a cross-origin isolated page has.
  ort.env.wasm.numThreads = self.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency) : 1;
  return ort;
}

function warnings(warning: { kind: string; path: string }): void {
  console.warn(`Voice model file ${warning.path}: ${warning.kind}.`);
}

/** Serves the voice from this worker: exposes `TtsApi` with comlink. Call once, at the worker's start. */
export function serveTts(options: ServeOptions = {}): void {
  const adapt = options.adaptOrt ?? ((ort: OrtModule) => ort);
  let service: TtsApi | null = null;
  let loading: Promise<TtsApi> | null = null;

  async function serviceFor(request: LoadRequest): Promise<TtsApi> {
    // A runtime that could not be had (its WebAssembly did not download) is asked for again on the
    // next load, never kept as a failure for the worker's life.
    loading ??= onnxRuntime(request.preferWebGpu).then((ort) => {
      const cache = caches.open(MODEL_CACHE_NAME);
      return createTtsService({
        ort: adapt(ort),
        hasWebGpu,
        fetchFiles: async (load, onProgress) => fetchLoad(manifest, load, onProgress, { cache: await cache, onWarning: warnings }),
        fetchVoice: async (load, voice) => fetchVoiceFile(manifest, load, voice, { cache: await cache, onWarning: warnings }),
        onFallback: (reason) => {
          console.warn(`Voice engine fell back to WASM: ${reason}`);
        },
      });
    });
    try {
      service = await loading;
    } catch (error) {
      loading = null;
      throw error;
    }
    return service;
  }

  function loaded(): TtsApi {
    if (!service) throw new NotLoadedError();
    return service;
  }

  const api: TtsApi = {
    async load(request, onProgress) {
      try {
        return await (await serviceFor(request)).load(request, onProgress);
      } catch (error) {
        // The detail is for whoever debugs the page; the page tells the person its kind, in their words.
        console.warn('The on-device voice could not load:', error);
        throw new VoiceLoadError(whyLoadFailed(error), { cause: error });
      }
    },
    voices: () => loaded().voices(),
    languages: () => loaded().languages(),
    async speak(request: SpeakRequest) {
      const piece = await loaded().speak(request);
      return piece ? Comlink.transfer(piece, [piece.samples.buffer]) : null;
    },
    cancel: (utteranceId) => (service ? service.cancel(utteranceId) : Promise.resolve()),
    dispose: () => (service ? service.dispose() : Promise.resolve()),
  };

  Comlink.expose(api);
}
