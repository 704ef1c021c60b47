/**
 * The level meter's echo canceller (echoCanceller.ts): it learns a path from the output to the
 * microphone and takes the output's leak out, says its residual only once it is trusted, leaves a
 * person who is not in the output alone, never trusts a path longer than it can learn, says which
 * frames are its own misfit of the leak, and frames its residual at the level meter's samples.
 */
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { EchoCanceller, resolveEchoCanceller } from '../../../src/core/hearing/echoCanceller';
import type { CancelledFrame } from '../../../src/core/hearing/canceller';
import { PeakFramer } from '../../../src/platform/audio/peakFrames';
import type { LevelMeterMessage } from '../../../src/platform/audio/peakFrames';
import { seededRandom } from '../../helpers/random';

const RATE = 48_000;
const QUANTUM = 128;
const FRAME = 480;

/**
 * A voice-like output: seeded noise, low-passed (most of its energy under 1 kHz), in syllables of
 * 120–250 ms with short gaps, each at its own level.
 */
function voice(seconds: number, seed: number): Float32Array {
  const random = seededRandom(seed);
  const out = new Float32Array(Math.round(RATE * seconds));
  let smooth = 0;
  let at = 0;
  while (at < out.length) {
    const length = Math.round(RATE * (0.12 + 0.13 * random()));
    const level = 0.3 + 0.5 * random();
    for (let i = 0; i < length && at + i < out.length; i++) {
      smooth += 0.15 * (random() * 2 - 1 - smooth);
      out[at + i] = level * smooth * Math.sin((Math.PI * i) / length);
    }
    at += length + Math.round(RATE * 0.03 * random());
  }
  return out;
}

/** The output heard `delayMs` later through a small speaker and a near wall: a direct sound and two echoes, at `gain`. */
function leakOf(output: Float32Array, delayMs: number, gain: number): Float32Array {
  const delay = Math.round((delayMs / 1000) * RATE);
  const taps: [number, number][] = [
    [0, 1],
    [1, -0.6],
    [Math.round(0.004 * RATE), 0.35],
    [Math.round(0.009 * RATE), -0.2],
  ];
  const out = new Float32Array(output.length);
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (const [lag, weight] of taps) sum += weight * (output[i - delay - lag] ?? 0);
    out[i] = gain * sum;
  }
  return out;
}

function cancel(microphone: Float32Array, output: Float32Array, canceller = new EchoCanceller(RATE, FRAME)): CancelledFrame[] {
  const frames: CancelledFrame[] = [];
  for (let at = 0; at < microphone.length; at += QUANTUM) {
    const mic = microphone.subarray(at, at + QUANTUM);
    canceller.push(mic, output.subarray(at, at + QUANTUM), mic.length, at, (frame) => frames.push(frame));
  }
  return frames;
}

function peakBetween(samples: Float32Array, from: number, to: number): number {
  let peak = 0;
  for (let i = from; i < to; i++) peak = Math.max(peak, Math.abs(samples[i] ?? 0));
  return peak;
}

describe('EchoCanceller', () => {
  it('learns the path within two and a half seconds and takes the leak’s peaks down by more than 12 dB', () => {
    const output = voice(4, 7);
    const microphone = leakOf(output, 20, 0.4);
    const frames = cancel(microphone, output);
    const settled = frames.filter((f) => f.endSample > RATE * 2.5);
    expect(settled.every((f) => f.residual !== null)).toBe(true);
    const leakPeak = peakBetween(microphone, RATE * 2.5, microphone.length);
    const residualPeak = Math.max(...settled.map((f) => f.residual ?? 1));
    expect(leakPeak).toBeGreaterThan(0.05);
    expect(20 * Math.log10(leakPeak / residualPeak)).toBeGreaterThan(12);
  });

  it('says nothing of its residual until it has learned enough to be trusted', () => {
    const output = voice(2, 11);
    const frames = cancel(leakOf(output, 20, 0.4), output);
    expect(frames[0]?.residual).toBeNull();
    expect(frames.findIndex((f) => f.residual !== null)).toBeGreaterThan(3);
  });

  it('never trusts a path longer than its filter, so the gate keeps judging the microphone as it comes', () => {
    const output = voice(3, 13);
    const frames = cancel(leakOf(output, 120, 0.4), output);
    expect(frames.every((f) => f.residual === null)).toBe(true);
  });

  it('leaves a person who is not in the output within 3 dB of as loud as they are', () => {
    const output = voice(4, 17);
    const leak = leakOf(output, 20, 0.4);
    const person = voice(0.4, 19);
    const from = Math.round(RATE * 3);
    const microphone = Float32Array.from(leak, (s, i) => s + (i >= from && i - from < person.length ? 0.5 * (person[i - from] ?? 0) : 0));
    const frames = cancel(microphone, output);
    const during = frames.filter((f) => f.endSample > from && f.endSample <= from + person.length && f.residual !== null);
    expect(during.length).toBeGreaterThan(3);
    // The person alone, through a canceller that learns nothing, is the person at 16 kHz.
    const alone = new EchoCanceller(RATE, FRAME, { step: 1e-9, trustDb: -100, distrustDb: -200 });
    const personOnly = Float32Array.from(microphone, (s, i) => s - (leak[i] ?? 0));
    const heard = cancel(personOnly, new Float32Array(output.length).fill(0.01), alone).filter((f) => f.endSample > from && f.endSample <= from + person.length);
    const personPeak = Math.max(...heard.map((f) => f.residual ?? 0));
    expect(personPeak).toBeGreaterThan(0.05);
    // The filter keeps learning while they talk, and chases a little of them: under 3 dB.
    expect(Math.max(...during.map((f) => f.residual ?? 0))).toBeGreaterThan(0.7 * personPeak);
  });

  it('cancels as well after a loud clatter as before it', () => {
    const output = voice(5, 23);
    const leak = leakOf(output, 20, 0.4);
    const random = seededRandom(29);
    const from = Math.round(RATE * 2);
    const clatter = Float32Array.from(leak, (s, i) => {
      const into = i - from;
      if (into < 0 || into >= RATE * 0.15) return s;
      // Sparse hits, each ringing for a millisecond: a dropped spoon.
      const hit = into % 1200 < 48 ? Math.exp(-(into % 1200) / 10) : 0;
      return Math.max(-1, Math.min(1, s + hit * (random() * 2 - 1)));
    });
    const after = (frames: CancelledFrame[]) => Math.max(...frames.filter((f) => f.endSample > RATE * 2.5).map((f) => f.residual ?? 1));
    const quiet = after(cancel(leak, output));
    const hit = after(cancel(clatter, output));
    expect(20 * Math.log10(hit / quiet)).toBeLessThan(2);
  });

  /**
   * The leak with the capture dropping `dropMs` of samples (digital silence, as a starved capture
   * hands the audio graph) `atS` seconds in, and coming back `lateMs` later than before; a faint
   * room noise everywhere else, as a real microphone never gives exact zeros.
   */
  function droppedOut(leak: Float32Array, atS: number, dropMs: number, lateMs: number): Float32Array {
    const from = Math.round(RATE * atS);
    const to = from + Math.round((RATE * dropMs) / 1000);
    const late = Math.round((RATE * lateMs) / 1000);
    const noise = seededRandom(31);
    return Float32Array.from(leak, (s, i) => (i < from ? s : i < to ? 0 : (leak[i - late] ?? 0)) + (i >= from && i < to ? 0 : 0.002 * (noise() * 2 - 1)));
  }

  it('says nothing of its residual from the frame the capture drops out, and trusts it again once the path is learned', () => {
    const output = voice(6, 7);
    const at = 3.15;
    const frames = cancel(droppedOut(leakOf(output, 20, 0.4), at, 20, 0), output);
    const before = frames.filter((f) => f.endSample > RATE * 2.5 && f.endSample <= RATE * at);
    expect(before.every((f) => f.residual !== null)).toBe(true);
    // The frame the drop begins in: what it would say is the filter's estimate, not anything heard.
    const dropped = frames.find((f) => f.endSample > RATE * at);
    expect(dropped?.residual).toBeNull();
    const after = frames.filter((f) => f.endSample > RATE * (at + 2));
    expect(after.length).toBeGreaterThan(50);
    expect(after.every((f) => f.residual !== null)).toBe(true);
  });

  it.each([10, 20, 40])('never hands on the leak as residual when the capture comes back %i ms later than before', (lateMs) => {
    const output = voice(8, 7);
    const at = 3.15;
    const frames = cancel(droppedOut(leakOf(output, 20, 0.4), at, 20, lateMs), output);
    const usual = Math.max(...frames.filter((f) => f.endSample > RATE * 2.5 && f.endSample <= RATE * at).map((f) => f.residual ?? 1));
    const after = frames.filter((f) => f.endSample > RATE * at);
    // Until the new path is learned nothing is said; once it is, the residual is within 6 dB of
    // before (and the gate starts afresh on it), never the leak it was failing to take out.
    expect(after.slice(0, 50).every((f) => f.residual === null)).toBe(true);
    expect(Math.max(...after.map((f) => f.residual ?? 0))).toBeLessThan(2 * usual);
    expect(after.some((f) => f.residual !== null)).toBe(true);
  });

  it('flags none of its frames as its own misfit once it has learned a steady leak', () => {
    const output = voice(6, 7);
    const frames = cancel(leakOf(output, 20, 0.4), output);
    const settled = frames.filter((f) => f.endSample > RATE * 2.5);
    expect(settled.length).toBeGreaterThan(300);
    expect(settled.filter((f) => f.echoLeft)).toEqual([]);
  });

  it('flags as its misfit the frames after the speaker is turned down mid-answer, which its trust does not see', () => {
    const output = voice(6, 7);
    const at = Math.round(RATE * 3);
    const microphone = Float32Array.from(leakOf(output, 20, 0.8), (s, i) => (i < at ? s : 0.6 * s));
    const frames = cancel(microphone, output);
    // The filter still takes out the louder leak: its residual is the leak's own shape, turned over.
    const after = frames.filter((f) => f.endSample > at && f.endSample <= at + RATE * 0.5);
    expect(after.every((f) => f.residual !== null)).toBe(true);
    expect(after.filter((f) => f.echoLeft).length).toBeGreaterThan(0.8 * after.length);
  });

  it.each([0.2, 0.5, 1])('does not take a person at %f over a learned leak for its misfit', (gain) => {
    const output = voice(4, 17);
    const leak = leakOf(output, 20, 0.4);
    const person = voice(0.4, 19);
    const from = Math.round(RATE * 3);
    const microphone = Float32Array.from(leak, (s, i) => s + (i >= from && i - from < person.length ? gain * (person[i - from] ?? 0) : 0));
    const during = cancel(microphone, output).filter((f) => f.endSample > from && f.endSample <= from + person.length);
    expect(during.length).toBe(40);
    expect(during.filter((f) => f.echoLeft)).toEqual([]);
  });

  it('learns nothing, and trusts nothing, from an output that is silent', () => {
    const silence = new Float32Array(RATE * 2);
    const noise = seededRandom(3);
    const microphone = Float32Array.from(silence, () => 0.01 * (noise() * 2 - 1));
    const canceller = new EchoCanceller(RATE, FRAME);
    const frames = cancel(microphone, silence, canceller);
    expect(frames.every((f) => f.residual === null)).toBe(true);
    expect(canceller.enhancementDb).toBe(0);
  });

  it.each([48_000, 44_100])('ends its frames at the level meter’s samples at %i Hz', (rateHz) => {
    const frameSamples = Math.round(rateHz / 100);
    const canceller = new EchoCanceller(rateHz, frameSamples);
    const meter = new PeakFramer(frameSamples);
    const cancelled: number[] = [];
    const metered: number[] = [];
    const block = new Float32Array(QUANTUM);
    for (let at = 0; at < rateHz / 2; at += QUANTUM) {
      canceller.push(block, block, QUANTUM, 1000 + at, (frame) => cancelled.push(frame.endSample));
      meter.push([block], QUANTUM, 1000 + at, (frame: LevelMeterMessage) => metered.push(frame.endSample));
    }
    expect(cancelled).toEqual(metered);
  });

  it('names the option a person must fix', () => {
    expect(() => resolveEchoCanceller({ taps: 8 })).toThrow('echoCanceller.taps is 8; it must be a whole number from 16 to 8192.');
    expect(() => resolveEchoCanceller({ step: 0 })).toThrow(OptionError);
    expect(() => resolveEchoCanceller({ trustDb: 4, distrustDb: 5 })).toThrow('echoCanceller.distrustDb is 5; it must be under echoCanceller.trustDb (4).');
    expect(() => resolveEchoCanceller({ misfitCorrelation: 0 })).toThrow('echoCanceller.misfitCorrelation is 0; it must be a number over 0.');
    expect(() => new EchoCanceller(8000, FRAME)).toThrow('echoCanceller.inputRateHz is 8000; it must be a number, 16000 or more.');
    expect(() => new EchoCanceller(RATE, 0)).toThrow('echoCanceller.frameSamples is 0; it must be a whole number, 1 or more.');
  });
});
