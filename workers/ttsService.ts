/**
 * The worker's side of `TtsApi`, apart from comlink so it can be tested in Node: one engine, pieces
 * made one at a time in the order asked, cancellation by utterance.
 *
 * Nothing here waits on playback: the next piece is begun the moment the one before it is made. To
 * keep up, the service follows when the current utterance's audio will have played out, as if each
 * piece were played the moment it was made (`playedUntil`), which is never later than the page
 * really plays it; a piece asked with `pacing` that would be ready only after that (and the gap) is
 * made with fewer steps (`stepsInTime`), and the steps it was made with go back in its timing. The
 * cost it weighs is the page's, or its own measurements folded in the same way where those know more
 * (a piece asked ahead carries the cost of before the pieces made since, `fresherCost`), and never
 * quicker than the last piece it made (`slowerOf`): a device that has just slowed down is believed
 * at once where silence is at stake.
 */
import { fresherCost, observeCost, playedUntil, SAFE_COST, slowerOf, stepsInTime } from '../common/speaking/pace';
import type { VoiceCost } from '../common/speaking/pace';
import type { LoadProgress, LoadRequest, LoadResult, SpeakRequest, SpokenPiece, TtsApi } from '../common/voice/api';
import { readVoiceStyle, VOICES } from '../common/voice/style';
import type { VoiceStyle } from '../common/voice/style';
import { languagesOf } from '../common/voice/text';
import type { Language } from '../common/voice/text';
import { Cancelled, SupertonicEngine } from './supertonic';
import type { EngineFiles, EngineOptions, Provider } from './supertonic';

/** What loading fetched: the engine's files, the voices asked for now, and what could not be verified. */
export interface LoadedFiles {
  files: EngineFiles;
  voices: Record<string, unknown>;
  unverified: string[];
}

export interface TtsServiceDeps {
  ort: EngineOptions['ort'];
  /** Whether this browser offers WebGPU at all. */
  hasWebGpu: boolean;
  /** Downloads or reads from cache, verifies, and parses what a load needs. */
  fetchFiles: (request: LoadRequest, onProgress: (progress: LoadProgress) => void) => Promise<LoadedFiles>;
  /** Fetches one more voice file of a loaded version. */
  fetchVoice: (request: LoadRequest, voice: string) => Promise<unknown>;
  random?: () => number;
  onFallback?: (reason: string) => void;
  /** The clock pieces are timed and kept up by (the engine's too), in ms; default `performance.now`. */
  nowMs?: () => number;
}

/** Asked to speak or list before `load` finished. */
export class NotLoadedError extends Error {
  override readonly name = 'NotLoadedError';
  constructor() {
    super('The voice model is not loaded yet; call load() first.');
  }
}

export function createTtsService(deps: TtsServiceDeps): TtsApi {
  let engine: SupertonicEngine | null = null;
  let loaded: LoadRequest | null = null;
  const styles = new Map<string, VoiceStyle>();
  const cancelled = new Set<number>();
  let queue: Promise<unknown> = Promise.resolve();
  const now = deps.nowMs ?? (() => performance.now());
  /** The utterance last made, and when its audio will have played out if played as it was made. */
  let playing: { utteranceId: number; untilMs: number } | null = null;
  /** The device's cost as the pieces made here measured it, from the page's; null before the first. */
  let measured: VoiceCost | null = null;
  /** What the last piece made here cost, alone; null before the first. */
  let lastPiece: VoiceCost | null = null;

  function ready(): { engine: SupertonicEngine; request: LoadRequest } {
    if (!engine || !loaded) throw new NotLoadedError();
    return { engine, request: loaded };
  }

  async function style(request: LoadRequest, voice: string): Promise<VoiceStyle> {
    const known = styles.get(voice);
    if (known) return known;
    if (!(VOICES as readonly string[]).includes(voice)) {
      throw new RangeError(`There is no voice "${voice}"; the voices are ${VOICES.join(', ')}.`);
    }
    const made = readVoiceStyle(await deps.fetchVoice(request, voice), voice);
    styles.set(voice, made);
    return made;
  }

  async function make(request: SpeakRequest): Promise<SpokenPiece | null> {
    const { engine: tts, request: load } = ready();
    if (cancelled.has(request.utteranceId)) return null;
    const voice = await style(load, request.voice);
    const { pacing } = request;
    const cost = pacing ? fresherCost(pacing.cost, measured) : null;
    const planned = cost && lastPiece ? slowerOf(cost, lastPiece) : cost;
    // Only audio of the same utterance plays before this piece for certain; the opening has none.
    const untilMs = request.piece > 0 && playing?.utteranceId === request.utteranceId ? playing.untilMs : null;
    try {
      const audio = await tts.synthesise(
        {
          text: request.text,
          lang: request.lang,
          voice,
          steps: request.steps,
          speed: request.speed,
          ...(pacing && planned
            ? {
                stepsFor: (audioMs: number) =>
                  stepsInTime({
                    wanted: request.steps,
                    floor: pacing.floor,
                    audioMs,
                    nowMs: now(),
                    readyByMs: untilMs === null ? null : untilMs + pacing.gapMs,
                    cost: planned,
                  }),
              }
            : {}),
        },
        () => cancelled.has(request.utteranceId),
      );
      const audioMs = (audio.samples.length / audio.sampleRateHz) * 1000;
      if (audioMs > 0) {
        playing = { utteranceId: request.utteranceId, untilMs: playedUntil(untilMs ?? 0, now(), audioMs, pacing?.gapMs ?? 0) };
      }
      const { samples, sampleRateHz, unknown, steps, prepareMs, stepsMs, vocodeMs } = audio;
      const timing = { chars: request.text.length, audioMs, speed: request.speed, steps, prepareMs, stepsMs, vocodeMs, provider: tts.executionProvider };
      if (cost) measured = observeCost(cost, timing);
      lastPiece = observeCost(SAFE_COST, timing);
      return { utteranceId: request.utteranceId, piece: request.piece, samples, sampleRateHz, unknown, timing };
    } catch (error) {
      if (error instanceof Cancelled) return null;
      throw error;
    }
  }

  return {
    async load(request, onProgress): Promise<LoadResult> {
      const fetched = await deps.fetchFiles(request, onProgress);
      const providers: Provider[] = request.preferWebGpu && deps.hasWebGpu ? ['webgpu', 'wasm'] : ['wasm'];
      const options: EngineOptions = { ort: deps.ort, providers };
      if (deps.random) options.random = deps.random;
      if (deps.onFallback) options.onFallback = deps.onFallback;
      if (deps.nowMs) options.nowMs = deps.nowMs;
      const made = await SupertonicEngine.create(fetched.files, options);
      await engine?.release();
      engine = made;
      loaded = request;
      styles.clear();
      for (const [name, json] of Object.entries(fetched.voices)) styles.set(name, readVoiceStyle(json, name));
      return {
        version: request.version,
        executionProvider: made.executionProvider,
        sampleRateHz: made.sampleRateHz,
        unverified: fetched.unverified,
      };
    },

    voices(): Promise<string[]> {
      return Promise.resolve().then(() => {
        ready();
        return [...VOICES];
      });
    },

    languages(): Promise<Language[]> {
      return Promise.resolve().then(() => [...languagesOf(ready().request.version)]);
    },

    speak(request): Promise<SpokenPiece | null> {
      const next = queue.then(() => make(request));
      queue = next.catch(() => undefined);
      return next;
    },

    cancel(utteranceId): Promise<void> {
      cancelled.add(utteranceId);
      return Promise.resolve();
    },

    async dispose(): Promise<void> {
      await queue;
      await engine?.release();
      engine = null;
      loaded = null;
      styles.clear();
    },
  };
}
