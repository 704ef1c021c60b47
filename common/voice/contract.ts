/**
 * The Supertonic model's contract: the four graphs, the names, element types and dimensions of
 * their inputs and outputs. Symbolic dimensions are named (`B` batch, `T` text length in characters
 * including the language tags, `L` latent length); fixed ones are numbers. A downloaded model is
 * checked against this before its first use, and a mismatch is refused with the file and the
 * difference named.
 */

export const GRAPHS = ['duration_predictor', 'text_encoder', 'vector_estimator', 'vocoder'] as const;
export type GraphName = (typeof GRAPHS)[number];

export type TensorType = 'float32' | 'int64';
/** A dimension: a number when fixed, a letter when symbolic. */
type Dim = number | 'B' | 'T' | 'L' | 'W';

export interface TensorSpec {
  name: string;
  type: TensorType;
  dims: readonly Dim[];
}

export interface GraphSpec {
  inputs: readonly TensorSpec[];
  outputs: readonly TensorSpec[];
}

/** Channels of a latent frame: `ttl.latent_dim` (24) × `ttl.chunk_compress_factor` (6). */
export const LATENT_CHANNELS = 144;
/** Text embedding width. */
export const TEXT_EMBEDDING = 256;

const textIds: TensorSpec = { name: 'text_ids', type: 'int64', dims: ['B', 'T'] };
const textMask: TensorSpec = { name: 'text_mask', type: 'float32', dims: ['B', 1, 'T'] };
const styleTtl: TensorSpec = { name: 'style_ttl', type: 'float32', dims: ['B', 50, 256] };
const textEmb: TensorSpec = { name: 'text_emb', type: 'float32', dims: ['B', TEXT_EMBEDDING, 'T'] };

export const CONTRACT: Readonly<Record<GraphName, GraphSpec>> = {
  duration_predictor: {
    inputs: [textIds, { name: 'style_dp', type: 'float32', dims: ['B', 8, 16] }, textMask],
    outputs: [{ name: 'duration', type: 'float32', dims: ['B'] }],
  },
  text_encoder: {
    inputs: [textIds, styleTtl, textMask],
    outputs: [textEmb],
  },
  vector_estimator: {
    inputs: [
      { name: 'noisy_latent', type: 'float32', dims: ['B', LATENT_CHANNELS, 'L'] },
      textEmb,
      styleTtl,
      { name: 'latent_mask', type: 'float32', dims: ['B', 1, 'L'] },
      textMask,
      { name: 'current_step', type: 'float32', dims: ['B'] },
      { name: 'total_step', type: 'float32', dims: ['B'] },
    ],
    outputs: [{ name: 'denoised_latent', type: 'float32', dims: ['B', LATENT_CHANNELS, 'L'] }],
  },
  vocoder: {
    inputs: [{ name: 'latent', type: 'float32', dims: ['B', LATENT_CHANNELS, 'L'] }],
    /** `W` = L × 3072 samples at 44,100 Hz, mono. */
    outputs: [{ name: 'wav_tts', type: 'float32', dims: ['B', 'W'] }],
  },
};

/** What a runtime reports of one input or output (onnxruntime-web's `inputMetadata` entries). */
export interface ReportedTensor {
  name: string;
  type?: string;
  /** Numbers for fixed dimensions; strings (or negative numbers) for symbolic ones. */
  shape?: readonly (number | string)[];
}

/** A model file that does not match the contract; names the file and the difference. */
export class ModelContractError extends Error {
  override readonly name = 'ModelContractError';
}

function describeDims(dims: readonly (number | string)[]): string {
  return `[${dims.join(', ')}]`;
}

function differences(side: 'input' | 'output', expected: readonly TensorSpec[], reported: readonly ReportedTensor[]): string[] {
  const found: string[] = [];
  const names = new Set(reported.map((t) => t.name));
  for (const spec of expected) {
    const got = reported.find((t) => t.name === spec.name);
    if (!got) {
      found.push(`${side} "${spec.name}" is missing`);
      continue;
    }
    if (got.type !== undefined && got.type !== spec.type) found.push(`${side} "${spec.name}" is ${got.type}, not ${spec.type}`);
    const shape = got.shape;
    if (shape === undefined) continue;
    const fits =
      shape.length === spec.dims.length &&
      spec.dims.every((dim, i) => {
        const actual = shape[i];
        return typeof dim === 'number' ? actual === dim : typeof actual === 'string' || (typeof actual === 'number' && actual < 0);
      });
    if (!fits) found.push(`${side} "${spec.name}" has dims ${describeDims(shape)}, not ${describeDims(spec.dims)}`);
  }
  for (const name of names) {
    if (!expected.some((s) => s.name === name)) found.push(`${side} "${name}" is not in the contract`);
  }
  return found;
}

/**
 * Refuses a graph whose inputs or outputs differ from the contract in name, element type, rank or
 * a fixed dimension (symbolic dimensions may carry any name). `file` is named in the error.
 */
export function checkGraph(
  graph: GraphName,
  file: string,
  reported: { inputs: readonly ReportedTensor[]; outputs: readonly ReportedTensor[] },
): void {
  const spec = CONTRACT[graph];
  const found = [...differences('input', spec.inputs, reported.inputs), ...differences('output', spec.outputs, reported.outputs)];
  if (found.length > 0) {
    throw new ModelContractError(`${file} is not a Supertonic ${graph}: ${found.join('; ')}.`);
  }
}
