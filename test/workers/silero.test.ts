/**
 * The real Silero VAD v5 graph (as `@ricky0123/vad-web` ships it), run by onnxruntime-web in Node
 * over the committed espeak clips and over noises made here — a cough's shaped burst, a knock, a
 * clatter — and read through the core's hysteresis (`voiceActivity.ts`), as the page will read it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hearActivity, NO_SPEECH } from '../../common/voiceActivity';
import { SPEECH_FRAME_SAMPLES, SPEECH_RATE_HZ } from '../../common/voiceActivity';
import { SpeechFramer } from '../../src/core/hearing/speechFrames';
import { openSilero, SileroContractError } from '../../workers/silero';
import type { Silero } from '../../workers/silero';
import { readWav } from '../e2e/speech/wav';
import { seededRandom } from '../helpers/random';
import { buildTinyGraphs } from '../helpers/tinySupertonic';
import { HEARING } from '../../src/core/hearing/tuning';

ort.env.wasm.numThreads = 1;

const GRAPH = join(createRequire(import.meta.url).resolve('@ricky0123/vad-web/package.json'), '..', 'dist', 'silero_vad_v5.onnx');
const CLIPS = join(import.meta.dirname, '..', 'e2e', 'speech', 'clips');
const FRAME_MS = (SPEECH_FRAME_SAMPLES / SPEECH_RATE_HZ) * 1000;

/** `samples` at `rateHz` brought to 16 kHz as the page's worklet brings them (`SpeechFramer`), whole frames only. */
function to16k(samples: Float32Array, rateHz: number): Float32Array {
  const frames: Float32Array[] = [];
  new SpeechFramer(rateHz).push([samples], samples.length, 0, (frame) => frames.push(frame.samples));
  const out = new Float32Array(frames.length * SPEECH_FRAME_SAMPLES);
  frames.forEach((frame, i) => {
    out.set(frame, i * SPEECH_FRAME_SAMPLES);
  });
  return out;
}

/** A noise burst of `ms` at `level`, shaped by `envelope` (0..1 over the burst), low-passed by `smooth` (0: white). */
function noise(ms: number, level: number, envelope: (t: number) => number, smooth: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const out = new Float32Array(Math.round((ms / 1000) * SPEECH_RATE_HZ));
  let last = 0;
  for (let i = 0; i < out.length; i++) {
    last = smooth * last + (1 - smooth) * (random() * 2 - 1);
    out[i] = level * envelope(i / out.length) * last;
  }
  return out;
}

/** 300 ms of silence, the sound, and 300 ms of silence after it. */
const padded = (sound: Float32Array) => {
  const pad = new Float32Array(Math.round(0.3 * SPEECH_RATE_HZ));
  const out = new Float32Array(pad.length * 2 + sound.length);
  out.set(sound, pad.length);
  return out;
};

/** Each frame's probability, and the times (ms from the start) the hysteresis said speech began. */
async function heard(silero: Silero, samples: Float32Array): Promise<{ probabilities: number[]; speechFromMs: number[] }> {
  silero.reset();
  const probabilities: number[] = [];
  const speechFromMs: number[] = [];
  let state = NO_SPEECH;
  for (let at = 0; at + SPEECH_FRAME_SAMPLES <= samples.length; at += SPEECH_FRAME_SAMPLES) {
    const probability = await silero.speechIn(samples.slice(at, at + SPEECH_FRAME_SAMPLES));
    probabilities.push(probability);
    const next = hearActivity(state, probability, HEARING.voiceActivity);
    if (next.speech && !state.speech) speechFromMs.push((at / SPEECH_FRAME_SAMPLES + 1) * FRAME_MS);
    state = next;
  }
  return { probabilities, speechFromMs };
}

describe('Silero VAD v5 through onnxruntime-web', () => {
  let silero: Silero;
  beforeAll(async () => {
    silero = await openSilero(ort, readFileSync(GRAPH));
  });
  afterAll(async () => {
    await silero.release();
  });

  it('hears the person’s speech in the clips, within a few frames of its start', async () => {
    for (const clip of ['person-word.wav', 'person-question.wav']) {
      const { samples, rateHz } = readWav(join(CLIPS, clip));
      const speech = to16k(samples, rateHz);
      const onsetMs = ((speech.findIndex((s) => Math.abs(s) > 0.02) / SPEECH_RATE_HZ) * 1000);
      const { speechFromMs } = await heard(silero, padded(speech));
      expect(speechFromMs.length, clip).toBeGreaterThan(0);
      // Heard within 200 ms of the first loud sample (the clip starts 300 ms into the padding).
      expect((speechFromMs[0] ?? Infinity) - 300 - onsetMs, clip).toBeLessThan(200);
    }
  });

  it('hears no speech in a cough, a knock or a clatter, at three levels', async () => {
    const cough = (t: number) => Math.min(1, t * 20) * Math.exp(-4 * t);
    const knock = (t: number) => Math.exp(-30 * t);
    const clatter = (t: number) => (Math.floor(t * 7) % 2 === 0 ? Math.exp(-3 * t) : 0.2 * Math.exp(-3 * t));
    for (const level of [0.1, 0.3, 0.8]) {
      const sounds = { cough: noise(300, level, cough, 0.9, 1), knock: noise(80, level, knock, 0.5, 2), clatter: noise(400, level, clatter, 0.2, 3) };
      for (const [what, sound] of Object.entries(sounds)) {
        const { speechFromMs, probabilities } = await heard(silero, padded(sound));
        expect(speechFromMs, `${what} at ${String(level)} (probabilities ${probabilities.map((p) => p.toFixed(2)).join(' ')})`).toEqual([]);
      }
    }
  });

  it('takes frames of its own size only, and refuses a graph that is not Silero v5', async () => {
    await expect(silero.speechIn(new Float32Array(480))).rejects.toThrow(RangeError);
    // Another ONNX graph (the stand-in voice's vocoder) is refused by name.
    await expect(openSilero(ort, buildTinyGraphs().vocoder)).rejects.toThrow(SileroContractError);
  });
});
