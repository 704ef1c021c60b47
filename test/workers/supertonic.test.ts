import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { ModelContractError } from '../../common/voice/contract';
import type { GraphName } from '../../common/voice/contract';
import { readVoiceStyle } from '../../common/voice/style';
import { textToIds } from '../../common/voice/text';
import type { ModelVersion } from '../../common/voice/text';
import { Cancelled, SupertonicEngine } from '../../workers/supertonic';
import type { EngineFiles } from '../../workers/supertonic';
import { indexer, ttsJson, voiceJson } from '../helpers/supertonicData';
import { buildTinyGraphs, expectedDuration, expectedLatentValue, expectedSample } from '../helpers/tinySupertonic';
import type { TinyOptions } from '../helpers/tinySupertonic';

ort.env.wasm.numThreads = 1;

function files(version: ModelVersion = 'supertonic-3', options: TinyOptions = {}): EngineFiles {
  return { version, graphs: buildTinyGraphs(options), config: ttsJson(version), indexer: indexer(version) };
}

interface Run {
  graph: GraphName;
  feeds: Record<string, ort.Tensor>;
}

async function engine(version: ModelVersion = 'supertonic-3', runs: Run[] = []) {
  return SupertonicEngine.create(files(version), {
    ort,
    providers: ['wasm'],
    random: () => 0.5,
    onRun: (graph, feeds) => runs.push({ graph, feeds: { ...feeds } }),
  });
}

const voice = () => readVoiceStyle(voiceJson('supertonic-3', 'F1'), 'F1');

describe('the Supertonic engine', () => {
  let runs: Run[];
  let tts: SupertonicEngine;

  beforeAll(async () => {
    runs = [];
    tts = await engine('supertonic-3', runs);
  });

  it('runs duration, text encoder, N vector-estimator steps with the right step values, then the vocoder', async () => {
    runs.length = 0;
    await tts.synthesise({ text: 'Hello there.', lang: 'en', voice: voice(), steps: 5, speed: 1.05 });
    expect(runs.map((r) => r.graph)).toEqual([
      'duration_predictor',
      'text_encoder',
      ...Array<GraphName>(5).fill('vector_estimator'),
      'vocoder',
    ]);
    const steps = runs.filter((r) => r.graph === 'vector_estimator');
    expect(steps.map((r) => Array.from(r.feeds.current_step?.data as Float32Array))).toEqual([[0], [1], [2], [3], [4]]);
    expect(steps.every((r) => (r.feeds.total_step?.data as Float32Array)[0] === 5)).toBe(true);
  });

  it('feeds the real character ids of the wrapped, normalised text', async () => {
    runs.length = 0;
    await tts.synthesise({ text: 'Café — “ok”', lang: 'en', voice: voice(), steps: 1, speed: 1.05 });
    const ids = Array.from(runs[0]?.feeds.text_ids?.data as BigInt64Array, Number);
    expect(ids).toEqual(textToIds('Café — “ok”', 'en', indexer('supertonic-3'), 'supertonic-3').ids);
    expect(runs[0]?.feeds.text_ids?.dims).toEqual([1, ids.length]);
  });

  it('makes as many latent frames as the predicted duration needs and trims the audio to it', async () => {
    runs.length = 0;
    const text = 'It is a fine day for a walk.';
    const audio = await tts.synthesise({ text, lang: 'en', voice: voice(), steps: 8, speed: 1.05 });
    const characters = textToIds(text, 'en', indexer('supertonic-3'), 'supertonic-3').ids.length;
    const samples = Math.floor((expectedDuration(characters) / 1.05) * 44_100);
    const frames = Math.ceil(samples / 3072);
    expect(runs.find((r) => r.graph === 'vector_estimator')?.feeds.noisy_latent?.dims).toEqual([1, 144, frames]);
    expect(audio.sampleRateHz).toBe(44_100);
    expect(audio.samples.length).toBe(samples);
    expect(audio.samples.every((s) => s === expectedSample(expectedLatentValue(8)))).toBe(true);
  });

  it('asks how many steps to take once it knows the piece’s length, takes them, and says how long each part took', async () => {
    runs.length = 0;
    const text = 'It is a fine day for a walk.';
    const asked: number[] = [];
    const audio = await tts.synthesise({
      text,
      lang: 'en',
      voice: voice(),
      steps: 8,
      speed: 1.05,
      stepsFor: (audioMs) => {
        asked.push(audioMs);
        return 3;
      },
    });
    expect(asked).toEqual([(audio.samples.length / 44_100) * 1000]);
    expect(runs.filter((r) => r.graph === 'vector_estimator')).toHaveLength(3);
    expect(runs.find((r) => r.graph === 'vector_estimator')?.feeds.total_step?.data).toEqual(Float32Array.of(3));
    expect(audio.samples.every((s) => s === expectedSample(expectedLatentValue(3)))).toBe(true);
    expect(audio.steps).toBe(3);
    for (const part of [audio.prepareMs, audio.stepsMs, audio.vocodeMs]) expect(part).toBeGreaterThanOrEqual(0);
  });

  it('takes no more steps than asked and at least one, whatever it is told', async () => {
    const more = await tts.synthesise({ text: 'Hi.', lang: 'en', voice: voice(), steps: 4, speed: 1.05, stepsFor: () => 9 });
    const none = await tts.synthesise({ text: 'Hi.', lang: 'en', voice: voice(), steps: 4, speed: 1.05, stepsFor: () => 0 });
    expect([more.steps, none.steps]).toEqual([4, 1]);
  });

  it('speaks faster and so shorter at a higher speed', async () => {
    const text = 'The museum opens at nine.';
    const normal = await tts.synthesise({ text, lang: 'en', voice: voice(), steps: 2, speed: 1.0 });
    const fast = await tts.synthesise({ text, lang: 'en', voice: voice(), steps: 2, speed: 1.5 });
    expect(fast.samples.length / normal.samples.length).toBeCloseTo(1 / 1.5, 3);
  });

  it('skips characters the table does not know and reports them', async () => {
    const v2 = await engine('supertonic-2');
    const audio = await v2.synthesise({
      text: 'Straße 漢字',
      lang: 'en',
      voice: readVoiceStyle(voiceJson('supertonic-2', 'M1'), 'M1'),
      steps: 1,
      speed: 1.05,
    });
    expect(audio.unknown).toEqual(['ß', '漢', '字']);
    expect(audio.samples.length).toBeGreaterThan(0);
    await v2.release();
  });

  it('says nothing for text with nothing to say', async () => {
    runs.length = 0;
    const audio = await tts.synthesise({ text: ' 🙂 ', lang: 'en', voice: voice(), steps: 8, speed: 1.05 });
    expect(audio.samples.length).toBe(0);
    expect(runs).toEqual([]);
  });

  it('abandons a piece after the graph run in flight once it is cancelled', async () => {
    runs.length = 0;
    let cancelled = false;
    const piece = tts.synthesise({ text: 'A long story.', lang: 'en', voice: voice(), steps: 8, speed: 1.05 }, () => {
      if (runs.length >= 3) cancelled = true;
      return cancelled;
    });
    await expect(piece).rejects.toBeInstanceOf(Cancelled);
    expect(runs.length).toBe(3);
  });

  it('refuses a graph with a wrong input name, naming the file and the difference', async () => {
    const wrong = files('supertonic-3', { renameInput: { graph: 'vector_estimator', from: 'total_step', to: 'steps_total' } });
    const made = SupertonicEngine.create(wrong, { ort, providers: ['wasm'] });
    await expect(made).rejects.toBeInstanceOf(ModelContractError);
    await expect(made).rejects.toThrow(
      'onnx/vector_estimator.onnx is not a Supertonic vector_estimator: input "total_step" is missing; input "steps_total" is not in the contract.',
    );
  });

  it('falls back from WebGPU to WASM from the same bytes when WebGPU cannot start', async () => {
    const reasons: string[] = [];
    const made = await SupertonicEngine.create(files(), { ort, providers: ['webgpu', 'wasm'], onFallback: (r) => reasons.push(r) });
    expect(made.executionProvider).toBe('wasm');
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toMatch(/^webgpu could not start/);
    await made.release();
  });
});
