/**
 * The kept answer's leak (test/e2e/speech/clips) through the level meter's echo canceller and the
 * page's two gates, as the page hears it, at the lags a capture puts between the player's output
 * and the microphone: the leak alone is never a person, and a person over it still is.
 *
 * The lag moves from launch to launch (0–10 ms through the fake microphone, 20–60 ms on real
 * devices), and at some lags the filter drifts on one loud syllable of the answer: its residual
 * there was nearly as loud as the microphone while its enhancement stayed trusted, and the second
 * gate took it for a person (a false barge-in 4.1 s into the answer, one CI run in four).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOM_GATE } from '../../../src/app/hearing';
import { hearPair, startGatePair } from '../../../src/core/speech/gatePair';
import type { GatePairFrame } from '../../../src/core/speech/gatePair';
import { EchoCanceller } from '../../../src/platform/audio/echoCanceller';
import type { CancelledFrame } from '../../../src/platform/audio/echoCanceller';
import { answerSpeech, CLIPS_DIR, GAP_MS, msToSamples, RATE_HZ, trimmed } from '../../e2e/speech/bargeInSpeech';
import { readWav } from '../../e2e/speech/wav';
import { seededRandom } from '../../helpers/random';

const FRAME = RATE_HZ / 100;
/** A second of quiet room before the answer, as the page hears before it speaks. */
const LEAD = RATE_HZ;

const dir = mkdtempSync(join(tmpdir(), 'cancelled-leak-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
const answer = answerSpeech(dir);
const pieces = answer.assistant.pieces.map((name) => readWav(join(dir, name)).samples);
const question = trimmed(readWav(join(CLIPS_DIR, 'person-question.wav')).samples, 1);

/** The player's output, heard by the microphone `lagMs` later at `leakLevel` over a faint room, and when the output sounds. */
function room(leakLevel: number, lagMs: number): { microphone: Float32Array; output: Float32Array; from: number; to: number } {
  const length = LEAD + answer.leak.length;
  const output = new Float32Array(length);
  const from = LEAD - msToSamples(lagMs);
  let at = from;
  for (const piece of pieces) {
    output.set(piece, at);
    at += piece.length + msToSamples(GAP_MS);
  }
  const random = seededRandom(7);
  const microphone = Float32Array.from({ length }, (_, i) => 0.003 * (random() * 2 - 1) + (i >= LEAD ? leakLevel * (answer.leak[i - LEAD] ?? 0) : 0));
  return { microphone, output, from, to: at };
}

/** When, in ms after the answer's first sample reaches the microphone, the page's gates hear a person. */
function bargeInsMs(microphone: Float32Array, output: Float32Array, from: number, to: number): number[] {
  const canceller = new EchoCanceller(RATE_HZ, FRAME);
  const cancelled: CancelledFrame[] = [];
  for (let at = 0; at < microphone.length; at += 128) {
    const length = Math.min(128, microphone.length - at);
    canceller.push(microphone.subarray(at, at + length), output.subarray(at, at + length), length, at, (frame) => cancelled.push(frame));
  }
  let gates = startGatePair(ROOM_GATE);
  const heard: number[] = [];
  cancelled.forEach(({ residual, echoLeft }, k) => {
    const start = k * FRAME;
    let level = 0;
    let assistantLevel = 0;
    for (let i = start; i < start + FRAME; i++) {
      level = Math.max(level, Math.abs(microphone[i] ?? 0));
      assistantLevel = Math.max(assistantLevel, Math.abs(output[i] ?? 0));
    }
    const atMs = ((start + FRAME) / RATE_HZ) * 1000;
    const frame: GatePairFrame = { level, atMs, assistantAudible: start + FRAME > from && start < to, assistantLevel };
    const next = hearPair(gates, residual === null ? frame : { ...frame, cancelledLevel: residual, echoLeft });
    gates = next.state;
    if (next.bargeIn) heard.push(atMs - (LEAD / RATE_HZ) * 1000);
  });
  return heard;
}

describe('the kept answer’s leak through the canceller and both gates', () => {
  it.each([
    [0.5, 0],
    [0.5, 11],
    [0.7, 11],
    [0.5, 23],
    [0.7, 23],
  ])('is no person at leak %f, %i ms late', (leakLevel, lagMs) => {
    const { microphone, output, from, to } = room(leakLevel, lagMs);
    expect(bargeInsMs(microphone, output, from, to)).toEqual([]);
  });

  it.each([2000, 3000, 4100, 5000])('still hears a person asking a question %i ms in, twice as loud as a 0.5 leak 23 ms late, within 200 ms', (onsetMs) => {
    const { microphone, output, from, to } = room(0.5, 23);
    const onset = LEAD + msToSamples(onsetMs);
    for (let i = 0; i < question.length && onset + i < microphone.length; i++) microphone[onset + i] = (microphone[onset + i] ?? 0) + (question[i] ?? 0);
    const heard = bargeInsMs(microphone, output, from, to);
    expect(heard).toHaveLength(1);
    expect(heard[0] ?? 0).toBeGreaterThanOrEqual(onsetMs);
    expect(heard[0] ?? Infinity).toBeLessThan(onsetMs + 200);
  });
});
