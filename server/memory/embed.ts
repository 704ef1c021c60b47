/**
 * Turning what a person said into a vector for recall. A vector is only ever compared with vectors
 * of the embedder that made it (each memory records its embedder's name and width). The embedders:
 * - `minilm` (meaning, local): all-MiniLM-L6-v2 in onnxruntime-web, from `.data/models/` (miniLm.ts).
 * - `words` (meaning, offline, the default where the model is absent): frequency-weighted word
 *   vectors, 100 wide (wordEmbedder.ts).
 * - `hash` (lexical, offline, always there): feature-hashed words, word pairs and character
 *   trigrams, L2-normalised. It finds remarks that share words and word pieces ("my sister Ana" ~
 *   "Ana's birthday"), not ones that share only meaning ("sibling").
 * - `endpoint`: an OpenAI-shaped `/v1/embeddings` asked for `dimensions: 384`.
 *
 * Every embedder hands out vectors EMBEDDING_WIDTH (384) wide, the width every caller and the
 * `confab_remember` door know; one whose space is narrower fills the leading `dimensions` and leaves
 * the rest zero (the same cosine geometry). The table keeps only the leading `dimensions`.
 */
import { withoutAccents, wordsOf } from '../../common/wordsOf';

export const EMBEDDING_WIDTH = 384;

export interface Embedder {
  /**
   * Recorded with each memory; vectors of different embedders are never compared. A name names one
   * space: an embedder whose vectors change (other weights, vocabulary, width) takes a new name.
   */
  readonly name: string;
  /** How many leading numbers of its vectors carry meaning, 1 to 384; the rest are 0. Default 384. */
  readonly dimensions?: number;
  /** True when nearness means nearness of meaning, not only of shared words. Default false. */
  readonly meaning?: boolean;
  /**
   * The recall floor in this embedder's space, as cosine distance: past it a memory is not
   * recalled. Default `RECALL_MAX_DISTANCE` (server/memory/context.ts), which is tuned for `hash`.
   */
  readonly maxDistance?: number;
  /** A vector EMBEDDING_WIDTH wide; all zeros when the text holds nothing to embed. */
  embed(text: string, signal?: AbortSignal): Promise<Float32Array>;
}

/** The leading width of `embedder`'s vectors that carries meaning. */
export function widthOf(embedder: Pick<Embedder, 'dimensions'>): number {
  return embedder.dimensions ?? EMBEDDING_WIDTH;
}

/** FNV-1a, 32-bit: fast, well spread, and the same on every machine. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Adds a feature with its weight; the hash's top bit picks the sign so collisions cancel on average. */
function add(vector: Float32Array, feature: string, weight: number): void {
  const hash = fnv1a(feature);
  vector[hash % EMBEDDING_WIDTH] = (vector[hash % EMBEDDING_WIDTH] ?? 0) + (hash & 0x80000000 ? -weight : weight);
}

/**
 * The offline embedder: deterministic, no model, no network. Its words are `wordsOf` with accents
 * taken off ("Café" is "cafe"), each decomposed (Hangul as its letters) and cut at its apostrophes
 * ("don't" is don, t): the space `hash-v1` names was built so, and every memory in it would have to
 * move, under a new name, were that to change.
 */
export const hashEmbedder: Embedder = {
  name: 'hash-v1',
  dimensions: EMBEDDING_WIDTH,
  meaning: false,
  embed(text: string): Promise<Float32Array> {
    const vector = new Float32Array(EMBEDDING_WIDTH);
    const tokens = wordsOf(withoutAccents(text)).flatMap((word) => word.normalize('NFKD').split("'"));
    tokens.forEach((word, i) => {
      add(vector, `w:${word}`, 1);
      const next = tokens[i + 1];
      if (next !== undefined) add(vector, `b:${word} ${next}`, 0.5);
      const padded = `^${word}$`;
      for (let c = 0; c + 3 <= padded.length; c++) add(vector, `c:${padded.slice(c, c + 3)}`, 0.25);
    });
    let norm = 0;
    for (const v of vector) norm += v * v;
    norm = Math.sqrt(norm);
    if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) / norm;
    return Promise.resolve(vector);
  },
};

/** The embeddings endpoint could not give a usable vector. */
export class EmbedderError extends Error {
  override readonly name = 'EmbedderError';
}

/** An OpenAI-shaped embeddings endpoint asked for 384 dimensions. */
export function endpointEmbedder(options: { baseUrl: string; apiKey: string; model: string; fetch?: typeof fetch }): Embedder {
  const fetcher = options.fetch ?? fetch;
  const url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
  return {
    name: `endpoint:${options.model}`,
    dimensions: EMBEDDING_WIDTH,
    meaning: true,
    async embed(text, signal) {
      let response: Response;
      try {
        response = await fetcher(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
          body: JSON.stringify({ model: options.model, input: text, dimensions: EMBEDDING_WIDTH }),
          ...(signal ? { signal } : {}),
        });
      } catch (cause) {
        throw new EmbedderError(`The embeddings endpoint at ${new URL(url).host} could not be reached.`, { cause });
      }
      if (!response.ok) throw new EmbedderError(`The embeddings endpoint answered ${response.status}.`);
      const body = (await response.json()) as { data?: { embedding?: unknown }[] };
      const embedding = body.data?.[0]?.embedding;
      if (!Array.isArray(embedding) || embedding.length !== EMBEDDING_WIDTH || embedding.some((v) => typeof v !== 'number')) {
        throw new EmbedderError(`The embeddings endpoint did not return ${EMBEDDING_WIDTH} numbers; set its model to one that supports dimensions: ${EMBEDDING_WIDTH}.`);
      }
      return Float32Array.from(embedding as number[]);
    },
  };
}
