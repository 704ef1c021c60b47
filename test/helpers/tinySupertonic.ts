/**
 * Tiny stand-ins for the four Supertonic graphs, so the voice engine can be tested under Node with
 * onnxruntime-web and no 400 MB of weights. Each graph has exactly the contract's input and output
 * names, element types and dimensions (symbolic dims as `dim_param`, fixed ones as `dim_value`),
 * taken from `CONTRACT`, and computes something a test can predict to the last bit:
 *
 * - duration_predictor: `duration[b] = secondsPerChar × Σ_t text_mask[b,0,t]` seconds.
 * - text_encoder: `text_emb[b,c,t] = text_ids[b,t] × text_mask[b,0,t]` for every channel c < 256.
 * - vector_estimator: a step with `current_step = 0` replaces the unmasked cells of the noise by
 *   `total_step`; every later step adds `(current_step + 1) × total_step` to them. Masked cells
 *   (`latent_mask = 0`) pass through unchanged. After the loop of N steps with `current_step = 0…N−1`
 *   and `total_step = N`, each unmasked cell holds `N × N(N+1)/2` (`expectedLatentValue`) whatever
 *   the noise was: an integer, exact in float32 and through the vocoder's 144-channel sum for N ≤ 61. A loop that runs too few or too many
 *   steps, counts from 1, passes the wrong total, starts anywhere but step 0 or does not feed the
 *   output back in ends on another value.
 * - vocoder: `wav_tts[b, l·3072 + k] = VOCODER_GAIN × (Σ_c latent[b,c,l]) / 144` for k < 3072: each
 *   latent frame becomes 3072 equal samples, its channel mean scaled into PCM range.
 *
 * Inputs a graph does not need numerically still flow into its output through a term multiplied by
 * zero, so each is consumed, a NaN in it still shows, and a length that disagrees between
 * `text_ids`, `text_mask` and `text_emb` fails to broadcast as it would in the real model. Adding
 * that zero changes no value.
 *
 * Opset 13, IR version 7; each graph is under 1.1 KB, and all four build in a few milliseconds.
 */
import {
  CONTRACT,
  LATENT_CHANNELS,
  TEXT_EMBEDDING,
  type GraphName,
} from '../../common/voice/contract';
import { FLOAT, OnnxGraph } from './onnxGraph';

/** Samples per latent frame: `ae.base_chunk_size` (512) × `ttl.chunk_compress_factor` (6). */
export const SAMPLES_PER_FRAME = 3072;

/**
 * The vocoder's scale from a latent cell to a PCM sample, 2⁻¹⁵: a power of two, so the scaling is
 * exact, and small enough that the vector estimator's value after up to 39 steps (≤ 30,420) reaches
 * the engine as PCM inside [-1, 1].
 */
const VOCODER_GAIN = 2 ** -15;

/** Seconds of speech per unmasked character when `TinyOptions.secondsPerChar` is not given. */
const DEFAULT_SECONDS_PER_CHAR = 0.06;

export interface TinyOptions {
  /**
   * Seconds of speech per real (unmasked) character: the duration predictor answers
   * `secondsPerChar × Σ text_mask`, rounded to float32. Default `DEFAULT_SECONDS_PER_CHAR` (0.06).
   */
  secondsPerChar?: number;
  /**
   * Rename one input of one graph, so a test can offer the engine a model that breaks the contract.
   * `from` must be one of that graph's contract inputs; the other graphs are built unchanged.
   */
  renameInput?: { graph: GraphName; from: string; to: string };
}

/** The four graphs as serialised ONNX `ModelProto` bytes, ready for `InferenceSession.create`. */
export type TinyGraphs = Record<GraphName, Uint8Array>;

/**
 * Build the four stand-in graphs. Deterministic: the same options give the same bytes.
 * Throws when `renameInput` names an input its graph does not have.
 */
export function buildTinyGraphs(options: TinyOptions = {}): TinyGraphs {
  const secondsPerChar = options.secondsPerChar ?? DEFAULT_SECONDS_PER_CHAR;
  if (!Number.isFinite(secondsPerChar) || secondsPerChar <= 0) {
    throw new RangeError(`secondsPerChar must be a positive number of seconds, got ${secondsPerChar}`);
  }
  const rename = options.renameInput;
  if (rename && !CONTRACT[rename.graph].inputs.some((input) => input.name === rename.from)) {
    const names = CONTRACT[rename.graph].inputs.map((input) => input.name).join(', ');
    throw new Error(`renameInput: ${rename.graph} has no input "${rename.from}"; its inputs are ${names}`);
  }
  const builder = (graph: GraphName): GraphBuilder =>
    new GraphBuilder(graph, new Map(rename?.graph === graph ? [[rename.from, rename.to]] : []));
  return {
    duration_predictor: durationPredictor(builder('duration_predictor'), secondsPerChar),
    text_encoder: textEncoder(builder('text_encoder')),
    vector_estimator: vectorEstimator(builder('vector_estimator')),
    vocoder: vocoder(builder('vocoder')),
  };
}

/**
 * The duration, in seconds, the stand-in predictor gives for `realCharacters` unmasked characters:
 * the float32 product, exactly as onnxruntime computes it.
 */
export function expectedDuration(realCharacters: number, secondsPerChar = DEFAULT_SECONDS_PER_CHAR): number {
  return Math.fround(Math.fround(secondsPerChar) * realCharacters);
}

/**
 * The value of every unmasked latent cell after `steps` vector-estimator steps run with
 * `current_step = 0…steps−1`, `total_step = steps`, each output fed back in: `steps² (steps+1) / 2`.
 * Masked cells keep the value they started with.
 */
export function expectedLatentValue(steps: number): number {
  return (steps * steps * (steps + 1)) / 2;
}

/** The PCM sample the stand-in vocoder makes of a latent frame whose 144 channels all hold `value`. */
export function expectedSample(value: number): number {
  return Math.fround(value * VOCODER_GAIN);
}

function durationPredictor(g: GraphBuilder, secondsPerChar: number): Uint8Array {
  const mask = g.input('text_mask');
  const characters = g.op('ReduceSum', [mask, g.int64s([1, 2])], { keepdims: 0 });
  const seconds = g.op('Mul', [characters, g.float(secondsPerChar)]);
  const idsRow = g.op('Unsqueeze', [g.op('Cast', [g.input('text_ids')], { to: FLOAT }), g.int64s([1])]);
  const idsSum = g.op('ReduceSum', [g.op('Mul', [idsRow, mask]), g.int64s([1, 2])], { keepdims: 0 });
  const styleSum = g.op('ReduceSum', [g.input('style_dp'), g.int64s([1, 2])], { keepdims: 0 });
  const zero = g.op('Mul', [g.op('Add', [idsSum, styleSum]), g.float(0)]);
  g.op('Add', [seconds, zero], {}, g.output('duration'));
  return g.encode();
}

function textEncoder(g: GraphBuilder): Uint8Array {
  const idsRow = g.op('Unsqueeze', [g.op('Cast', [g.input('text_ids')], { to: FLOAT }), g.int64s([1])]);
  const row = g.op('Mul', [idsRow, g.input('text_mask')]);
  const styleSum = g.op('ReduceSum', [g.input('style_ttl'), g.int64s([1, 2])], { keepdims: 1 });
  const zeroed = g.op('Add', [row, g.op('Mul', [styleSum, g.float(0)])]);
  g.op('Expand', [zeroed, g.int64s([1, TEXT_EMBEDDING, 1])], {}, g.output('text_emb'));
  return g.encode();
}

function vectorEstimator(g: GraphBuilder): Uint8Array {
  const latentMask = g.input('latent_mask');
  const step = g.op('Unsqueeze', [g.input('current_step'), g.int64s([1, 2])]);
  const total = g.op('Unsqueeze', [g.input('total_step'), g.int64s([1, 2])]);
  const first = g.op('Cast', [g.op('Equal', [step, g.float(0)])], { to: FLOAT });
  const keep = g.op('Sub', [g.float(1), g.op('Mul', [latentMask, first])]);
  const weight = g.op('Mul', [g.op('Add', [step, g.float(1)]), total]);
  const increment = g.op('Mul', [latentMask, weight]);
  const moved = g.op('Add', [g.op('Mul', [g.input('noisy_latent'), keep]), increment]);
  const textSum = g.op('ReduceSum', [g.op('Mul', [g.input('text_emb'), g.input('text_mask')]), g.int64s([1, 2])], {
    keepdims: 1,
  });
  const styleSum = g.op('ReduceSum', [g.input('style_ttl'), g.int64s([1, 2])], { keepdims: 1 });
  const zero = g.op('Mul', [g.op('Add', [textSum, styleSum]), g.float(0)]);
  g.op('Add', [moved, zero], {}, g.output('denoised_latent'));
  return g.encode();
}

function vocoder(g: GraphBuilder): Uint8Array {
  // ReduceSum then Div keeps a frame whose channels are equal integers exact; ReduceMean may
  // multiply by a rounded 1/144 instead.
  const sum = g.op('ReduceSum', [g.input('latent'), g.int64s([1])], { keepdims: 1 });
  const pcm = g.op('Mul', [g.op('Div', [sum, g.float(LATENT_CHANNELS)]), g.float(VOCODER_GAIN)]);
  const frames = g.op('Transpose', [pcm], { perm: [0, 2, 1] });
  const held = g.op('Expand', [frames, g.int64s([1, 1, SAMPLES_PER_FRAME])]);
  // Reshape's 0 copies the batch dimension; -1 gathers L × 3072 samples.
  g.op('Reshape', [held, g.int64s([0, -1])], {}, g.output('wav_tts'));
  return g.encode();
}

/** One stand-in graph: its contract inputs may be renamed, to break the contract on purpose. */
class GraphBuilder extends OnnxGraph {
  constructor(
    graph: GraphName,
    private readonly renames: ReadonlyMap<string, string>,
  ) {
    super(graph);
  }

  /** The graph-level name of contract input `name`, after any rename. */
  input(name: string): string {
    this.spec(CONTRACT[this.graph].inputs, name);
    return this.renames.get(name) ?? name;
  }

  encode(): Uint8Array {
    return this.model('confab-tiny-supertonic', [], (spec) => this.renames.get(spec.name) ?? spec.name);
  }
}
