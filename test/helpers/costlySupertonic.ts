/**
 * Cost-calibrated stand-ins for the four Supertonic graphs, for benchmarks that need realistic
 * timings without the real weights. Each graph has exactly the contract's input and output names,
 * element types and dimensions (taken from `CONTRACT`), as many float32 parameters as the real file
 * holds (its size / 4 bytes), and spends them the way the real graph does: every weight matrix is
 * applied once per text position (duration predictor, text encoder), once per latent frame and
 * step (vector estimator), or once per 512-sample chunk, six per latent frame (vocoder). A dense
 * layer of P weights costs 2·P FLOPs per row, the same as a convolution of P weights per output
 * position, so matching the parameter count at the real graph's rate matches its arithmetic.
 *
 * The layouts follow `tts.json` of Supertonic 2 (widths, inner widths, attention layers, rates):
 *
 * - duration_predictor: character embedding (vocabulary × 64), residual feed-forward blocks
 *   64→256→64, 2 self-attention layers (width 64) over the text, a masked mean, then a head
 *   (64 + the 128 values of `style_dp`)→128→128→1. The output is
 *   `secondsPerChar × (Σ text_mask − 9 language-tag positions) + 0 × head`: the network's cost is paid, the duration is
 *   deterministic (default 0.075 s a position, English speech at about 13 characters a second).
 * - text_encoder: character embedding (vocabulary × 256), blocks 256→1024→256, 4 self-attention
 *   layers over the text, one cross-attention from the text to the 50 style tokens, 256→256 out.
 * - vector_estimator: 144→512 per latent frame, then 4 main blocks, each adding a time and a style
 *   projection, cross-attending from the frames to the whole `text_emb` (so its cost grows with
 *   L × T as the real one's does) and running its share of the blocks 512→1024→512; the rest of the
 *   blocks, 512→144 out, and the Euler update `noisy + v / total_step` inside the graph, masked by
 *   `latent_mask`.
 * - vocoder: the latent [144, L] unpacked into 6·L chunks of 24 (`ttl.chunk_compress_factor`),
 *   24→512 per chunk, blocks 512→2048→512, a head 512→2048→512 and a tanh, each chunk's 512
 *   samples laid end to end: [B, L·3072].
 *
 * The number of feed-forward blocks, and the inner width of one last partial block, are solved so
 * each graph's parameter count equals its target exactly; the few parameters left over (fewer
 * than one block row) are a bias vector whose mean is added once. Weights are uniform from a
 * seeded generator, scaled by fan-in (residual branches by a tenth more) so activations stay near
 * unit size and finite through every step. Nonlinearity: tanh (opset 13 has no GELU).
 *
 * Not modelled: LayerNorm, depthwise convolutions and the many small ops of the real graphs,
 * which add a per-run overhead the stand-in does not pay. Nothing is written to disk: the bytes
 * are built in memory, about 1 s per 100 MB.
 */
import type { onnx as Onnx } from 'onnx-proto';
import { CONTRACT, GRAPHS, LATENT_CHANNELS, TEXT_EMBEDDING } from '../../common/voice/contract';
import type { GraphName } from '../../common/voice/contract';
import { FLOAT, OnnxGraph } from './onnxGraph';

/** Sizes in bytes of the real Supertonic 2 graph files (`supertonic-2/lfs-pointers`). */
export const SUPERTONIC_2_FILE_BYTES: Readonly<Record<GraphName, number>> = {
  duration_predictor: 1_521_526,
  text_encoder: 27_431_318,
  vector_estimator: 132_471_364,
  vocoder: 101_405_066,
};

/** Float32 parameters of each real Supertonic 2 graph: its file size / 4, rounded. */
export const SUPERTONIC_2_PARAMS: Readonly<Record<GraphName, number>> = {
  duration_predictor: Math.round(SUPERTONIC_2_FILE_BYTES.duration_predictor / 4),
  text_encoder: Math.round(SUPERTONIC_2_FILE_BYTES.text_encoder / 4),
  vector_estimator: Math.round(SUPERTONIC_2_FILE_BYTES.vector_estimator / 4),
  vocoder: Math.round(SUPERTONIC_2_FILE_BYTES.vocoder / 4),
};

/** Rows of Supertonic 2's character embedding: one past the largest id in its `unicode_indexer.json`. */
const SUPERTONIC_2_VOCABULARY = 162;

/** Seconds of speech per unmasked text position when `CostlyOptions.secondsPerChar` is not given. */
export const DEFAULT_SECONDS_PER_CHAR = 0.075;

/** Latent chunks per latent frame, `ttl.chunk_compress_factor`: the vocoder runs at 6 × the frame rate. */
const CHUNKS_PER_FRAME = 6;
/** Samples per chunk, `ae.base_chunk_size`. */
const SAMPLES_PER_CHUNK = 512;
/** Samples per latent frame: 512 × 6. */
export const SAMPLES_PER_FRAME = SAMPLES_PER_CHUNK * CHUNKS_PER_FRAME;

export interface CostlyOptions {
  /** Parameters to give each graph; default `SUPERTONIC_2_PARAMS` (divided by `shrink²`). */
  params?: Partial<Record<GraphName, number>>;
  /**
   * Rows of the character embeddings; every id of the version's `unicode_indexer.json` must be
   * below it. Default `SUPERTONIC_2_VOCABULARY` (162); Supertonic 3 needs 8,321.
   */
  vocabulary?: number;
  /** Seconds of speech per unmasked text position, language tags included. Default 0.075. */
  secondsPerChar?: number;
  /** Seed of the weights: the same options give the same bytes. Default 1. */
  seed?: number;
  /**
   * Divides every inner width by this whole number and the default parameter targets by its
   * square, for tests that need the same graphs fast; 1 (the default) is full size. Widths the
   * contract fixes (144, 256, 24 a chunk, 512 samples a chunk) are kept.
   */
  shrink?: number;
}

/** What a graph holds, for a benchmark's report. */
interface CostlyGraphReport {
  /** Float32 parameters, equal to the target. */
  params: number;
  /** Multiply-adds per row of the graph's rate (text position, latent frame, or 512-sample chunk). */
  macsPerRow: number;
  /** What one row is. */
  row: 'text position' | 'latent frame' | 'chunk (6 per latent frame)';
  /** The layers, in order, in words. */
  layout: string[];
}

export interface CostlyGraphs {
  /** Serialised ONNX `ModelProto` bytes, ready for `InferenceSession.create`. */
  graphs: Record<GraphName, Uint8Array>;
  report: Record<GraphName, CostlyGraphReport>;
}

/** Architecture of Supertonic 2 from its `tts.json`: widths before `shrink`. */
const ARCH = {
  dp: { width: 64, inner: 256, attention: 2, head: 128 },
  te: { width: 256, inner: 1024, attention: 4 },
  ve: { width: 512, inner: 1024, blocks: 4, timeDim: 64, timeHidden: 256 },
  voc: { width: 512, inner: 2048, head: 2048, latentPerChunk: LATENT_CHANNELS / CHUNKS_PER_FRAME },
} as const;

/** Builds the four stand-ins. Throws when a target is too small for the fixed layers around the blocks. */
export function buildCostlyGraphs(options: CostlyOptions = {}): CostlyGraphs {
  const shrink = options.shrink ?? 1;
  if (!Number.isInteger(shrink) || shrink < 1 || shrink > 16) {
    throw new RangeError(`shrink must be a whole number from 1 to 16, got ${shrink}`);
  }
  const vocabulary = options.vocabulary ?? SUPERTONIC_2_VOCABULARY;
  if (!Number.isInteger(vocabulary) || vocabulary < 1) throw new RangeError(`vocabulary must be a positive whole number, got ${vocabulary}`);
  const secondsPerChar = options.secondsPerChar ?? DEFAULT_SECONDS_PER_CHAR;
  if (!Number.isFinite(secondsPerChar) || secondsPerChar <= 0) {
    throw new RangeError(`secondsPerChar must be a positive number of seconds, got ${secondsPerChar}`);
  }
  const seed = options.seed ?? 1;
  const target = (graph: GraphName): number => options.params?.[graph] ?? Math.round(SUPERTONIC_2_PARAMS[graph] / shrink ** 2);
  const s = (width: number): number => Math.max(1, Math.round(width / shrink));

  const makers: Record<GraphName, { row: CostlyGraphReport['row']; width: number; inner: number; make: Maker }> = {
    duration_predictor: {
      row: 'text position',
      width: s(ARCH.dp.width),
      inner: s(ARCH.dp.inner),
      make: (g, fill) => {
        durationPredictor(g, fill, { vocabulary, secondsPerChar, width: s(ARCH.dp.width), head: s(ARCH.dp.head) });
      },
    },
    text_encoder: {
      row: 'text position',
      width: s(ARCH.te.width),
      inner: s(ARCH.te.inner),
      make: (g, fill) => {
        textEncoder(g, fill, { vocabulary, width: s(ARCH.te.width) });
      },
    },
    vector_estimator: {
      row: 'latent frame',
      width: s(ARCH.ve.width),
      inner: s(ARCH.ve.inner),
      make: (g, fill) => {
        vectorEstimator(g, fill, { width: s(ARCH.ve.width), timeHidden: s(ARCH.ve.timeHidden) });
      },
    },
    vocoder: {
      row: 'chunk (6 per latent frame)',
      width: s(ARCH.voc.width),
      inner: s(ARCH.voc.inner),
      make: (g, fill) => {
        vocoder(g, fill, { width: s(ARCH.voc.width), head: s(ARCH.voc.head) });
      },
    },
  };

  const graphs = {} as Record<GraphName, Uint8Array>;
  const report = {} as Record<GraphName, CostlyGraphReport>;
  for (const [index, graph] of GRAPHS.entries()) {
    const { row, width, inner, make } = makers[graph];
    // A dry run counts the parameters outside the blocks; no weights are drawn until `encode`.
    const dry = new GraphBuilder(graph);
    make(dry, { blocks: 0, partialInner: 0, spare: 0, width, inner });
    const fill = solveFill(graph, target(graph), dry.params, width, inner);
    const g = new GraphBuilder(graph);
    make(g, fill);
    if (g.params !== target(graph)) throw new Error(`${graph}: built ${g.params} parameters for a target of ${target(graph)}`);
    graphs[graph] = g.encode((seed + index * 0x9e3779b9) >>> 0);
    report[graph] = { params: g.params, macsPerRow: g.macsPerRow, row, layout: g.layout };
  }
  return { graphs, report };
}

/**
 * Positions every piece spends on its language tags (`<en>` and `</en>`): characters the model
 * reads but does not say, so the stand-in gives them no duration.
 */
const TAG_POSITIONS = 9;

/** The duration, in seconds, the stand-in predictor gives for `positions` unmasked text positions. */
export function expectedDuration(positions: number, secondsPerChar = DEFAULT_SECONDS_PER_CHAR): number {
  return Math.fround(Math.fround(secondsPerChar) * Math.max(0, positions - TAG_POSITIONS));
}

/** How many residual blocks fill a graph up to its parameter target. */
interface Fill {
  /** Full blocks width→inner→width. */
  blocks: number;
  /** Inner width of one more, partial block; 0 for none. */
  partialInner: number;
  /** Parameters still to place after the blocks: one bias vector. */
  spare: number;
  width: number;
  inner: number;
}

type Maker = (g: GraphBuilder, fill: Fill) => void;

function blockParams(width: number, inner: number): number {
  return 2 * width * inner + inner + width;
}

function solveFill(graph: GraphName, target: number, fixed: number, width: number, inner: number): Fill {
  const room = target - fixed;
  if (room < 0) {
    throw new RangeError(`${graph}: a target of ${target} parameters is below the ${fixed} its fixed layers need; use a smaller shrink.`);
  }
  const blocks = Math.floor(room / blockParams(width, inner));
  const rest = room - blocks * blockParams(width, inner);
  const partialInner = rest >= blockParams(width, 1) ? Math.floor((rest - width) / (2 * width + 1)) : 0;
  const spare = rest - (partialInner > 0 ? blockParams(width, partialInner) : 0);
  return { blocks, partialInner, spare, width, inner };
}

/** Runs `count` residual blocks, then the partial one and the spare bias. */
function blocks(g: GraphBuilder, x: string, fill: Fill, count: number): string {
  let h = x;
  for (let i = 0; i < count; i++) h = g.residualBlock(h, fill.width, fill.inner);
  if (count > 0) g.describe(`${count} × block ${fill.width}→${fill.inner}→${fill.width}`);
  return h;
}

function finishFill(g: GraphBuilder, x: string, fill: Fill): string {
  let h = x;
  if (fill.partialInner > 0) {
    h = g.residualBlock(h, fill.width, fill.partialInner);
    g.describe(`partial block ${fill.width}→${fill.partialInner}→${fill.width}`);
  }
  if (fill.spare > 0) {
    h = g.op('Add', [h, g.op('ReduceMean', [g.weight([fill.spare], 0.01)], { keepdims: 0 })]);
    g.describe(`spare bias of ${fill.spare}`);
  }
  return h;
}

function durationPredictor(
  g: GraphBuilder,
  fill: Fill,
  o: { vocabulary: number; secondsPerChar: number; width: number; head: number },
): void {
  const mask = g.input('text_mask');
  const maskRows = g.op('Transpose', [mask], { perm: [0, 2, 1] });
  const keyBias = g.keyBias(mask);
  let h = g.embed(g.input('text_ids'), o.vocabulary, o.width);
  h = blocks(g, h, fill, fill.blocks);
  for (let i = 0; i < ARCH.dp.attention; i++) h = g.attention(h, h, o.width, o.width, keyBias);
  g.describe(`${ARCH.dp.attention} × self-attention ${o.width}`);
  h = g.op('Mul', [finishFill(g, h, fill), maskRows]);
  const positions = g.op('ReduceSum', [mask, g.int64s([2])], { keepdims: 1 });
  const pooled = g.op('Div', [g.op('MatMul', [mask, h]), positions]);
  const style = g.op('Reshape', [g.input('style_dp'), g.int64s([0, 1, 128])]);
  let head = g.op('Concat', [pooled, style], { axis: 2 });
  head = g.op('Tanh', [g.dense(head, o.width + 128, o.head, 1, false)]);
  head = g.op('Tanh', [g.dense(head, o.head, o.head, 1, false)]);
  head = g.op('Reshape', [g.dense(head, o.head, 1, 1, false), g.int64s([-1])]);
  g.describe(`masked mean, head (${o.width} + 128 style)→${o.head}→${o.head}→1`);
  const spoken = g.op('Relu', [g.op('Sub', [g.op('ReduceSum', [mask, g.int64s([1, 2])], { keepdims: 0 }), g.float(TAG_POSITIONS)])]);
  const seconds = g.op('Mul', [spoken, g.float(o.secondsPerChar)]);
  g.op('Add', [seconds, g.op('Mul', [head, g.float(0)])], {}, g.output('duration'));
  g.describe(`duration = ${o.secondsPerChar} s × (Σ text_mask − ${TAG_POSITIONS} tag positions) + 0 × head`);
}

function textEncoder(g: GraphBuilder, fill: Fill, o: { vocabulary: number; width: number }): void {
  const mask = g.input('text_mask');
  const keyBias = g.keyBias(mask);
  let h = g.embed(g.input('text_ids'), o.vocabulary, o.width);
  h = blocks(g, h, fill, fill.blocks);
  for (let i = 0; i < ARCH.te.attention; i++) h = g.attention(h, h, o.width, o.width, keyBias);
  g.describe(`${ARCH.te.attention} × self-attention ${o.width}`);
  h = g.attention(h, g.input('style_ttl'), o.width, 256, null);
  g.describe(`cross-attention ${o.width} to the 50 style tokens`);
  h = finishFill(g, h, fill);
  h = g.dense(h, o.width, TEXT_EMBEDDING, 1, true);
  g.describe(`${o.width}→${TEXT_EMBEDDING} out`);
  const masked = g.op('Mul', [h, g.op('Transpose', [mask], { perm: [0, 2, 1] })]);
  g.op('Transpose', [masked], { perm: [0, 2, 1] }, g.output('text_emb'));
}

function vectorEstimator(g: GraphBuilder, fill: Fill, o: { width: number; timeHidden: number }): void {
  const noisy = g.input('noisy_latent');
  const total = g.op('Unsqueeze', [g.input('total_step'), g.int64s([1, 2])]);
  const t = g.op('Div', [g.op('Unsqueeze', [g.input('current_step'), g.int64s([1, 2])]), total]);
  const timeDim = ARCH.ve.timeDim;
  const timeFeatures = g.op('Tanh', [g.op('Add', [g.op('Mul', [t, g.weight([1, 1, timeDim], 3)]), g.weight([timeDim], 1)])]);
  const time = g.op('Tanh', [g.dense(timeFeatures, timeDim, o.timeHidden, 1, false)]);
  const style = g.op('ReduceMean', [g.input('style_ttl')], { axes: [1], keepdims: 1 });
  const text = g.op('Transpose', [g.input('text_emb')], { perm: [0, 2, 1] });
  const keyBias = g.keyBias(g.input('text_mask'));
  g.describe(`time t = step / total → ${timeDim}→${o.timeHidden}; style = mean of the 50 tokens`);

  let h = g.dense(g.op('Transpose', [noisy], { perm: [0, 2, 1] }), LATENT_CHANNELS, o.width, 1, true);
  g.describe(`${LATENT_CHANNELS}→${o.width} in`);
  const perBlock = Math.floor(fill.blocks / ARCH.ve.blocks);
  for (let b = 0; b < ARCH.ve.blocks; b++) {
    h = g.op('Add', [h, g.dense(time, o.timeHidden, o.width, 1, false)]);
    h = g.op('Add', [h, g.dense(style, 256, o.width, 1, false)]);
    h = g.attention(h, text, o.width, TEXT_EMBEDDING, keyBias);
    g.describe(`main block ${b + 1}: + time ${o.timeHidden}→${o.width}, + style 256→${o.width}, cross-attention ${o.width} to text_emb`);
    h = blocks(g, h, fill, perBlock);
  }
  h = blocks(g, h, fill, fill.blocks - perBlock * ARCH.ve.blocks);
  h = finishFill(g, h, fill);
  const velocity = g.op('Transpose', [g.dense(h, o.width, LATENT_CHANNELS, 1, true)], { perm: [0, 2, 1] });
  g.describe(`${o.width}→${LATENT_CHANNELS} out; denoised = (noisy + v / total_step) × latent_mask`);
  const moved = g.op('Add', [noisy, g.op('Div', [velocity, total])]);
  g.op('Mul', [moved, g.input('latent_mask')], {}, g.output('denoised_latent'));
}

function vocoder(g: GraphBuilder, fill: Fill, o: { width: number; head: number }): void {
  const perChunk = ARCH.voc.latentPerChunk;
  // [B, 144, L] → [B, 24, 6, L] → [B, L, 6, 24] → [B, 6L, 24]: one row per 512-sample chunk.
  const unpacked = g.op('Reshape', [g.input('latent'), g.int64s([0, perChunk, CHUNKS_PER_FRAME, -1])]);
  const chunks = g.op('Reshape', [g.op('Transpose', [unpacked], { perm: [0, 3, 2, 1] }), g.int64s([0, -1, perChunk])]);
  let h = g.dense(chunks, perChunk, o.width, 1, true);
  g.describe(`latent unpacked to 6 chunks of ${perChunk} a frame; ${perChunk}→${o.width} in`);
  h = blocks(g, h, fill, fill.blocks);
  h = finishFill(g, h, fill);
  h = g.op('Tanh', [g.dense(h, o.width, o.head, 1, true)]);
  h = g.op('Tanh', [g.dense(h, o.head, SAMPLES_PER_CHUNK, 1, true)]);
  g.describe(`head ${o.width}→${o.head}→${SAMPLES_PER_CHUNK} samples a chunk, tanh × 0.5`);
  const pcm = g.op('Mul', [h, g.float(0.5)]);
  g.op('Reshape', [pcm, g.int64s([0, -1])], {}, g.output('wav_tts'));
}

/** A weight to draw at encode time: uniform in ±`bound`. */
interface PendingWeight {
  name: string;
  dims: number[];
  bound: number;
}

/**
 * Collects one graph's nodes, constants and weights. Activations flow as [B, rows, width]; every
 * dense layer is a MatMul by a [in, out] weight plus a bias, applied to each row.
 */
class GraphBuilder extends OnnxGraph {
  params = 0;
  macsPerRow = 0;
  readonly layout: string[] = [];
  private readonly weights: PendingWeight[] = [];

  describe(text: string): void {
    this.layout.push(text);
  }

  input(name: string): string {
    return this.spec(CONTRACT[this.graph].inputs, name).name;
  }

  /** A parameter tensor drawn uniformly in ±`bound` when the graph is encoded. */
  weight(dims: number[], bound: number): string {
    const name = `w${this.weights.length}`;
    this.weights.push({ name, dims, bound });
    this.params += dims.reduce((a, b) => a * b, 1);
    return name;
  }

  /**
   * `x · W + b` on each row. `gain` scales the fan-in bound (√(3 / in), unit variance out for unit
   * variance in). `perRow` says whether the layer runs once per row (counted in `macsPerRow`) or
   * once per run, on a pooled or constant input.
   */
  dense(x: string, inputs: number, outputs: number, gain: number, perRow: boolean): string {
    if (perRow) this.macsPerRow += inputs * outputs;
    const w = this.weight([inputs, outputs], gain * Math.sqrt(3 / inputs));
    return this.op('Add', [this.op('MatMul', [x, w]), this.weight([outputs], 0.01)]);
  }

  /** `x + W₂ tanh(W₁ x)`, the residual branch scaled down so a deep stack stays near unit size. */
  residualBlock(x: string, width: number, inner: number): string {
    const up = this.op('Tanh', [this.dense(x, width, inner, 1, true)]);
    return this.op('Add', [x, this.dense(up, inner, width, 0.1, true)]);
  }

  /** Rows of an embedding table picked by int64 ids: [B, T] → [B, T, width]. */
  embed(ids: string, vocabulary: number, width: number): string {
    const table = this.weight([vocabulary, width], 1);
    this.describe(`character embedding ${vocabulary}×${width}`);
    return this.op('Gather', [table, ids], { axis: 0 });
  }

  /** An additive mask over keys, [B, 1, T]: 0 where `mask` is 1, −10⁴ where it is 0. */
  keyBias(mask: string): string {
    return this.op('Mul', [this.op('Sub', [mask, this.float(1)]), this.float(1e4)]);
  }

  /**
   * One residual single-head attention layer from the rows of `queries` ([B, N, width]) to those of
   * `keys` ([B, M, keyWidth]). Its FLOPs equal a multi-head layer's of the same width. The key and
   * value projections count per row only when the layer attends to its own rows.
   */
  attention(queries: string, keys: string, width: number, keyWidth: number, keyBias: string | null): string {
    const selfAttention = keys === queries;
    const q = this.dense(queries, width, width, 1, true);
    const k = this.dense(keys, keyWidth, width, 1, selfAttention);
    const v = this.dense(keys, keyWidth, width, 1, selfAttention);
    const kT = this.op('Transpose', [k], { perm: [0, 2, 1] });
    let scores = this.op('Mul', [this.op('MatMul', [q, kT]), this.float(1 / Math.sqrt(width))]);
    if (keyBias !== null) scores = this.op('Add', [scores, keyBias]);
    const context = this.op('MatMul', [this.op('Softmax', [scores], { axis: -1 }), v]);
    return this.op('Add', [queries, this.dense(context, width, width, 0.1, true)]);
  }

  /** Draws the weights from `seed` and serialises the model. */
  encode(seed: number): Uint8Array {
    const random = uniformSource(seed);
    const initializers = this.weights.map(({ name, dims, bound }): Onnx.ITensorProto => {
      const values = new Float32Array(dims.reduce((a, b) => a * b, 1));
      random(values, bound);
      return { name, dims, dataType: FLOAT, rawData: new Uint8Array(values.buffer) };
    });
    return this.model('confab-costly-supertonic', initializers);
  }
}

/** Fills arrays with uniform draws in ±bound from one mulberry32 stream: fast enough for 66 M weights. */
function uniformSource(seed: number): (into: Float32Array, bound: number) => void {
  let state = seed >>> 0;
  return (into, bound) => {
    const scale = (2 * bound) / 4294967296;
    for (let i = 0; i < into.length; i++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      into[i] = ((t ^ (t >>> 14)) >>> 0) * scale - bound;
    }
  };
}
