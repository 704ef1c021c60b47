import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { LoadRequest, SpeakRequest } from '../../src/core/voice/api';
import { createTtsService, NotLoadedError } from '../../workers/ttsService';
import type { TtsServiceDeps } from '../../workers/ttsService';
import { indexer, ttsJson, voiceJson } from '../helpers/supertonicData';
import { buildTinyGraphs } from '../helpers/tinySupertonic';

ort.env.wasm.numThreads = 1;

const load: LoadRequest = { version: 'supertonic-3', base: { kind: 'hub' }, voices: ['F1'], preferWebGpu: true };

function service(overrides: Partial<TtsServiceDeps> = {}) {
  const fetchedVoices: string[] = [];
  const tts = createTtsService({
    ort,
    hasWebGpu: false,
    random: () => 0.5,
    fetchFiles: (request, onProgress) => {
      onProgress({ bytesDone: 1, bytesTotal: 1, file: 'onnx/tts.json' });
      return Promise.resolve({
        files: { version: request.version, graphs: buildTinyGraphs(), config: ttsJson(request.version), indexer: indexer(request.version) },
        voices: Object.fromEntries(request.voices.map((v) => [v, voiceJson(request.version, v)])),
        unverified: [],
      });
    },
    fetchVoice: (request, voice) => {
      fetchedVoices.push(voice);
      return Promise.resolve(voiceJson(request.version, voice));
    },
    ...overrides,
  });
  return { tts, fetchedVoices };
}

const piece = (utteranceId: number, index: number, text: string): SpeakRequest => ({
  utteranceId,
  piece: index,
  text,
  lang: 'en',
  voice: 'F1',
  steps: 4,
  speed: 1.05,
});

describe('the voice worker service', () => {
  it('loads on WASM when the browser has no WebGPU and reports progress, voices and languages', async () => {
    const { tts } = service();
    const progress: number[] = [];
    const result = await tts.load(load, (p) => progress.push(p.bytesDone));
    expect(result).toEqual({ version: 'supertonic-3', executionProvider: 'wasm', sampleRateHz: 44_100, unverified: [] });
    expect(progress).toEqual([1]);
    expect(await tts.voices()).toHaveLength(10);
    expect(await tts.languages()).toHaveLength(31);
    await tts.dispose();
  });

  it('refuses to speak before it is loaded, saying what to do', async () => {
    const { tts } = service();
    await expect(tts.speak(piece(1, 0, 'Hi.'))).rejects.toBeInstanceOf(NotLoadedError);
    await expect(tts.voices()).rejects.toThrow(/call load\(\) first/);
  });

  it('hands pieces over in the order they were asked for, each as soon as it is made', async () => {
    const { tts } = service();
    await tts.load(load, () => undefined);
    const done: number[] = [];
    const pieces = [piece(1, 0, 'First.'), piece(1, 1, 'The second piece is longer.'), piece(1, 2, 'Third.')].map((p) =>
      tts.speak(p).then((spoken) => {
        done.push(spoken?.piece ?? -1);
        return spoken;
      }),
    );
    const spoken = await Promise.all(pieces);
    expect(done).toEqual([0, 1, 2]);
    expect(spoken.map((s) => s?.samples.length ?? 0).every((n) => n > 0)).toBe(true);
    expect(spoken[1]?.samples.length).toBeGreaterThan(spoken[0]?.samples.length ?? 0);
    await tts.dispose();
  });

  it('delivers nothing of a cancelled utterance, and goes on with the next one', async () => {
    const { tts } = service();
    await tts.load(load, () => undefined);
    const first = tts.speak(piece(1, 0, 'One.'));
    const second = tts.speak(piece(1, 1, 'Two.'));
    await tts.cancel(1);
    const next = tts.speak(piece(2, 0, 'Three.'));
    expect(await first).toBeNull();
    expect(await second).toBeNull();
    expect((await next)?.utteranceId).toBe(2);
    await tts.dispose();
  });

  it('fetches a voice the first time it is asked for, once', async () => {
    const { tts, fetchedVoices } = service();
    await tts.load(load, () => undefined);
    await tts.speak({ ...piece(1, 0, 'Hello.'), voice: 'M3' });
    await tts.speak({ ...piece(1, 1, 'Again.'), voice: 'M3' });
    expect(fetchedVoices).toEqual(['M3']);
    await expect(tts.speak({ ...piece(1, 2, 'Who?'), voice: 'Z9' })).rejects.toThrow(/no voice "Z9"/);
    await tts.dispose();
  });
});
