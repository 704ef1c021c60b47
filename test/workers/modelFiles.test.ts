import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import manifestJson from '../../models/manifest.json';
import type { LoadProgress, LoadRequest } from '../../common/voice/api';
import { ModelFileError, parseManifest } from '../../common/voice/manifest';
import { fetchLoad, fetchVoiceFile } from '../../workers/modelFiles';
import { createTtsService } from '../../workers/ttsService';
import { MemoryCache } from '../helpers/memoryCache';
import { SHARED_SUPERTONIC } from '../helpers/supertonicData';
import { withStandInGraphs } from '../helpers/standInManifest';
import { buildTinyGraphs } from '../helpers/tinySupertonic';

ort.env.wasm.numThreads = 1;

// The mirror serves stand-in graphs under Supertonic 3's names: they load unverified, as the real ones never would.
const manifest = parseManifest(withStandInGraphs(manifestJson));
const graphs = buildTinyGraphs();
const files = new Map<string, Uint8Array>();
const requests: string[] = [];
let server: Server;
let base = '';
let corruptVoice = false;

beforeAll(async () => {
  for (const [graph, bytes] of Object.entries(graphs)) files.set(`/supertonic-3/onnx/${graph}.onnx`, bytes);
  for (const file of ['onnx/tts.json', 'onnx/unicode_indexer.json', 'voice_styles/F1.json', 'voice_styles/M2.json']) {
    files.set(`/supertonic-3/${file}`, readFileSync(join(SHARED_SUPERTONIC, 'supertonic-3', file)));
  }
  server = createServer((req, res) => {
    const path = req.url ?? '';
    requests.push(path);
    const body = files.get(path);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    const sent = corruptVoice && path.endsWith('M2.json') ? Buffer.from(body).fill(32, 0, 10) : body;
    res.writeHead(200, { 'content-length': String(sent.length) }).end(sent);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
});

const request = (): LoadRequest => ({ version: 'supertonic-3', base: { kind: 'mirror', url: base }, voices: ['F1'], preferWebGpu: false });

describe('loading the voice model from a mirror', () => {
  it('fetches every file a load needs with progress to the total, and says which could not be verified', async () => {
    const progress: LoadProgress[] = [];
    const loaded = await fetchLoad(manifest, request(), (p) => progress.push(p), { cache: new MemoryCache() });
    expect(Object.keys(loaded.files.graphs).sort()).toEqual(['duration_predictor', 'text_encoder', 'vector_estimator', 'vocoder']);
    expect(Array.from(loaded.files.graphs.vocoder)).toEqual(Array.from(graphs.vocoder));
    expect(Object.keys(loaded.voices)).toEqual(['F1']);
    expect(loaded.unverified.sort()).toEqual(['onnx/duration_predictor.onnx', 'onnx/text_encoder.onnx', 'onnx/vector_estimator.onnx', 'onnx/vocoder.onnx']);
    const last = progress.at(-1);
    expect(last?.bytesDone).toBe(last?.bytesTotal);
    expect(progress.every((p, i) => i === 0 || p.bytesDone >= (progress[i - 1]?.bytesDone ?? 0))).toBe(true);
  });

  it('needs no network the second time: everything comes from the cache', async () => {
    const cache = new MemoryCache();
    await fetchLoad(manifest, request(), () => undefined, { cache });
    requests.length = 0;
    await fetchLoad(manifest, request(), () => undefined, { cache });
    expect(requests).toEqual([]);
  });

  it('refuses a voice file that does not match its pin, naming it', async () => {
    corruptVoice = true;
    try {
      const voice = fetchVoiceFile(manifest, request(), 'M2', { cache: new MemoryCache() });
      await expect(voice).rejects.toBeInstanceOf(ModelFileError);
      await expect(voice).rejects.toThrow(/voice_styles\/M2\.json/);
    } finally {
      corruptVoice = false;
    }
  });

  it('starts the engine on what it fetched and speaks with it', async () => {
    const cache = new MemoryCache();
    const tts = createTtsService({
      ort,
      hasWebGpu: false,
      fetchFiles: (load, onProgress) => fetchLoad(manifest, load, onProgress, { cache }),
      fetchVoice: (load, voice) => fetchVoiceFile(manifest, load, voice, { cache }),
    });
    const result = await tts.load(request(), () => undefined);
    expect(result.unverified).toHaveLength(4);
    const spoken = await tts.speak({ utteranceId: 1, piece: 0, text: 'Hello.', lang: 'en', voice: 'M2', steps: 2, speed: 1.05 });
    expect(spoken?.samples.length).toBeGreaterThan(0);
    await tts.dispose();
  });
});
