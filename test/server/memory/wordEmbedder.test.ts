import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDING_WIDTH } from '../../../server/memory/embed';
import type { Embedder } from '../../../server/memory/embed';
import { contentWords, wordEmbedder } from '../../../server/memory/wordEmbedder';
import { convertWordVectors, loadWordVectors } from '../../../server/memory/wordVectors';
import type { WordVectors } from '../../../server/memory/wordVectors';
import { FIXTURE_DIMENSIONS, writeWordFixture } from './wordFixture';

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * (b[i] ?? 0), 0);

let vectors: WordVectors;
let embedder: Embedder;
beforeAll(async () => {
  const target = join(await mkdtemp(join(tmpdir(), 'confab-we-')), 'words.bin');
  await convertWordVectors({ source: await writeWordFixture(), target, words: 8 });
  vectors = await loadWordVectors(target);
  embedder = wordEmbedder(vectors);
});

describe('the words a remark is embedded from', () => {
  it('opens contractions, drops possessives, punctuation and words with no topic of their own', () => {
    expect(contentWords("What's my sibling's name? I can't say…")).toEqual(['sibling', 'name']);
    expect(contentWords('My SISTER’s café.')).toEqual(['sister', 'café']);
  });

  it('keeps every word when none has a topic of its own, and none for nothing in words', () => {
    expect(contentWords('I think so too.')).toEqual(['i', 'think', 'so', 'too']);
    expect(contentWords(' … ')).toEqual([]);
  });
});

describe('the words embedder', () => {
  it('names its space by width and vocabulary, and recalls by meaning', () => {
    expect(embedder).toMatchObject({ name: 'words-8d-0k-v2', dimensions: FIXTURE_DIMENSIONS, meaning: true });
    expect(embedder.maxDistance).toBeGreaterThan(0);
  });

  it('gives a unit vector 384 wide, meaningful in its leading numbers only', async () => {
    const v = await embedder.embed('my sister');
    expect(v).toHaveLength(EMBEDDING_WIDTH);
    expect(cosine(v, v)).toBeCloseTo(1, 5);
    expect(v.subarray(FIXTURE_DIMENSIONS).every((x) => x === 0)).toBe(true);
  });

  it('puts words of one meaning near each other and far from others', async () => {
    const sister = await embedder.embed('My sister');
    expect(cosine(sister, await embedder.embed('your sibling'))).toBeGreaterThan(cosine(sister, await embedder.embed('a car')) + 0.3);
    const car = await embedder.embed('the car');
    expect(cosine(car, await embedder.embed('an automobile'))).toBeGreaterThan(cosine(car, await embedder.embed('a banana')) + 0.3);
  });

  it('leaves nothing of the directions every sentence shares', async () => {
    const v = await embedder.embed('sister car of');
    for (const component of vectors.components) {
      expect(Math.abs(component.reduce((s, c, d) => s + c * (v[d] ?? 0), 0))).toBeLessThan(1e-5);
    }
  });

  it('gives an unknown word a vector of its own: the same every time, matching only itself', async () => {
    const rosalind = await embedder.embed('Rosalind');
    expect(Array.from(await embedder.embed('rosalind'))).toEqual(Array.from(rosalind));
    expect(cosine(rosalind, await embedder.embed('Bartholomew'))).toBeLessThan(0.9);
    const told = await embedder.embed('Rosalind banana');
    expect(cosine(told, rosalind)).toBeGreaterThan(cosine(told, await embedder.embed('Bartholomew')));
  });

  it('weighs a frequent word less than a rare one', async () => {
    // "the" (rank 0) and "sibling" (rank 6): the mix leans to the rarer word.
    const mixed = await embedder.embed('the sibling');
    expect(contentWords('the sibling')).toEqual(['sibling']);
    const both = await embedder.embed('of sibling');
    expect(cosine(both, await embedder.embed('sibling'))).toBeGreaterThan(cosine(both, await embedder.embed('of')));
    expect(cosine(mixed, await embedder.embed('sibling'))).toBeCloseTo(1, 5);
  });

  it('gives a zero vector for nothing to embed', async () => {
    expect((await embedder.embed(' … ')).every((v) => v === 0)).toBe(true);
  });
});
