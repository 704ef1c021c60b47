/**
 * No silence mid-answer, end to end in Node: the conversation machine, the device speaker and the
 * real worker service on the tiny graphs, played by a device of a chosen speed — each graph run
 * moves a simulated clock by what it would cost there, so the timings are exact and the same on
 * every run, however busy the machine running the test is.
 */
import * as ort from 'onnxruntime-web';
import { describe, expect, it } from 'vitest';
import { realTimeFactor, SAFE_COST } from '../../common/speaking/pace';
import type { VoiceCost } from '../../common/speaking/pace';
import { TALK } from '../../common/talk';
import type { Talk } from '../../common/talk';
import type { TtsApi } from '../../common/voice/api';
import { createTtsService } from '../../workers/ttsService';
import { costedOrt, FRAME_MS, framesOf, positionsOf } from '../helpers/costedOrt';
import { speakPacedAnswer } from '../helpers/pacedAnswer';
import type { SpokenAnswer } from '../helpers/pacedAnswer';
import { LONG_ANSWER } from '../helpers/longAnswer';
import { indexer, ttsJson, voiceJson } from '../helpers/supertonicData';
import { buildTinyGraphs } from '../helpers/tinySupertonic';

ort.env.wasm.numThreads = 1;


/** A device: milliseconds of work per second of audio, as `VoiceCost` counts them. */
interface Device {
  /** The duration predictor and text encoder, per text position. */
  prepareMsPerPosition: number;
  stepMsPerS: number;
  vocodeMsPerS: number;
}

/** A device at a real-time factor of `rtf` at 8 steps, a third of it the vocoder (as the stand-in's is). */
function deviceAt(rtf: number): Device {
  return { prepareMsPerPosition: 1, stepMsPerS: (rtf * 1000 * (2 / 3)) / 8, vocodeMsPerS: (rtf * 1000) / 3 };
}

async function voiceOn(device: Device): Promise<{ tts: TtsApi; nowMs: () => number }> {
  let clockMs = 0;
  const nowMs = () => clockMs;
  const costed = costedOrt(ort, (graph, feeds) => {
    const seconds = (framesOf(graph, feeds) * FRAME_MS) / 1000;
    if (graph === 'vector_estimator') clockMs += device.stepMsPerS * seconds;
    else if (graph === 'vocoder') clockMs += device.vocodeMsPerS * seconds;
    else clockMs += device.prepareMsPerPosition * positionsOf(feeds);
  });
  const tts = createTtsService({
    ort: costed,
    hasWebGpu: false,
    random: () => 0.5,
    nowMs,
    fetchFiles: (request) =>
      Promise.resolve({
        files: { version: request.version, graphs: buildTinyGraphs(), config: ttsJson(request.version), indexer: indexer(request.version) },
        voices: { F1: voiceJson(request.version, 'F1') },
        unverified: [],
      }),
    fetchVoice: (request, voice) => Promise.resolve(voiceJson(request.version, voice)),
  });
  await tts.load({ version: 'supertonic-3', base: { kind: 'hub' }, voices: ['F1'], preferWebGpu: false }, () => undefined);
  return { tts, nowMs };
}

async function speak(device: Device, cost: VoiceCost = SAFE_COST, talk: Partial<Talk> = {}): Promise<SpokenAnswer> {
  const { tts, nowMs } = await voiceOn(device);
  try {
    return await speakPacedAnswer({ tts, text: LONG_ANSWER, cost, nowMs, talk });
  } finally {
    await tts.dispose();
  }
}

describe('an answer on this device', () => {
  it('plays with no silence beyond the gap at a real-time factor of 0.5, every piece at full steps, pieces growing', async () => {
    const spoken = await speak(deviceAt(0.5));
    expect(spoken.stallMs).toBe(0);
    expect(spoken.pieces.map((piece) => piece.steps)).toEqual(spoken.pieces.map(() => TALK.steps));
    expect(spoken.pieces.map((piece) => piece.text).join(' ')).toBe(LONG_ANSWER);
    const lengths = spoken.pieces.map((piece) => piece.text.length);
    expect(Math.max(...lengths.slice(-3))).toBeGreaterThan(lengths[1] ?? Infinity);
    expect(realTimeFactor(spoken.cost, 8)).toBeCloseTo(0.5, 1);
  });

  it('plays with no silence beyond the gap at a real-time factor of 0.9, in more and smaller pieces', async () => {
    const quick = await speak(deviceAt(0.5));
    const slow = await speak(deviceAt(0.9));
    expect(slow.stallMs).toBe(0);
    expect(slow.pieces.length).toBeGreaterThan(quick.pieces.length);
    expect(slow.pieces.map((piece) => piece.text).join(' ')).toBe(LONG_ANSWER);
  });

  const measuredFast: VoiceCost = { prepareMsPerS: 20, stepMsPerS: 25, vocodeMsPerS: 100, audioMsPerChar: 60, pieces: 20, provider: 'wasm' };

  it('makes every piece at full steps by default, even on a device slower than it was last measured', async () => {
    const spoken = await speak(deviceAt(0.95), measuredFast);
    expect(spoken.pieces.map((piece) => piece.steps)).toEqual(spoken.pieces.map(() => TALK.steps));
  });

  it('hurries the pieces that would be late on such a device when the bot sets a floor, never below it, and says so in each piece', async () => {
    const floor = 4;
    const spoken = await speak(deviceAt(0.95), measuredFast, { floor });
    const hurried = spoken.pieces.filter((piece) => piece.steps < piece.stepsAsked);
    expect(hurried.length).toBeGreaterThan(0);
    expect(Math.min(...spoken.pieces.map((piece) => piece.steps))).toBeGreaterThanOrEqual(floor);
    expect(spoken.pieces[0]?.steps).toBe(TALK.opening);
    expect(spoken.stallMs).toBeLessThanOrEqual(300);
  });
});
