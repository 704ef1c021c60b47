import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTRACT, GRAPHS, LATENT_CHANNELS, TEXT_EMBEDDING, type GraphName } from '../../common/voice/contract';
import {
  SAMPLES_PER_FRAME,
  buildTinyGraphs,
  expectedDuration,
  expectedLatentValue,
  expectedSample,
} from '../helpers/tinySupertonic';

ort.env.wasm.numThreads = 1;

/** Text length (characters), latent length (frames) and unmasked frames of the single-utterance cases. */
const T = 7;
const L = 5;
const SPOKEN_FRAMES = 3;

const sessions = {} as Record<GraphName, ort.InferenceSession>;

beforeAll(async () => {
  const graphs = buildTinyGraphs();
  for (const graph of GRAPHS) sessions[graph] = await ort.InferenceSession.create(graphs[graph]);
});

function float32(values: ArrayLike<number>, dims: readonly number[]): ort.Tensor {
  return new ort.Tensor('float32', Float32Array.from(values), dims);
}

function int64(values: readonly number[], dims: readonly number[]): ort.Tensor {
  return new ort.Tensor('int64', BigInt64Array.from(values, BigInt), dims);
}

function filled(length: number, value: (index: number) => number): number[] {
  return Array.from({ length }, (_, index) => value(index));
}

/** Non-integer, sign-changing values standing in for Gaussian noise; reproducible without a seed. */
function noise(length: number): number[] {
  return filled(length, (index) => Math.sin(index * 12.9898 + 1) * 1.7);
}

/** Runs one graph and returns its only output. */
async function run(graph: GraphName, feeds: Record<string, ort.Tensor>): Promise<ort.Tensor> {
  const [output] = CONTRACT[graph].outputs;
  if (!output) throw new Error(`${graph} has no output in the contract`);
  const result = (await sessions[graph].run(feeds))[output.name];
  if (!result) throw new Error(`${graph} returned no ${output.name}`);
  return result;
}

function data(tensor: ort.Tensor): Float32Array {
  if (!(tensor.data instanceof Float32Array)) throw new Error(`expected float32 data, got ${tensor.type}`);
  return tensor.data;
}

/** Latent mask [1,1,L]: 1 over the first `spoken` frames. */
function latentMask(spoken: number): ort.Tensor {
  return float32(filled(L, (frame) => (frame < spoken ? 1 : 0)), [1, 1, L]);
}

interface Loop {
  steps: number;
  /** The `current_step` fed at loop index `step`; the engine's contract is `step` itself. */
  currentStep?: (step: number) => number;
  /** The `total_step` fed at every step; the contract is `steps`. */
  totalStep?: number;
  /** Feed each output back in as the next `noisy_latent`, as the contract says. */
  feedBack?: boolean;
}

/** Runs the vector estimator the way the engine should (or, with options, the ways it must not). */
async function denoise(start: readonly number[], mask: ort.Tensor, loop: Loop): Promise<Float32Array> {
  const { steps, currentStep = (step: number) => step, totalStep = steps, feedBack = true } = loop;
  const initial = float32(start, [1, LATENT_CHANNELS, L]);
  let latent = initial;
  for (let step = 0; step < steps; step += 1) {
    latent = await run('vector_estimator', {
      noisy_latent: feedBack ? latent : initial,
      text_emb: float32(filled(TEXT_EMBEDDING * T, (index) => index % 11), [1, TEXT_EMBEDDING, T]),
      style_ttl: float32(noise(50 * 256), [1, 50, 256]),
      latent_mask: mask,
      text_mask: float32(filled(T, () => 1), [1, 1, T]),
      current_step: float32([currentStep(step)], [1]),
      total_step: float32([totalStep], [1]),
    });
  }
  return data(latent);
}

describe('tinySupertonic', () => {
  it('builds four graphs of under 100 KB each, byte-identical from one build to the next', () => {
    const first = buildTinyGraphs();
    const second = buildTinyGraphs();
    for (const graph of GRAPHS) {
      expect(first[graph].byteLength).toBeLessThan(100_000);
      expect(second[graph]).toEqual(first[graph]);
    }
  });

  it.each(GRAPHS)("%s loads with exactly the contract's input and output names, in order", (graph) => {
    expect(sessions[graph].inputNames).toEqual(CONTRACT[graph].inputs.map((spec) => spec.name));
    expect(sessions[graph].outputNames).toEqual(CONTRACT[graph].outputs.map((spec) => spec.name));
  });

  it.each(GRAPHS)(
    "%s reports the contract's element types and dims, fixed ones as numbers and symbolic ones by letter",
    (graph) => {
      const asMetadata = (spec: (typeof CONTRACT)[GraphName]['inputs'][number]) => ({
        name: spec.name,
        isTensor: true,
        type: spec.type,
        shape: spec.dims,
      });
      expect(sessions[graph].inputMetadata).toEqual(CONTRACT[graph].inputs.map(asMetadata));
      expect(sessions[graph].outputMetadata).toEqual(CONTRACT[graph].outputs.map(asMetadata));
    },
  );

  it('duration_predictor answers secondsPerChar × the unmasked characters of each utterance, in float32', async () => {
    const ids = filled(2 * T, (index) => 40 + index);
    const mask = filled(2 * T, (index) => (index < 5 || index >= T ? 1 : 0));
    const duration = await run('duration_predictor', {
      text_ids: int64(ids, [2, T]),
      style_dp: float32(noise(2 * 8 * 16), [2, 8, 16]),
      text_mask: float32(mask, [2, 1, T]),
    });
    expect(duration.dims).toEqual([2]);
    expect(Array.from(data(duration))).toEqual([expectedDuration(5), expectedDuration(T)]);
  });

  it('duration_predictor uses the secondsPerChar it was built with', async () => {
    const session = await ort.InferenceSession.create(buildTinyGraphs({ secondsPerChar: 0.1 }).duration_predictor);
    const result = await session.run({
      text_ids: int64(filled(T, () => 3), [1, T]),
      style_dp: float32(noise(8 * 16), [1, 8, 16]),
      text_mask: float32(filled(T, (index) => (index < 6 ? 1 : 0)), [1, 1, T]),
    });
    expect(result.duration?.data).toEqual(Float32Array.of(expectedDuration(6, 0.1)));
  });

  it('duration_predictor refuses a text_mask whose length disagrees with text_ids', async () => {
    await expect(
      run('duration_predictor', {
        text_ids: int64(filled(T, () => 3), [1, T]),
        style_dp: float32(noise(8 * 16), [1, 8, 16]),
        text_mask: float32(filled(T + 2, () => 1), [1, 1, T + 2]),
      }),
    ).rejects.toThrow();
  });

  it('text_encoder repeats text_id × text_mask over all 256 channels', async () => {
    const ids = [60, 101, 110, 62, 72, 105, 0];
    const mask = [1, 1, 1, 1, 1, 1, 0];
    const embedding = await run('text_encoder', {
      text_ids: int64(ids, [1, T]),
      style_ttl: float32(noise(50 * 256), [1, 50, 256]),
      text_mask: float32(mask, [1, 1, T]),
    });
    expect(embedding.dims).toEqual([1, TEXT_EMBEDDING, T]);
    const row = ids.map((id, index) => id * (mask[index] ?? 0));
    expect(Array.from(data(embedding))).toEqual(filled(TEXT_EMBEDDING * T, (index) => row[index % T] ?? Number.NaN));
  });

  it.each([
    [1, 1],
    [3, 18],
    [8, 288],
  ])(
    'after %i steps fed back, every unmasked latent cell holds exactly %i and masked cells keep their start',
    async (steps, value) => {
      expect(expectedLatentValue(steps)).toBe(value);
      const start = noise(LATENT_CHANNELS * L);
      const latent = await denoise(start, latentMask(SPOKEN_FRAMES), { steps });
      const expected = start.map((cell, index) => (index % L < SPOKEN_FRAMES ? value : Math.fround(cell)));
      expect(Array.from(latent)).toEqual(expected);
    },
  );

  it('ends elsewhere when the loop does not feed back, counts from 1, misstates the total or stops early', async () => {
    const start = noise(LATENT_CHANNELS * L);
    const mask = latentMask(L);
    const right = expectedLatentValue(3);
    const wrongLoops: Loop[] = [
      { steps: 3, feedBack: false },
      { steps: 3, currentStep: (step) => step + 1 },
      { steps: 3, totalStep: 2 },
      { steps: 2, totalStep: 3 },
    ];
    for (const loop of wrongLoops) {
      const latent = await denoise(start, mask, loop);
      expect(latent.every((cell) => cell !== right)).toBe(true);
    }
  });

  it('vocoder holds each frame’s channel mean × 2⁻¹⁵ for 3072 samples', async () => {
    const channelValue = (channel: number, frame: number) => (frame + 1) * 100 + (channel % 7) - 3;
    const latent = filled(LATENT_CHANNELS * L, (index) => channelValue(Math.floor(index / L), index % L));
    const wav = await run('vocoder', { latent: float32(latent, [1, LATENT_CHANNELS, L]) });
    expect(wav.dims).toEqual([1, L * SAMPLES_PER_FRAME]);
    const frameSample = filled(L, (frame) => {
      const sum = filled(LATENT_CHANNELS, (channel) => channelValue(channel, frame)).reduce((a, b) => a + b, 0);
      return expectedSample(Math.fround(sum / LATENT_CHANNELS));
    });
    const samples = data(wav);
    for (let frame = 0; frame < L; frame += 1) {
      const held = samples.subarray(frame * SAMPLES_PER_FRAME, (frame + 1) * SAMPLES_PER_FRAME);
      expect(held.every((sample) => sample === frameSample[frame])).toBe(true);
    }
  });

  it('run in the engine\'s order, the graphs give expectedSample(expectedLatentValue(N)) throughout', async () => {
    const steps = 8;
    const ids = [60, 101, 110, 62, 72, 105, 60];
    const textMask = float32(filled(T, () => 1), [1, 1, T]);
    const styleTtl = float32(noise(50 * 256), [1, 50, 256]);
    const duration = await run('duration_predictor', {
      text_ids: int64(ids, [1, T]),
      style_dp: float32(noise(8 * 16), [1, 8, 16]),
      text_mask: textMask,
    });
    const wavLength = Math.floor((data(duration)[0] ?? 0) * 44_100);
    const frames = Math.ceil(wavLength / SAMPLES_PER_FRAME);
    const textEmb = await run('text_encoder', {
      text_ids: int64(ids, [1, T]),
      style_ttl: styleTtl,
      text_mask: textMask,
    });
    const mask = float32(filled(frames, () => 1), [1, 1, frames]);
    let latent = float32(noise(LATENT_CHANNELS * frames), [1, LATENT_CHANNELS, frames]);
    for (let step = 0; step < steps; step += 1) {
      latent = await run('vector_estimator', {
        noisy_latent: latent,
        text_emb: textEmb,
        style_ttl: styleTtl,
        latent_mask: mask,
        text_mask: textMask,
        current_step: float32([step], [1]),
        total_step: float32([steps], [1]),
      });
    }
    const wav = data(await run('vocoder', { latent })).subarray(0, wavLength);
    expect(wavLength).toBe(Math.floor(expectedDuration(T) * 44_100));
    expect(wav.every((sample) => sample === expectedSample(expectedLatentValue(steps)))).toBe(true);
  });

  it('renameInput gives that graph an input of the new name and leaves the other graphs byte-identical', async () => {
    const plain = buildTinyGraphs();
    const renameInput = { graph: 'vector_estimator', from: 'current_step', to: 'timestep' } as const;
    const renamed = buildTinyGraphs({ renameInput });
    const session = await ort.InferenceSession.create(renamed.vector_estimator);
    expect(session.inputNames).toEqual([
      'noisy_latent',
      'text_emb',
      'style_ttl',
      'latent_mask',
      'text_mask',
      'timestep',
      'total_step',
    ]);
    for (const graph of GRAPHS.filter((name) => name !== 'vector_estimator')) {
      expect(renamed[graph]).toEqual(plain[graph]);
    }
  });

  it('renameInput of an input the graph lacks throws, naming the inputs it has', () => {
    expect(() => buildTinyGraphs({ renameInput: { graph: 'vocoder', from: 'text_ids', to: 'ids' } })).toThrow(
      'vocoder has no input "text_ids"; its inputs are latent',
    );
  });

  it('refuses a secondsPerChar that is not a positive number of seconds', () => {
    expect(() => buildTinyGraphs({ secondsPerChar: 0 })).toThrow(RangeError);
    expect(() => buildTinyGraphs({ secondsPerChar: Number.NaN })).toThrow(RangeError);
  });
});
