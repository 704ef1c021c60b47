import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import type { VoiceCost } from '../../common/speaking/pace';
import type { LoadRequest, SpeakRequest, SpokenPiece } from '../../common/voice/api';
import { createTtsService, NotLoadedError } from '../../workers/ttsService';
import type { TtsServiceDeps } from '../../workers/ttsService';
import { indexer, ttsJson, voiceJson } from '../helpers/supertonicData';
import { buildTinyGraphs, expectedLatentValue, expectedSample } from '../helpers/tinySupertonic';

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

  it('reports how each piece was made: its characters, audio, speed, steps, the time of each part, and where', async () => {
    const { tts } = service();
    await tts.load(load, () => undefined);
    const spoken = await tts.speak(piece(1, 0, 'Hello there.'));
    expect(spoken?.timing).toMatchObject({ chars: 12, speed: 1.05, steps: 4, provider: 'wasm' });
    expect(spoken?.timing.audioMs).toBeCloseTo(((spoken?.samples.length ?? 0) / 44_100) * 1000, 9);
    await tts.dispose();
  });

  describe('keeping up with playback', () => {
    /** A cost so small that any piece is in time, and one so large that none is. */
    const QUICK: VoiceCost = { prepareMsPerS: 0.001, stepMsPerS: 0.001, vocodeMsPerS: 0.001, audioMsPerChar: 60, pieces: 50, provider: 'wasm' };
    const paced = (request: SpeakRequest, cost: VoiceCost = QUICK): SpeakRequest => ({ ...request, steps: 8, pacing: { floor: 3, gapMs: 120, cost } });

    async function clocked() {
      let clockMs = 0;
      const made = service({ nowMs: () => clockMs });
      await made.tts.load(load, () => undefined);
      return { tts: made.tts, at: (ms: number) => (clockMs = ms) };
    }

    const stepsOf = (spoken: SpokenPiece | null) => spoken?.timing.steps;
    const madeWith = (spoken: SpokenPiece | null, steps: number) => spoken?.samples.every((s) => s === expectedSample(expectedLatentValue(steps)));

    it('makes every piece with the steps asked when each will be ready before the one before it has played out', async () => {
      const { tts } = await clocked();
      const spoken = await Promise.all([0, 1, 2].map((i) => tts.speak(paced(piece(1, i, 'A sentence of some length.')))));
      expect(spoken.map(stepsOf)).toEqual([8, 8, 8]);
      expect(madeWith(spoken[2] ?? null, 8)).toBe(true);
      await tts.dispose();
    });

    it('makes a piece that would be late with fewer steps, never fewer than the floor, and says so', async () => {
      const { tts, at } = await clocked();
      const slow: VoiceCost = { ...QUICK, stepMsPerS: 400, vocodeMsPerS: 100 };
      await tts.speak(paced(piece(1, 0, 'A sentence of some length.'), slow));
      // The opening's audio (about 2 s) has long played out: the next piece is as late as can be.
      at(60_000);
      const late = await tts.speak(paced(piece(1, 1, 'Another sentence, rather longer than the first one.'), slow));
      expect(stepsOf(late)).toBe(3);
      expect(madeWith(late, 3)).toBe(true);
      await tts.dispose();
    });

    it('never hurries the opening of an utterance, which nothing plays before', async () => {
      const { tts, at } = await clocked();
      const slow: VoiceCost = { ...QUICK, stepMsPerS: 400, vocodeMsPerS: 100 };
      await tts.speak(paced(piece(1, 0, 'A sentence of some length.'), slow));
      at(60_000);
      expect(stepsOf(await tts.speak(paced(piece(2, 0, 'A new question’s answer.'), slow)))).toBe(8);
      await tts.dispose();
    });

    it('makes every piece with the steps asked when it is not asked to keep up', async () => {
      const { tts, at } = await clocked();
      await tts.speak({ ...piece(1, 0, 'A sentence of some length.'), steps: 8 });
      at(60_000);
      expect(stepsOf(await tts.speak({ ...piece(1, 1, 'Another sentence.'), steps: 8 }))).toBe(8);
      await tts.dispose();
    });
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
