import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { loadSentenceModel, meanPool, SentenceModelError } from '../../../server/memory/miniLm';
import type { SentenceModel } from '../../../server/memory/miniLm';
import { basicTokens, VocabularyError, wordPiece } from '../../../server/memory/wordPiece';
import { buildTinyMiniLm, TINY_VOCAB, TINY_WIDTH, tokenState } from './tinyMiniLm';

ort.env.wasm.numThreads = 1;

const pin = (path: string, bytes: Uint8Array) => ({ path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });

/** A models folder holding the tiny graph and its vocabulary, and the spec that pins them. */
async function tinyModel(graph = buildTinyMiniLm()): Promise<{ modelsDir: string; spec: SentenceModel }> {
  const modelsDir = await mkdtemp(join(tmpdir(), 'confab-models-'));
  const vocab = new TextEncoder().encode(`${TINY_VOCAB.join('\n')}\n`);
  await mkdir(join(modelsDir, 'tiny', 'onnx'), { recursive: true });
  await writeFile(join(modelsDir, 'tiny', 'onnx', 'model.onnx'), graph);
  await writeFile(join(modelsDir, 'tiny', 'vocab.txt'), vocab);
  return {
    modelsDir,
    spec: { name: 'tiny-minilm', dir: 'tiny', source: 'made by the test', model: pin('onnx/model.onnx', graph), vocab: pin('vocab.txt', vocab), maxTokens: 8, maxDistance: 0.6 },
  };
}

/** What the model's pooling should give for these token ids: their states' mean, L2-normalised. */
function expected(ids: readonly number[]): Float32Array {
  const mean = Array.from({ length: TINY_WIDTH }, (_, d) => ids.reduce((sum, id) => sum + tokenState(id, d), 0) / ids.length);
  const norm = Math.hypot(...mean);
  return Float32Array.from(mean, (v) => v / norm);
}

const id = (piece: string) => TINY_VOCAB.indexOf(piece);

describe('BERT WordPiece', () => {
  const tokenizer = wordPiece(TINY_VOCAB.join('\n'), 8);

  it('lower-cases, strips accents and makes every punctuation mark a token of its own', () => {
    expect(basicTokens("My SISTER's Café?\tAna.")).toEqual(['my', 'sister', "'", 's', 'cafe', '?', 'ana', '.']);
  });

  it('splits a word into the longest known pieces, continuations marked ##, and an unknown one into [UNK]', () => {
    expect(tokenizer.encode('sibling')).toEqual([id('[CLS]'), id('sib'), id('##ling'), id('[SEP]')]);
    expect(tokenizer.encode('siblingz ana')).toEqual([id('[CLS]'), id('[UNK]'), id('ana'), id('[SEP]')]);
  });

  it('cuts a long text to the most tokens, [CLS] and [SEP] included', () => {
    const ids = tokenizer.encode('my sister is called ana my sister is called ana');
    expect(ids).toHaveLength(8);
    expect(ids.at(0)).toBe(id('[CLS]'));
    expect(ids.at(-1)).toBe(id('[SEP]'));
  });

  it('refuses a vocabulary without BERT’s special tokens', () => {
    expect(() => wordPiece('a\nb\nc', 8)).toThrow(VocabularyError);
  });
});

describe('the sentence model', () => {
  it('embeds as the mean of the token states under the mask, L2-normalised, 384 wide', async () => {
    const { modelsDir, spec } = await tinyModel();
    const embedder = await loadSentenceModel({ modelsDir, model: spec, ort });
    expect(embedder).toMatchObject({ name: `tiny-minilm@${spec.model.sha256?.slice(0, 12) ?? ''}`, dimensions: 384, meaning: true, maxDistance: 0.6 });
    const vector = await embedder.embed('My sister is called Ana.');
    const ids = [id('[CLS]'), id('my'), id('sister'), id('is'), id('called'), id('ana'), id('.'), id('[SEP]')];
    const want = expected(ids);
    expect(vector).toHaveLength(384);
    for (let d = 0; d < TINY_WIDTH; d++) expect(vector[d]).toBeCloseTo(want[d] ?? Number.NaN, 5);
  });

  it('runs one text at a time, answering each its own vector', async () => {
    const { modelsDir, spec } = await tinyModel();
    const embedder = await loadSentenceModel({ modelsDir, model: spec, ort });
    const [a, b] = await Promise.all([embedder.embed('ana'), embedder.embed('sister')]);
    expect(a[0]).toBeCloseTo(expected([id('[CLS]'), id('ana'), id('[SEP]')])[0] ?? Number.NaN, 5);
    expect(b[0]).toBeCloseTo(expected([id('[CLS]'), id('sister'), id('[SEP]')])[0] ?? Number.NaN, 5);
  });

  it('pools only the tokens whose mask is 1', () => {
    const states = Float32Array.from([1, 0, 0, 1, 100, 100]);
    expect(Array.from(meanPool(states, [1, 1, 0], 2))).toEqual([Math.SQRT1_2, Math.SQRT1_2].map(Math.fround));
    expect(Array.from(meanPool(states, [0n, 0n, 0n], 2))).toEqual([0, 0]);
  });

  it('refuses files that are not pinned, missing, or not the pinned ones, saying which', async () => {
    const { modelsDir, spec } = await tinyModel();
    await expect(loadSentenceModel({ modelsDir, model: { ...spec, model: { ...spec.model, sha256: null } }, ort })).rejects.toThrow(/not pinned/);
    await expect(loadSentenceModel({ modelsDir, model: { ...spec, dir: 'elsewhere' }, ort })).rejects.toThrow(/missing/);
    await expect(loadSentenceModel({ modelsDir, model: { ...spec, model: { ...spec.model, size: 3 } }, ort })).rejects.toThrow(/not the pinned 3/);
    await expect(loadSentenceModel({ modelsDir, model: { ...spec, vocab: { ...spec.vocab, sha256: '0'.repeat(64) } }, ort })).rejects.toThrow(SentenceModelError);
  });

  it('refuses a graph without the model’s input names', async () => {
    const { modelsDir, spec } = await tinyModel(buildTinyMiniLm({ renameInput: { from: 'token_type_ids', to: 'segment_ids' } }));
    await expect(loadSentenceModel({ modelsDir, model: spec, ort })).rejects.toThrow(/has no input token_type_ids/);
  });
});
