import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../../server/app';
import { chooseEmbedder } from '../../../server/memory/chooseEmbedder';
import type { SentenceModel } from '../../../server/memory/miniLm';
import { buildTinyMiniLm, TINY_VOCAB } from './tinyMiniLm';
import { writeWordFixture } from './wordFixture';

ort.env.wasm.numThreads = 1;

const pin = (path: string, bytes: Uint8Array) => ({ path, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });

/** A data folder, with the tiny sentence model in its models/ when `withModel`. */
async function dataDir(withModel: boolean): Promise<{ dir: string; model: SentenceModel }> {
  const dir = await mkdtemp(join(tmpdir(), 'confab-choose-'));
  const graph = buildTinyMiniLm();
  const vocab = new TextEncoder().encode(TINY_VOCAB.join('\n'));
  if (withModel) {
    await mkdir(join(dir, 'models', 'tiny', 'onnx'), { recursive: true });
    await writeFile(join(dir, 'models', 'tiny', 'onnx', 'model.onnx'), graph);
    await writeFile(join(dir, 'models', 'tiny', 'vocab.txt'), vocab);
  }
  return { dir, model: { name: 'tiny', dir: 'tiny', source: 'the test', model: pin('onnx/model.onnx', graph), vocab: pin('vocab.txt', vocab), maxTokens: 16, maxDistance: 0.6 } };
}

async function choose(kind: 'auto' | 'minilm' | 'words' | 'hash', options: { withModel: boolean; words: 'fixture' | 'missing' }) {
  const { dir, model } = await dataDir(options.withModel);
  const lines: { event: string; [field: string]: unknown }[] = [];
  const source = options.words === 'fixture' ? await writeWordFixture() : join(dir, 'no-such-package.json');
  const chosen = await chooseEmbedder({ kind }, { dataDir: dir, log: (line) => lines.push(line), model, ort, words: { source, words: 6 } });
  return { ...chosen, chosenLines: lines.filter((line) => line.event === 'embedder.chosen') };
}

describe('choosing the embedder', () => {
  it('takes the sentence model where its pinned files are present', async () => {
    const { embedder, status, chosenLines } = await choose('auto', { withModel: true, words: 'fixture' });
    expect(embedder.name).toMatch(/^tiny@[0-9a-f]{12}$/);
    expect(status).toEqual({ name: embedder.name, meaning: true });
    expect(chosenLines).toEqual([{ event: 'embedder.chosen', ...status }]);
  });

  it('takes the words embedder where there is no model, and says why not the model', async () => {
    const { embedder, status } = await choose('auto', { withModel: false, words: 'fixture' });
    expect(embedder.name).toBe('words-8d-0k-v2');
    expect(status).toMatchObject({ name: 'words-8d-0k-v2', meaning: true, why: expect.stringMatching(/^the sentence model: .*missing/) as unknown });
  });

  it('falls back to hash when neither loads, and says so once, with both reasons', async () => {
    const { embedder, status, chosenLines } = await choose('auto', { withModel: false, words: 'missing' });
    expect(embedder.name).toBe('hash-v1');
    expect(status.meaning).toBe(false);
    expect(status.why).toMatch(/^fell back to hash .*the sentence model: .*; the word vectors: /);
    expect(chosenLines).toHaveLength(1);
  });

  it('takes what CONFAB_EMBEDDER names, falling back to hash when it cannot load', async () => {
    expect((await choose('words', { withModel: true, words: 'fixture' })).embedder.name).toBe('words-8d-0k-v2');
    expect((await choose('hash', { withModel: true, words: 'fixture' })).status).toEqual({ name: 'hash-v1', meaning: false, why: 'CONFAB_EMBEDDER=hash' });
    const minilm = await choose('minilm', { withModel: false, words: 'fixture' });
    expect(minilm.embedder.name).toBe('hash-v1');
    expect(minilm.status.why).not.toMatch(/word vectors/);
  });

  it('is said by GET /api/health', async () => {
    const { status } = await choose('auto', { withModel: false, words: 'missing' });
    const config = { distDir: '/nowhere', modelsDir: '/nowhere', modelBase: { kind: 'mirror', url: '/models' } as const, modelVersion: 'supertonic-3' as const };
    const res = await createApp({ config, embedder: status }).request('/api/health');
    expect(await res.json()).toEqual({ ok: true, embedder: { name: 'hash-v1', meaning: false, why: status.why } });
  });
});
