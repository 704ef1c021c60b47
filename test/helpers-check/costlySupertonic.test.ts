import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkGraph, GRAPHS } from '../../common/voice/contract';
import type { GraphName } from '../../common/voice/contract';
import { readVoiceStyle } from '../../common/voice/style';
import { textToIds } from '../../common/voice/text';
import { SupertonicEngine } from '../../workers/supertonic';
import { buildCostlyGraphs, expectedDuration, SAMPLES_PER_FRAME, SUPERTONIC_2_PARAMS } from '../helpers/costlySupertonic';
import type { CostlyGraphs } from '../helpers/costlySupertonic';
import { indexer, ttsJson, voiceJson } from '../helpers/supertonicData';

ort.env.wasm.numThreads = 1;

/** Widths an eighth of the real ones, parameters a sixty-fourth: the same graphs in well under a second. */
const SHRINK = 8;

let built: CostlyGraphs;

beforeAll(() => {
  built = buildCostlyGraphs({ shrink: SHRINK });
});

describe('costlySupertonic', () => {
  it('gives each graph exactly its target parameter count, the real one over the shrink squared', () => {
    for (const graph of GRAPHS) {
      expect(built.report[graph].params).toBe(Math.round(SUPERTONIC_2_PARAMS[graph] / SHRINK ** 2));
    }
  });

  it('spends most of its parameters per row, as the real graphs do', () => {
    for (const graph of ['text_encoder', 'vector_estimator', 'vocoder'] as const) {
      const { params, macsPerRow } = built.report[graph];
      expect(macsPerRow / params).toBeGreaterThan(0.5);
    }
  });

  it('builds the same bytes from the same seed and other weights from another', () => {
    const again = buildCostlyGraphs({ shrink: SHRINK });
    const reseeded = buildCostlyGraphs({ shrink: SHRINK, seed: 2 });
    // Buffer comparison: vitest's deep equality walks megabytes element by element.
    const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));
    for (const graph of GRAPHS) {
      expect(same(again.graphs[graph], built.graphs[graph])).toBe(true);
      expect(same(reseeded.graphs[graph], built.graphs[graph])).toBe(false);
    }
  });

  it('refuses a parameter target below what the fixed layers need, saying what to change', () => {
    expect(() => buildCostlyGraphs({ shrink: SHRINK, params: { vector_estimator: 1000 } })).toThrow(/vector_estimator.*smaller shrink/);
  });

  it('loads in onnxruntime-web and matches the contract', async () => {
    for (const graph of GRAPHS) {
      const session = await ort.InferenceSession.create(built.graphs[graph]);
      expect(() => {
        checkGraph(graph, `${graph}.onnx`, { inputs: session.inputMetadata, outputs: session.outputMetadata });
      }).not.toThrow();
      await session.release();
    }
  });

  it('speaks through the engine: predicted length, 3072 samples a frame before trimming, PCM finite and in range', async () => {
    const runs: GraphName[] = [];
    const engine = await SupertonicEngine.create(
      { version: 'supertonic-2', graphs: built.graphs, config: ttsJson('supertonic-2'), indexer: indexer('supertonic-2') },
      { ort, providers: ['wasm'], random: () => 0.3, onRun: (graph) => runs.push(graph) },
    );
    const text = 'We meet at nine by the river.';
    const audio = await engine.synthesise({
      text,
      lang: 'en',
      voice: readVoiceStyle(voiceJson('supertonic-2', 'F1'), 'F1'),
      steps: 4,
      speed: 1.05,
    });
    await engine.release();

    const positions = textToIds(text, 'en', indexer('supertonic-2'), 'supertonic-2').ids.length;
    const samples = Math.floor((expectedDuration(positions) / 1.05) * 44_100);
    expect(audio.samples.length).toBe(samples);
    expect(Math.ceil(samples / SAMPLES_PER_FRAME)).toBeGreaterThan(0);
    expect(runs.filter((graph) => graph === 'vector_estimator')).toHaveLength(4);
    expect(audio.samples.every((s) => Number.isFinite(s) && Math.abs(s) <= 1)).toBe(true);
    expect(audio.samples.some((s) => s !== 0)).toBe(true);
  });
});
