/**
 * The `words` embedder: what a remark means, as the weighted average of its words' vectors — no model
 * to download, no network. "My sister is called Ana" and "what's my sibling's name?" land near each
 * other because sister and sibling do, which the lexical `hash` embedder cannot see.
 *
 * A sentence's vector, following Arora, Liang & Ma's "smooth inverse frequency" (SIF, 2017):
 * 1. words: `wordsOf`, English contractions opened ("what's" → what, "can't" → can not), and words
 *    that carry no topic dropped (`STOP_WORDS`);
 * 2. each known word's vector weighted by a / (a + p(w)), p(w) its frequency estimated from its rank
 *    (Zipf), so frequent words count little and rare ones fully;
 * 3. a word not among the kept ones (a name, a typo) gets a fixed pseudo-random vector of its own,
 *    weighted as the rarest word: it matches only itself, as `hash` would;
 * 4. the sum's projection on the shared directions of all sentences (`components`) removed, and
 *    the result L2-normalised, in the leading 100 of 384 numbers.
 *
 * Its floor (`WORDS_MAX_DISTANCE`) was chosen on the calibration set of `npm run bench --
 * recall-quality` (test/bench/recall-quality/calibration.ts), never on the evaluation set.
 */
import { wordsOf } from '../../common/wordsOf';
import { EMBEDDING_WIDTH, fnv1a } from './embed';
import type { Embedder } from './embed';
import type { WordVectors } from './wordVectors';
import { zipf } from './wordVectors';

/**
 * SIF's smoothing, `a` in a / (a + p): the paper's recommended 1e-3. A word at rank 100 weighs about
 * 0.58, one at rank 1,000 about 0.93.
 */
const SMOOTHING = 1e-3;

/**
 * The recall floor for this space, as cosine distance. On the calibration set (3 people × 20
 * remarks, 30 questions about nothing they said) a floor of 0.5 recalled something for 4 % of the
 * unrelated questions and brought back 30 % of the wanted remarks in the top three; 0.55 brought
 * back 42 % but recalled something for 9 % of the unrelated ones. Recalling an unrelated remark is
 * worse than recalling nothing, so the floor holds false recall near 5 %.
 */
const WORDS_MAX_DISTANCE = 0.5;

/**
 * Words that carry no topic of their own: pronouns, articles, auxiliaries, prepositions, question
 * words, and the verbs of asking and wanting ("tell", "know", "want"). Without them a question such
 * as "can you tell me a joke?" sits near every remark that says "I want to…".
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'i me my mine myself we us our ours you your yours he him his she her hers it its they them their theirs a an the this that these those ' +
    'is am are was were be been being have has had having do does did doing will would shall should can could may might must ' +
    'to of in on at for with from by about as into onto over under up down out off than then so and or but if because while ' +
    'what which who whom whose where when why how there here not no yes any some all every each ' +
    'tell say said know think please just very really also too again still ever never one thing things get got go going went make made want like ' +
    'lot lots much many more most little bit quite rather now today s t'
  ).split(' '),
);

/**
 * The words of `text` that are looked up, in order: its topic words, or, when it has none ("I think
 * so too"), all of its words, so that anything said in words gets a vector.
 */
export function contentWords(text: string): string[] {
  const words = wordsOf(text).flatMap(opened);
  const topical = words.filter((word) => !STOP_WORDS.has(word));
  return topical.length > 0 ? topical : words;
}

const CLITIC = /'(?:m|re|ve|ll|d|s)$/;

/** A word with its English contraction opened: "can't" is can not, "won't" will not, "I'm" is i, "Ana's" ana. */
function opened(word: string): string[] {
  if (word === "can't") return ['can', 'not'];
  if (word === "won't") return ['will', 'not'];
  if (word.endsWith("n't")) return word === "n't" ? ['not'] : [word.slice(0, -3), 'not'];
  return [word.replace(CLITIC, '')];
}

/** Adds `weight` × a vector of uniform values in [-1, 1] seeded by `word` (xorshift32). */
function addUnknown(sum: Float64Array, word: string, weight: number): void {
  // FNV-1a seeds an unknown word's own vector.
  let state = fnv1a(word) || 1;
  for (let d = 0; d < sum.length; d++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    sum[d] = (sum[d] ?? 0) + weight * ((state / 4294967296) * 2 - 1);
  }
}

/** The embedder over loaded word vectors. Its name changes whenever its vectors would. */
export function wordEmbedder(vectors: WordVectors): Embedder {
  const { dimensions, index, ranks, scales, components } = vectors;
  const weightOf = (rank: number) => SMOOTHING / (SMOOTHING + zipf(rank, vectors.vocabulary));
  const rarest = weightOf(vectors.vocabulary);
  return {
    name: `words-${dimensions}d-${Math.round(vectors.words / 1000)}k-v2`,
    dimensions,
    meaning: true,
    maxDistance: WORDS_MAX_DISTANCE,
    embed(text: string): Promise<Float32Array> {
      const sum = new Float64Array(dimensions);
      for (const word of contentWords(text)) {
        const row = index.get(word);
        if (row === undefined) {
          addUnknown(sum, word, rarest);
          continue;
        }
        const weight = weightOf(ranks[row] ?? 0) * (scales[row] ?? 0);
        const offset = row * dimensions;
        for (let d = 0; d < dimensions; d++) sum[d] = (sum[d] ?? 0) + weight * (vectors.vectors[offset + d] ?? 0);
      }
      for (const component of components) {
        let dot = 0;
        for (let d = 0; d < dimensions; d++) dot += (sum[d] ?? 0) * (component[d] ?? 0);
        for (let d = 0; d < dimensions; d++) sum[d] = (sum[d] ?? 0) - dot * (component[d] ?? 0);
      }
      let norm = 0;
      for (const v of sum) norm += v * v;
      norm = Math.sqrt(norm);
      const vector = new Float32Array(EMBEDDING_WIDTH);
      if (norm > 0) for (let d = 0; d < dimensions; d++) vector[d] = (sum[d] ?? 0) / norm;
      return Promise.resolve(vector);
    },
  };
}
