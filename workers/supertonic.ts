/**
 * The Supertonic pipeline for one piece of text: ids, duration, text encoding, N-step flow
 * matching, vocoder, trim. Sessions are created once per engine and reused for every piece.
 *
 * onnxruntime-web is injected rather than imported so the same code runs in the worker (which
 * imports `onnxruntime-web/wasm` or the WebGPU build) and under vitest in Node.
 */
import type * as Ort from 'onnxruntime-web';
import { checkGraph, GRAPHS, LATENT_CHANNELS, ModelContractError } from '../common/voice/contract';
import type { GraphName } from '../common/voice/contract';
import { latentChannels, readTtsConfig, samplesPerFrame, utteranceLength } from '../common/voice/config';
import type { TtsConfig } from '../common/voice/config';
import type { VoiceStyle } from '../common/voice/style';
import { STYLE_DP_DIMS, STYLE_TTL_DIMS } from '../common/voice/style';
import { normaliseForSpeech, textToIds } from '../common/voice/text';
import type { ModelVersion } from '../common/voice/text';

type OrtModule = typeof Ort;
export type Provider = 'webgpu' | 'wasm';

/** The model files of one version, already downloaded and verified. */
export interface EngineFiles {
  version: ModelVersion;
  graphs: Record<GraphName, Uint8Array>;
  /** The parsed `onnx/tts.json`. */
  config: unknown;
  /** The parsed `onnx/unicode_indexer.json`. */
  indexer: ArrayLike<number>;
}

export interface EngineOptions {
  ort: OrtModule;
  /** Execution providers to try in order; WebGPU falls back to WASM from the same bytes. */
  providers: readonly Provider[];
  /** Uniform [0, 1) source for the starting noise; tests pass a seeded one. */
  random?: () => number;
  /** Told when WebGPU failed and the engine moved to WASM, with the reason. */
  onFallback?: (reason: string) => void;
  /** Told of each graph run with its feeds, for tests that check the step values. */
  onRun?: (graph: GraphName, feeds: Readonly<Record<string, Ort.Tensor>>) => void;
  /** The clock a piece's parts are timed by, in ms; default `performance.now`. */
  nowMs?: () => number;
}

export interface PieceRequest {
  text: string;
  lang: string;
  voice: VoiceStyle;
  /** Flow-matching steps. */
  steps: number;
  /**
   * Asked once the piece's length is known and its text encoded, with its audio in ms: the steps to
   * make it with, from 1 to `steps` (a late piece is made with fewer). Default: `steps`.
   */
  stepsFor?: (audioMs: number) => number;
  /** Speaking rate; 1.05 is the model's own pace. */
  speed: number;
}

export interface PieceAudio {
  /** Mono PCM in [-1, 1], trimmed to the predicted duration. */
  samples: Float32Array;
  sampleRateHz: number;
  /** Characters the model does not know, skipped. */
  unknown: string[];
  /** The steps it was made with (0 for a piece with no audio). */
  steps: number;
  /** Milliseconds spent on the duration predictor, the text encoder and the starting noise. */
  prepareMs: number;
  /** Milliseconds spent on every solver step together. */
  stepsMs: number;
  /** Milliseconds spent on the vocoder and the trim. */
  vocodeMs: number;
}

/** Raised between graph runs when the piece's utterance was cancelled. */
export class Cancelled extends Error {
  override readonly name = 'Cancelled';
}

/** Sessions could not be created or run on any provider; keeps the cause. */
export class EngineError extends Error {
  override readonly name = 'EngineError';
}

type Sessions = Record<GraphName, Ort.InferenceSession>;

async function createSessions(ort: OrtModule, graphs: EngineFiles['graphs'], provider: Provider): Promise<Sessions> {
  const made: Partial<Sessions> = {};
  try {
    for (const graph of GRAPHS) {
      const session = await ort.InferenceSession.create(graphs[graph], {
        executionProviders: [provider],
        graphOptimizationLevel: 'all',
      });
      made[graph] = session;
      checkGraph(graph, `onnx/${graph}.onnx`, { inputs: session.inputMetadata, outputs: session.outputMetadata });
    }
  } catch (error) {
    await Promise.all(Object.values(made).map((s) => s.release()));
    throw error;
  }
  return made as Sessions;
}

/** The steps a `stepsFor` answer comes to: a whole number from 1 to those asked for. */
function stepsWithin(chosen: number, asked: number): number {
  return Number.isFinite(chosen) ? Math.min(asked, Math.max(1, Math.round(chosen))) : asked;
}

function gaussian(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export class SupertonicEngine {
  private constructor(
    private sessions: Sessions,
    private provider: Provider,
    private readonly files: EngineFiles,
    private readonly config: TtsConfig,
    private readonly options: EngineOptions,
  ) {}

  /**
   * Creates the four sessions on the first provider that works and checks each against the
   * contract. A contract mismatch is refused at once (`ModelContractError`): another provider
   * would not make a wrong file right.
   */
  static async create(files: EngineFiles, options: EngineOptions): Promise<SupertonicEngine> {
    const config = readTtsConfig(files.config);
    if (latentChannels(config) !== LATENT_CHANNELS) {
      throw new ModelContractError(`tts.json describes ${latentChannels(config)} latent channels; Supertonic has ${LATENT_CHANNELS}.`);
    }
    let last: unknown;
    for (const provider of options.providers) {
      try {
        const sessions = await createSessions(options.ort, files.graphs, provider);
        return new SupertonicEngine(sessions, provider, files, config, options);
      } catch (error) {
        if (error instanceof ModelContractError) throw error;
        last = error;
        options.onFallback?.(`${provider} could not start: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    throw new EngineError(`The voice model could not start on ${options.providers.join(' or ')}.`, { cause: last });
  }

  get executionProvider(): Provider {
    return this.provider;
  }

  get sampleRateHz(): number {
    return this.config.sampleRateHz;
  }

  /**
   * Synthesises one piece. `stopped` is asked after every graph run; when it answers true the
   * piece is abandoned with `Cancelled`, so a cancelled utterance costs at most one more run.
   * A failure on WebGPU moves the engine to WASM (same bytes, no second download) and retries.
   */
  async synthesise(request: PieceRequest, stopped: () => boolean = () => false): Promise<PieceAudio> {
    try {
      return await this.run(request, stopped);
    } catch (error) {
      if (error instanceof Cancelled || this.provider === 'wasm' || !this.options.providers.includes('wasm')) throw error;
      this.options.onFallback?.(`webgpu failed while speaking: ${error instanceof Error ? error.message : String(error)}`);
      await this.release();
      this.sessions = await createSessions(this.options.ort, this.files.graphs, 'wasm');
      this.provider = 'wasm';
      return this.run(request, stopped);
    }
  }

  async release(): Promise<void> {
    await Promise.all(GRAPHS.map((g) => this.sessions[g].release()));
  }

  private async run(request: PieceRequest, stopped: () => boolean): Promise<PieceAudio> {
    const { ort } = this.options;
    const now = this.options.nowMs ?? (() => performance.now());
    const beganMs = now();
    const { ids, unknown } = textToIds(request.text, request.lang, this.files.indexer, this.files.version);
    const empty = (): PieceAudio => ({
      samples: new Float32Array(0),
      sampleRateHz: this.config.sampleRateHz,
      unknown,
      steps: 0,
      prepareMs: now() - beganMs,
      stepsMs: 0,
      vocodeMs: 0,
    });
    if (normaliseForSpeech(request.text) === '') return empty();

    const length = ids.length;
    const textIds = new ort.Tensor('int64', BigInt64Array.from(ids, (id) => BigInt(id)), [1, length]);
    const textMask = new ort.Tensor('float32', new Float32Array(length).fill(1), [1, 1, length]);
    const styleTtl = new ort.Tensor('float32', request.voice.ttl, [...STYLE_TTL_DIMS]);
    const styleDp = new ort.Tensor('float32', request.voice.dp, [...STYLE_DP_DIMS]);

    const { duration } = await this.step('duration_predictor', { text_ids: textIds, style_dp: styleDp, text_mask: textMask }, stopped);
    const seconds = (duration?.data as Float32Array | undefined)?.[0] ?? 0;
    const { samples, frames } = utteranceLength(seconds, request.speed, this.config);
    if (frames === 0) return empty();

    const { text_emb: textEmb } = await this.step('text_encoder', { text_ids: textIds, style_ttl: styleTtl, text_mask: textMask }, stopped);
    if (!textEmb) throw new EngineError('The text encoder gave no text_emb.');

    const random = this.options.random ?? Math.random;
    const cells = LATENT_CHANNELS * frames;
    const noise = new Float32Array(cells);
    for (let i = 0; i < cells; i++) noise[i] = gaussian(random);
    const latentMask = new ort.Tensor('float32', new Float32Array(frames).fill(1), [1, 1, frames]);
    const steps = stepsWithin(request.stepsFor?.((samples / this.config.sampleRateHz) * 1000) ?? request.steps, request.steps);
    const totalStep = new ort.Tensor('float32', Float32Array.of(steps), [1]);
    let latent: Ort.Tensor = new ort.Tensor('float32', noise, [1, LATENT_CHANNELS, frames]);
    const stepsFromMs = now();
    for (let step = 0; step < steps; step++) {
      const out = await this.step(
        'vector_estimator',
        {
          noisy_latent: latent,
          text_emb: textEmb,
          style_ttl: styleTtl,
          latent_mask: latentMask,
          text_mask: textMask,
          current_step: new ort.Tensor('float32', Float32Array.of(step), [1]),
          total_step: totalStep,
        },
        stopped,
      );
      const next = out.denoised_latent;
      if (!next) throw new EngineError('The vector estimator gave no denoised_latent.');
      latent = next;
    }

    const vocodeFromMs = now();
    const { wav_tts: wav } = await this.step('vocoder', { latent }, stopped);
    const data = wav?.data;
    if (!(data instanceof Float32Array) || data.length < frames * samplesPerFrame(this.config)) {
      throw new EngineError('The vocoder gave fewer samples than its latent frames make.');
    }
    const trimmed = data.slice(0, samples);
    const endedMs = now();
    return {
      samples: trimmed,
      sampleRateHz: this.config.sampleRateHz,
      unknown,
      steps,
      prepareMs: stepsFromMs - beganMs,
      stepsMs: vocodeFromMs - stepsFromMs,
      vocodeMs: endedMs - vocodeFromMs,
    };
  }

  private async step(
    graph: GraphName,
    feeds: Record<string, Ort.Tensor>,
    stopped: () => boolean,
  ): Promise<Partial<Record<string, Ort.Tensor>>> {
    if (stopped()) throw new Cancelled();
    this.options.onRun?.(graph, feeds);
    const out = await this.sessions[graph].run(feeds);
    if (stopped()) throw new Cancelled();
    return out;
  }
}
