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
export declare function readTtsConfig(json: unknown): TtsConfig;
/** Samples one latent frame becomes: base chunk × compress factor (3,072). */
export declare function samplesPerFrame(config: TtsConfig): number;
/** Channels of one latent frame: latent dim × compress factor (144). */
export declare function latentChannels(config: TtsConfig): number;
/** Default speaking rate; the duration predictor's seconds are divided by it. */
export declare const DEFAULT_SPEED = 1.05;
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
export declare function utteranceLength(durationSeconds: number, speed: number, config: TtsConfig): UtteranceLength;
