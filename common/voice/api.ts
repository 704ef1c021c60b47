/**
 * The on-device voice as the page sees it: the API the Supertonic worker exposes with comlink.
 * Declared here so the worker implements it and the page's client calls it without either
 * importing the other.
 */
import type { PieceTiming, VoiceCost } from '../speaking/pace';
import type { ModelBase } from './manifest';
import type { Language, ModelVersion } from './text';

/** What the server tells the page about the voice model and sign-in (`GET /api/config`); nothing secret. */
export interface PageConfig {
  model: { version: ModelVersion; base: ModelBase };
  /** How the page says who is asking; absent when the server runs without its API, which is local. */
  auth?: PageAuth;
}

/**
 * Who is asking, as the page must know it: `local` (the server's HttpOnly person cookie does
 * everything) or `supabase` (the page signs in with supabase-js and sends the access token). The
 * anon key is public by design (Row Level Security guards the project, not the key); the project's
 * JWT secret and service-role key never reach the page.
 */
export type PageAuth =
  | { kind: 'local' }
  | {
      kind: 'supabase';
      /** The project URL without a trailing slash, e.g. `https://abcd.supabase.co`. */
      url: string;
      /** The project's anon (publishable) key, which supabase-js sends as `apikey`. */
      anonKey: string;
    };

export interface LoadRequest {
  version: ModelVersion;
  /** Where the files come from: the model's hub at the manifest's revision, or a mirror. */
  base: ModelBase;
  /** Voices to fetch now; others are fetched the first time they are asked for. */
  voices: readonly string[];
  /** Try WebGPU first when the browser has it. */
  preferWebGpu: boolean;
}

/** Download progress across every file a load needs, in bytes. */
export interface LoadProgress {
  bytesDone: number;
  bytesTotal: number;
  /** The file being fetched now, e.g. `onnx/vector_estimator.onnx`. */
  file: string;
}

export interface LoadResult {
  version: ModelVersion;
  executionProvider: 'webgpu' | 'wasm';
  sampleRateHz: number;
  /** Files that could not be checked against a pinned sha256 (see models/manifest.json). */
  unverified: string[];
}

/** One piece of one utterance to voice. */
export interface SpeakRequest {
  utteranceId: number;
  /** Index of the piece in its utterance; 0 is the opening. */
  piece: number;
  text: string;
  lang: Language;
  voice: string;
  /** Flow-matching steps for this piece. */
  steps: number;
  /** Speaking rate, 0.5–2; 1.05 is the model's own pace. */
  speed: number;
  /**
   * How the worker keeps up with playback; without it every piece is made at `steps`. With it, a
   * later piece of an utterance that would be ready only after the pieces before it have played
   * out (and the gap) is made with fewer steps, never fewer than `floor` (see `stepsInTime`).
   */
  pacing?: Pacing;
}

/** What the worker needs to know to make a piece in time. */
interface Pacing {
  /** The fewest steps a piece may be made with when it would otherwise be late: the bot's `floor`. */
  floor: number;
  /** The player's silence between pieces, in ms: time a piece may still use. */
  gapMs: number;
  /** What making speech costs on this device, as the page keeps it. */
  cost: VoiceCost;
}

/** The PCM of one piece: mono float samples in [-1, 1]. Its buffer is transferred, not copied. */
export interface SpokenPiece {
  utteranceId: number;
  piece: number;
  samples: Float32Array;
  sampleRateHz: number;
  /** Characters the model could not read and skipped. */
  unknown: string[];
  /**
   * How it was made: the steps it was made with (fewer than asked when it would otherwise have
   * been late), what each part took, and where it ran.
   */
  timing: PieceTiming;
}

export interface TtsApi {
  /**
   * Downloads (or reads from cache), verifies and starts the model; reports progress as it goes.
   * The worker rejects with a `VoiceLoadError` (`loadFailure.ts`): the kind only, the detail in its console.
   */
  load(request: LoadRequest, onProgress: (progress: LoadProgress) => void): Promise<LoadResult>;
  voices(): Promise<string[]>;
  languages(): Promise<Language[]>;
  /**
   * Voices one piece; pieces are made one at a time in the order asked. Resolves `null` when the
   * piece's utterance was cancelled before or while it was made.
   */
  speak(request: SpeakRequest): Promise<SpokenPiece | null>;
  /** Abandons an utterance: its piece in flight stops after the current graph run, queued ones never start. */
  cancel(utteranceId: number): Promise<void>;
  /** Releases the sessions (about a gigabyte with the real model). */
  dispose(): Promise<void>;
}
