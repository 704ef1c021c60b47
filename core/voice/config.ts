/**
 * What the engine needs from a model version's `tts.json`, and the arithmetic of one utterance's
 * length: how many samples the voice will say and how many latent frames make them.
 */

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

/** A `tts.json` the engine cannot use; names the field. */
export class TtsConfigError extends Error {
  override readonly name = 'TtsConfigError';
}

function positiveInteger(json: unknown, path: readonly string[]): number {
  let value: unknown = json;
  for (const key of path) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new TtsConfigError(`tts.json: ${path.join('.')} must be a positive whole number; it is ${value === undefined ? 'missing' : JSON.stringify(value)}.`);
  }
  return value;
}

export function readTtsConfig(json: unknown): TtsConfig {
  return {
    sampleRateHz: positiveInteger(json, ['ae', 'sample_rate']),
    baseChunkSize: positiveInteger(json, ['ae', 'base_chunk_size']),
    chunkCompressFactor: positiveInteger(json, ['ttl', 'chunk_compress_factor']),
    latentDim: positiveInteger(json, ['ttl', 'latent_dim']),
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

export interface UtteranceLength {
  /** Samples of speech after trimming: `floor(duration / speed × rate)`. */
  samples: number;
  /** Latent frames to synthesise: `ceil(samples / samplesPerFrame)`. */
  frames: number;
}

/**
 * The length of one utterance from the duration predictor's seconds. `speed` above 1 is faster;
 * the sensible range is 0.9–1.5 and anything outside 0.5–2 is refused.
 */
export function utteranceLength(durationSeconds: number, speed: number, config: TtsConfig): UtteranceLength {
  if (!Number.isFinite(speed) || speed < 0.5 || speed > 2) {
    throw new RangeError(`speed is ${speed}; it must be from 0.5 to 2 (1.05 is the model's own pace).`);
  }
  const seconds = Number.isFinite(durationSeconds) && durationSeconds > 0 ? durationSeconds / speed : 0;
  const samples = Math.floor(seconds * config.sampleRateHz);
  return { samples, frames: Math.ceil(samples / samplesPerFrame(config)) };
}
