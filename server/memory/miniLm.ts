/**
 * The `minilm` embedder: a sentence-embedding model of all-MiniLM-L6-v2's shape run inside the server
 * by onnxruntime-web's WebAssembly backend (as the voice runs in the browser), from files in
 * `.data/models/<dir>/` whose size and SHA-256 are pinned here and checked before loading.
 *
 * The graph's contract (the sentence-transformers ONNX export): inputs `input_ids`,
 * `attention_mask`, `token_type_ids` (int64, [batch, tokens]); output `last_hidden_state` (float32,
 * [batch, tokens, 384]). A sentence's vector is the mean of its tokens' states under the attention
 * mask, L2-normalised — the model's own pooling.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Ort from 'onnxruntime-web';
import { EMBEDDING_WIDTH } from './embed';
import type { Embedder } from './embed';
import { wordPiece } from './wordPiece';

export type OrtModule = typeof Ort;

interface PinnedFile {
  /** Path inside the model's folder. */
  path: string;
  /** Bytes; null when not pinned yet. */
  size: number | null;
  /** Hex SHA-256; null when not pinned yet. */
  sha256: string | null;
}

export interface SentenceModel {
  /** Recorded with each memory, with the model's digest: `<name>@<first 12 hex of its SHA-256>`. */
  name: string;
  /** The folder under `.data/models/`. */
  dir: string;
  /** Where the files come from, for the person who fetches them. */
  source: string;
  model: PinnedFile;
  /** BERT's `vocab.txt`. */
  vocab: PinnedFile;
  /** Most tokens per text, [CLS] and [SEP] included (longer texts are cut). */
  maxTokens: number;
  /** The recall floor in this model's space, as cosine distance. */
  maxDistance: number;
}

/**
 * all-MiniLM-L6-v2. Not pinned: no machine this was built on could reach the model's host, so its
 * files' sizes and digests are unknown here and the loader refuses them until they are pinned. Its
 * floor is not measured either: 0.65 (cosine ≥ 0.35) is where unrelated sentences usually stop for
 * this model; measure it with `npm run bench -- recall-quality` once the model is present.
 */
const ALL_MINILM_L6_V2: SentenceModel = {
  name: 'all-MiniLM-L6-v2',
  dir: 'all-MiniLM-L6-v2',
  source: 'sentence-transformers/all-MiniLM-L6-v2 on the Hugging Face hub (onnx/model.onnx, vocab.txt)',
  model: { path: 'onnx/model.onnx', size: null, sha256: null },
  vocab: { path: 'vocab.txt', size: null, sha256: null },
  maxTokens: 256,
  maxDistance: 0.65,
};

/** Names of the graph's tensors. */
const MINILM_INPUTS = ['input_ids', 'attention_mask', 'token_type_ids'] as const;
const MINILM_OUTPUT = 'last_hidden_state';

/** The model cannot be used: missing, unpinned, not the pinned file, or not the expected graph. */
export class SentenceModelError extends Error {
  override readonly name = 'SentenceModelError';
}

/** Checks one file against its pin: size first (cheap), then SHA-256; answers its digest. */
async function verify(folder: string, file: PinnedFile): Promise<string> {
  if (file.size === null || file.sha256 === null) {
    throw new SentenceModelError(`${file.path} is not pinned (size and SHA-256 unknown); pin it in server/memory/miniLm.ts before it is loaded`);
  }
  const path = join(folder, file.path);
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    throw new SentenceModelError(`${path} is missing`);
  }
  if (size !== file.size) throw new SentenceModelError(`${path} is ${size} bytes, not the pinned ${file.size}`);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  const digest = hash.digest('hex');
  if (digest !== file.sha256.toLowerCase()) throw new SentenceModelError(`${path} has SHA-256 ${digest}, not the pinned ${file.sha256}`);
  return digest;
}

/**
 * The mean of the token states whose mask is 1, L2-normalised: `states` is [tokens, width]
 * row-major for one text. Zeros when no token counts.
 */
export function meanPool(states: Float32Array, mask: ArrayLike<number | bigint>, width: number): Float32Array {
  const pooled = new Float32Array(width);
  let counted = 0;
  for (let t = 0; t < mask.length; t++) {
    if (Number(mask[t]) === 0) continue;
    counted += 1;
    for (let d = 0; d < width; d++) pooled[d] = (pooled[d] ?? 0) + (states[t * width + d] ?? 0);
  }
  let norm = 0;
  for (const v of pooled) norm += v * v;
  norm = Math.sqrt(norm);
  if (counted === 0 || norm === 0) return new Float32Array(width);
  for (let d = 0; d < width; d++) pooled[d] = (pooled[d] ?? 0) / norm;
  return pooled;
}

/**
 * Loads the model from `modelsDir/<dir>/` after verifying both files, and answers its embedder.
 * Throws `SentenceModelError` with a reason a person can act on.
 */
export async function loadSentenceModel(options: { modelsDir: string; model?: SentenceModel; ort?: OrtModule }): Promise<Embedder> {
  const spec = options.model ?? ALL_MINILM_L6_V2;
  const folder = join(options.modelsDir, spec.dir);
  const digest = await verify(folder, spec.model);
  await verify(folder, spec.vocab);
  const tokenizer = wordPiece(await readFile(join(folder, spec.vocab.path), 'utf8'), spec.maxTokens);
  const ort = options.ort ?? (await import('onnxruntime-web'));
  // One thread: the server shares its cores with the database and every request.
  ort.env.wasm.numThreads = 1;
  let session: Ort.InferenceSession;
  try {
    session = await ort.InferenceSession.create(await readFile(join(folder, spec.model.path)));
  } catch (cause) {
    throw new SentenceModelError(`onnxruntime could not load ${spec.model.path}: ${(cause as Error).message}`, { cause });
  }
  for (const name of MINILM_INPUTS) {
    if (!session.inputNames.includes(name)) throw new SentenceModelError(`${spec.model.path} has no input ${name}; its inputs are ${session.inputNames.join(', ')}`);
  }
  if (!session.outputNames.includes(MINILM_OUTPUT)) throw new SentenceModelError(`${spec.model.path} has no output ${MINILM_OUTPUT}`);

  // One run at a time: a session is not re-entrant.
  let queue: Promise<unknown> = Promise.resolve();
  async function run(text: string, signal?: AbortSignal): Promise<Float32Array> {
    signal?.throwIfAborted();
    const ids = tokenizer.encode(text);
    const dims = [1, ids.length];
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, (id) => BigInt(id)), dims),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), dims),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(ids.length), dims),
    };
    const output = (await session.run(feeds))[MINILM_OUTPUT];
    if (output === undefined || output.type !== 'float32' || output.dims.length !== 3 || output.dims[2] !== EMBEDDING_WIDTH) {
      throw new SentenceModelError(`${spec.model.path} did not answer ${MINILM_OUTPUT} as float32 [1, tokens, ${EMBEDDING_WIDTH}]`);
    }
    return meanPool(output.data as Float32Array, feeds.attention_mask.data, EMBEDDING_WIDTH);
  }
  return {
    name: `${spec.name}@${digest.slice(0, 12)}`,
    dimensions: EMBEDDING_WIDTH,
    meaning: true,
    maxDistance: spec.maxDistance,
    embed(text, signal) {
      const result = queue.then(() => run(text, signal));
      queue = result.catch(() => undefined);
      return result;
    },
  };
}
