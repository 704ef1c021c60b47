/**
 * What the engine needs from a model version's `tts.json`, and the arithmetic of one utterance's
 * length: how many samples the voice will say and how many latent frames make them.
 */
import { checkOption } from '../options';
import type { Limit } from '../options';

export interface TtsConfig {
  /** Output sample rate, `ae.sample_rate` (44,100 Hz). */
  sampleRateHz: number;
  /** Samples per autoencoder chunk, `ae.base_chunk_size` (512). */
  baseChunkSize: number;
  /** Chunks per latent frame, `ttl.chunk_compress_factor` (6). */
  chunkCompressFactor: number;
  /** Latent width per chunk, `ttl.latent_dim` (24). */
  latentDim: number;
}

/** Each field `readTtsConfig` reads is a count of samples, chunks or channels. */
const COUNT: Limit = { over: 0, whole: true };

/** The number at `path` in `json`; throws `OptionError` naming it (`tts.json <path>`) when it is missing or not a count. */
function count(json: unknown, path: readonly string[]): number {
  let value: unknown = json;
  for (const key of path) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  return checkOption(`tts.json ${path.join('.')}`, value, COUNT);
}

export function readTtsConfig(json: unknown): TtsConfig {
  return {
    sampleRateHz: count(json, ['ae', 'sample_rate']),
    baseChunkSize: count(json, ['ae', 'base_chunk_size']),
    chunkCompressFactor: count(json, ['ttl', 'chunk_compress_factor']),
    latentDim: count(json, ['ttl', 'latent_dim']),
  };
}

/** Samples one latent frame becomes: base chunk × compress factor (3,072). */
export function samplesPerFrame(config: TtsConfig): number {
  return config.baseChunkSize * config.chunkCompressFactor;
}

/** Channels of one latent frame: latent dim × compress factor (144). */
export function latentChannels(config: TtsConfig): number {
  return config.latentDim * config.chunkCompressFactor;
}

/** Default speaking rate; the duration predictor's seconds are divided by it. */
export const DEFAULT_SPEED = 1.05;

/** The speaking rates the engine accepts: 0.5 (half pace) to 2; `DEFAULT_SPEED` is the model's own. */
const SPEED: Limit = { min: 0.5, max: 2 };

export interface UtteranceLength {
  /** Samples of speech after trimming: `floor(duration / speed × rate)`. */
  samples: number;
  /** Latent frames to synthesise: `ceil(samples / samplesPerFrame)`. */
  frames: number;
}

/**
 * The length of one utterance from the duration predictor's seconds. `speed` above 1 is faster;
 * the sensible range is 0.9–1.5 and anything outside 0.5–2 is refused with `OptionError`.
 */
export function utteranceLength(durationSeconds: number, speed: number, config: TtsConfig): UtteranceLength {
  checkOption('speed', speed, SPEED);
  const seconds = Number.isFinite(durationSeconds) && durationSeconds > 0 ? durationSeconds / speed : 0;
  const samples = Math.floor(seconds * config.sampleRateHz);
  return { samples, frames: Math.ceil(samples / samplesPerFrame(config)) };
}
