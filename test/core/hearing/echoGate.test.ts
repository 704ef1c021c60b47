import { describe, expect, it } from 'vitest';
import { hearFrame, listenAgain, startEchoGate } from '../../../src/core/hearing/echoGate';
import { barOf, leakOf } from '../../../src/core/hearing/echoGateBar';
import { OptionError } from '../../../common/options';
import { checkEchoGate } from '../../../src/core/hearing/echoGateOptions';
import { HEARING } from '../../../src/core/hearing/tuning';
import type { EchoGateOptions } from '../../../src/core/hearing/echoGateOptions';
import type { EchoGateState } from '../../../src/core/hearing/echoGateState';
import { feed, silence, steady } from '../../helpers/envelopeFeed';
import { mixLevels, speechEnvelope } from '../../helpers/envelopeSpeech';
import { seededRandom } from '../../helpers/random';

/** A gate that has heard `ms` of a steady leak at `level` while the assistant talked. */
/**
 * Long enough for the margin to have settled: remembered voice fades over `memoryMs`, so `settleMs`
 * of it is reached only after -memoryMs × ln(1 - settleMs / memoryMs) of voice (~11 s).
 */
const SETTLED_MS = Math.ceil(-HEARING.gate.memoryMs * Math.log(1 - HEARING.gate.settleMs / HEARING.gate.memoryMs) / 1000) * 1000 + 3000;

function learned(level: number, ms = SETTLED_MS, options: Partial<EchoGateOptions> = {}): EchoGateState {
  return feed(startEchoGate({ ...HEARING.gate, ...options }), steady(level, ms / 10)).state;
}

/** A speech-shaped leak as the microphone reads it in a quiet room. */
function speechLeak(seed: number, meanLevel: number, durationMs: number): number[] {
  const random = seededRandom(seed);
  return Array.from(speechEnvelope(random, { durationMs, meanLevel, reverbMs: 50 }), (v) => mixLevels(v, 0.01));
}

describe('the bar a person must clear', () => {
  it('settles the bar near 0.48 under a steady 0.35 leak', () => {
    expect(barOf(learned(0.35))).toBeCloseTo(0.48, 2);
  });

  it('settles the bar near 0.76 under a steady 0.55 leak', () => {
    expect(barOf(learned(0.55))).toBeCloseTo(0.76, 2);
  });

  it('keeps the bar at its floor on headphones, so a quiet word interrupts', () => {
    const quiet = learned(0.004);
    expect(barOf(quiet)).toBe(HEARING.gate.floor);
    const word = feed(quiet, [0.08, 0.12, 0.14, 0.15, 0.13, 0.12, 0.1]);
    expect(word.bargeIns).toHaveLength(1);
  });

  it('settles the same bar whatever the frame rate', () => {
    const fine = feed(startEchoGate(HEARING.gate), steady(0.35, SETTLED_MS / 5), { frameMs: 5 }).state;
    const coarse = feed(startEchoGate(HEARING.gate), steady(0.35, SETTLED_MS / 20), { frameMs: 20 }).state;
    expect(barOf(fine)).toBeCloseTo(0.48, 2);
    expect(barOf(coarse)).toBeCloseTo(0.48, 2);
  });

  it('has learned nothing and stands at the floor before it has heard anything', () => {
    const fresh = startEchoGate(HEARING.gate);
    expect(leakOf(fresh)).toBe(0);
    expect(barOf(fresh)).toBe(HEARING.gate.floor);
  });

  it('reports nothing from a quiet room while the assistant talks on headphones', () => {
    const room = feed(startEchoGate(HEARING.gate), steady(0.02, 1000));
    expect(room.bargeIns).toEqual([]);
    expect(barOf(room.state)).toBe(HEARING.gate.floor);
  });
});

describe('how long a person must be over it', () => {
  const gate = learned(0.3);

  it('does not take a one-frame click for a person', () => {
    expect(feed(gate, [0.3, 1, 0.3, 0.3, 0.3, 0.3]).bargeIns).toEqual([]);
  });

  it('does not take a two-frame bump for a person', () => {
    expect(feed(gate, [0.3, 0.9, 0.9, 0.3, 0.3, 0.3]).bargeIns).toEqual([]);
  });

  const start = gate.lastAtMs ?? 0;

  it('hears a person held over the bar across 40 ms, forgiving one frame of it', () => {
    const played = feed(gate, [0.6, 0.6, 0.6, 0.6]);
    expect(played.bargeIns).toEqual([start + 30]);
  });

  it('forgives a single dipped frame inside the hold', () => {
    const played = feed(gate, [0.6, 0.6, 0.3, 0.6, 0.6]);
    expect(played.bargeIns).toEqual([start + 40]);
  });

  it('starts the hold again after two dipped frames in a row', () => {
    const played = feed(gate, [0.6, 0.3, 0.3, 0.6, 0.6, 0.6]);
    expect(played.bargeIns).toEqual([start + 60]);
  });

  it('does not take one late loud frame after a stalled meter for a held voice', () => {
    const stalled = hearFrame(gate, { level: 0.9, atMs: (gate.lastAtMs ?? 0) + 500, assistantAudible: true });
    expect(stalled.bargeIn).toBe(false);
    expect(feed(stalled.state, [0.3, 0.3, 0.3]).bargeIns).toEqual([]);
  });
});

describe('a speech-shaped leak', () => {
  const seeds = [1, 2, 3, 4, 5, 6, 7, 8];

  it('stays quiet through twenty seconds of the assistant at a 0.3 mean, from cold', () => {
    for (const seed of seeds) {
      expect(feed(startEchoGate(HEARING.gate), speechLeak(seed, 0.3, 20_000)).bargeIns).toEqual([]);
    }
  });

  it("learns the leak's peaks, not its mean, and sets the bar over its loudest syllables", () => {
    for (const seed of seeds) {
      const levels = speechLeak(seed, 0.3, 20_000);
      const { state } = feed(startEchoGate(HEARING.gate), levels);
      const sorted = [...levels].sort((a, b) => a - b);
      expect(leakOf(state)).toBeGreaterThan(1.5 * 0.3);
      expect(barOf(state)).toBeGreaterThan(sorted[Math.floor(0.99 * sorted.length)] ?? 1);
    }
  });

  it('hears a person 6 dB over it within 100 ms', () => {
    for (const seed of seeds) {
      const { state, atMs } = feed(startEchoGate(HEARING.gate), speechLeak(seed, 0.3, 10_000));
      const random = seededRandom(seed + 100);
      const person = speechEnvelope(random, { durationMs: 1500, meanLevel: 0.6 });
      const more = speechEnvelope(random, { durationMs: 1500, meanLevel: 0.3, reverbMs: 50 });
      const heard = feed(state, Array.from(more, (v, i) => mixLevels(v, person[i] ?? 0, 0.01)));
      expect(heard.bargeIns).toHaveLength(1);
      expect((heard.bargeIns[0] ?? Infinity) - atMs).toBeLessThanOrEqual(100);
    }
  });
});

describe('what it learns from', () => {
  it('does not raise the leak for sounds over the bar that are too short to count', () => {
    const gate = learned(0.3);
    const bumps = Array.from({ length: 200 }, (_, i) => (i % 10 < 2 ? 0.9 : 0.3));
    const played = feed(gate, bumps);
    expect(played.bargeIns).toEqual([]);
    expect(leakOf(played.state)).toBeCloseTo(0.3, 3);
  });

  it('learns nothing from a voice twice as loud as the leak, even while it stays under the bar', () => {
    const gate = learned(0.3, 3000, { margin: 3, coldMargin: 3 });
    const played = feed(gate, steady(0.6, 300));
    expect(played.bargeIns).toEqual([]);
    expect(leakOf(played.state)).toBeCloseTo(0.3, 3);
  });

  it('follows a louder answer up within a second', () => {
    const louder = feed(learned(0.3), steady(0.36, 100)).state;
    expect(leakOf(louder)).toBeCloseTo(0.36, 2);
  });

  it('follows a quieter answer down within about two memoryMs of a 3 s one', () => {
    const gate = learned(0.3, 3000);
    expect(leakOf(feed(gate, steady(0.2, 1000)).state)).toBeCloseTo(0.3, 2);
    expect(leakOf(feed(gate, steady(0.2, 2000)).state)).toBeCloseTo(0.2, 2);
  });

  it('hands back the leak from before the person began after a barge-in', () => {
    const gate = learned(0.3);
    const before = barOf(gate);
    const played = feed(gate, [0.33, 0.36, 0.39, 0.6, 0.7, 0.7, 0.7, 0.7, 0.7]);
    expect(played.bargeIns).toHaveLength(1);
    expect(barOf(played.state)).toBeCloseTo(before, 6);
  });

  it('learns nothing while the assistant is silent, however loud the room', () => {
    const gate = learned(0.3);
    const quiet = silence(gate, 1000, 0.8).state;
    expect(leakOf(quiet)).toBeCloseTo(0.3, 6);
  });
});

describe('from one answer to the next', () => {
  it('starts the next answer with the leak the last one learned, widened by turnMargin at first', () => {
    const gate = silence(learned(0.3), 5000).state;
    expect(leakOf(gate)).toBeCloseTo(0.3, 6);
    const opening = feed(gate, [0.3]);
    expect(opening.bars[0]).toBeCloseTo(0.3 * HEARING.gate.margin * HEARING.gate.turnMargin, 6);
    const settled = feed(opening.state, steady(0.3, 60));
    expect(barOf(settled.state)).toBeCloseTo(0.3 * HEARING.gate.margin, 6);
  });

  it('forgets after a long silence and warms up afresh on the next answer', () => {
    const gate = feed(learned(0.3), steady(0.01, 600), { frameMs: 1000, audible: false }).state;
    expect(gate.leak.heardMs).toBeLessThan(HEARING.gate.warmUpMs);
    const louder = feed(gate, [...steady(0.6, 30), ...steady(0.6, 300)]);
    expect(louder.bargeIns).toEqual([]);
    expect(leakOf(louder.state)).toBeCloseTo(0.6, 2);
  });

  it('keeps its numbers finite over long answers and long silences', () => {
    const long = learned(0.3, 3000, { memoryMs: 100 });
    expect(long.leak.weight).toBeLessThanOrEqual(1e12);
    expect(leakOf(long)).toBeCloseTo(0.3, 3);
    const forgotten = silence(learned(0.3, 3000, { idleForgetMs: 1 }), 100).state;
    expect(forgotten.leak.weight).toBeLessThanOrEqual(1e12);
    expect(Number.isFinite(forgotten.leak.total)).toBe(true);
  });
});

describe('when the assistant is not audible', () => {
  const gate = learned(0.3);

  it('reports nothing once the assistant has been silent past the tail', () => {
    const quiet = silence(gate, 300).state;
    expect(feed(quiet, steady(0.8, 50), { audible: false }).bargeIns).toEqual([]);
  });

  it('still hears a person in the gap between pieces, while the room rings', () => {
    const gap = feed(gate, steady(0.7, 12), { audible: false });
    expect(gap.bargeIns).toEqual([(gate.lastAtMs ?? 0) + 30]);
  });

  it('reports one barge-in per stretch of audio, and again after a silence', () => {
    const first = feed(gate, steady(0.7, 100));
    expect(first.bargeIns).toHaveLength(1);
    const quiet = silence(first.state, 300).state;
    const next = feed(feed(quiet, steady(0.3, 100)).state, steady(0.7, 10));
    expect(next.bargeIns).toHaveLength(1);
  });

  it('hears a second sound over the same stretch once it listens again (the voice carried on past the first), with the leak it learned kept', () => {
    const first = feed(gate, [...steady(0.7, 10), ...steady(0.3, 30)]);
    expect(first.bargeIns).toHaveLength(1);
    // Without listening again, the same stretch hears no one.
    expect(feed(first.state, steady(0.7, 10)).bargeIns).toEqual([]);
    const again = listenAgain(first.state);
    expect(leakOf(again)).toBe(leakOf(first.state));
    expect(feed(again, steady(0.3, 30)).bargeIns).toEqual([]);
    expect(feed(feed(again, steady(0.3, 30)).state, steady(0.7, 10)).bargeIns).toHaveLength(1);
  });
});

describe('the very first answer', () => {
  it('does not trip on the first 300 ms, whatever they hold', () => {
    const rising = [0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.6, 0.5, 0.3, 0.2, ...steady(0.7, 20)];
    expect(feed(startEchoGate(HEARING.gate), rising).bargeIns).toEqual([]);
  });

  it('takes what it hears in the warm-up as leak', () => {
    const warm = feed(startEchoGate(HEARING.gate), steady(0.4, 31)).state;
    expect(leakOf(warm)).toBeCloseTo(0.4, 6);
  });

  it('widens the bar while it has heard little, easing to margin by settleMs', () => {
    const warm = feed(startEchoGate(HEARING.gate), steady(0.3, 31)).state;
    expect(barOf(warm)).toBeGreaterThan(0.3 * HEARING.gate.coldMargin);
    const settled = feed(warm, steady(0.3, SETTLED_MS / 10)).state;
    expect(barOf(settled)).toBeCloseTo(0.3 * HEARING.gate.margin, 6);
  });

  it('stays quiet through the first answer of a speech-shaped leak', () => {
    for (const seed of [11, 12, 13, 14, 15, 16, 17, 18]) {
      expect(feed(startEchoGate(HEARING.gate), speechLeak(seed, 0.2, 3000)).bargeIns).toEqual([]);
    }
  });
});

describe('a leak near full scale', () => {
  it('lets a person at full scale through while the leak stays under it', () => {
    const loud = learned(0.71);
    expect(barOf(loud)).toBe(HEARING.gate.fullScale);
    expect(feed(loud, steady(1, 5)).bargeIns).toHaveLength(1);
  });

  it('says no one can barge in once the leak itself reaches full scale', () => {
    const tooLoud = learned(0.85);
    expect(barOf(tooLoud)).toBeGreaterThan(1);
    expect(feed(tooLoud, steady(1, 100)).bargeIns).toEqual([]);
  });
});

describe('frames', () => {
  it('reads a level over 1 as 1', () => {
    const { state } = feed(learned(0.3), [5]);
    expect(state.recent[state.recent.length - 1]?.level).toBe(1);
  });

  it('counts a frame that goes back in time as no time passing', () => {
    const gate = learned(0.3);
    const back = hearFrame(gate, { level: 0.3, atMs: (gate.lastAtMs ?? 0) - 50, assistantAudible: true }).state;
    expect(back.recent[back.recent.length - 1]?.ms).toBe(0);
    expect(back.leak.heardMs).toBe(gate.leak.heardMs);
  });

  it('throws for a level that is not a peak level', () => {
    const gate = startEchoGate(HEARING.gate);
    expect(() => hearFrame(gate, { level: Number.NaN, atMs: 0, assistantAudible: true })).toThrow(RangeError);
    expect(() => hearFrame(gate, { level: -0.1, atMs: 0, assistantAudible: true })).toThrow(/level is -0.1/);
  });

  it('throws for a time that is not finite', () => {
    expect(() => hearFrame(startEchoGate(HEARING.gate), { level: 0.1, atMs: Infinity, assistantAudible: true })).toThrow(/atMs is Infinity/);
  });

  it('gives the same answer for the same frames', () => {
    const levels = speechLeak(3, 0.3, 5000);
    expect(feed(startEchoGate(HEARING.gate), levels)).toEqual(feed(startEchoGate(HEARING.gate), levels));
  });
});

describe('options', () => {
  it('merges partial options over the defaults', () => {
    expect(checkEchoGate({ ...HEARING.gate, floor: 0.1 })).toEqual({ ...HEARING.gate, floor: 0.1 });
    expect(startEchoGate({ ...HEARING.gate, margin: 1.5 }).options.margin).toBe(1.5);
  });

  it('names the option, its value and its range when one is out of range', () => {
    expect(() => checkEchoGate({ ...HEARING.gate, margin: 0.5 })).toThrow(OptionError);
    expect(() => checkEchoGate({ ...HEARING.gate, margin: 0.5 })).toThrow('echoGate.margin is 0.5; it must be a number from 1 to 4.');
    expect(() => checkEchoGate({ ...HEARING.gate, floor: Number.NaN })).toThrow(/floor is NaN/);
  });

  it('refuses a cold margin under the settled one', () => {
    expect(() => checkEchoGate({ ...HEARING.gate, margin: 2, coldMargin: 1.5 })).toThrow('echoGate.coldMargin is 1.5; it must be at least echoGate.margin (2): a gate is never surer of a leak it has barely heard.');
  });

  it('refuses a bridge as long as the hold', () => {
    expect(() => checkEchoGate({ ...HEARING.gate, minOverMs: 20, bridgeMs: 20 })).toThrow(/^echoGate\.bridgeMs is 20; it must be under echoGate\.minOverMs \(20\)/);
  });
});

