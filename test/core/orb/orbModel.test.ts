import { describe, expect, it } from 'vitest';
import {
  createOrb,
  heardLevel,
  SILENCE,
  stepOrb,
  strandDirection,
  strandRateFactor,
} from '../../../src/core/orb/orbModel';
import type { OrbFrame, OrbLevels, OrbModel } from '../../../src/core/orb/orbModel';
import type { OrbState } from '../../../src/core/orb/orbState';
import { ORB, REST_RATE_RAD_PER_S } from '../../../src/core/orb/orbTuning';
import { seededRandom } from '../../helpers/random';

/** A stretch of steady input: these levels in this state for `ms`. */
interface Stretch {
  levels: OrbLevels;
  state: OrbState;
  ms: number;
}

const quiet = (ms: number, state: OrbState = 'listening'): Stretch => ({ levels: SILENCE, state, ms });
const assistant = (level: number, ms: number, state: OrbState = 'speaking'): Stretch => ({
  levels: { assistantLevel: level, micLevel: 0, assistantAudible: true },
  state,
  ms,
});
const person = (level: number, ms: number, state: OrbState = 'hearing'): Stretch => ({
  levels: { assistantLevel: 0, micLevel: level, assistantAudible: false },
  state,
  ms,
});

/** Steps the orb through `stretches`, taking frame durations from `nextFrameMs`. */
function play(stretches: Stretch[], nextFrameMs: () => number, from: OrbModel = createOrb('listening')): OrbModel {
  let model = from;
  for (const { levels, state, ms } of stretches) {
    let left = ms;
    while (left > 1e-9) {
      const dt = Math.min(nextFrameMs(), left);
      model = stepOrb(model, { ...levels, state }, dt);
      left -= dt;
    }
  }
  return model;
}

const everyMs = (ms: number) => () => ms;

/** How far apart two phases are round the circle, in radians, 0..π. */
function phaseGap(a: number, b: number): number {
  const gap = Math.abs(a - b) % (2 * Math.PI);
  return Math.min(gap, 2 * Math.PI - gap);
}

/** The signed turn from `a` to `b`, in radians, taken the short way round (-π, π]. */
function turnBetween(a: number, b: number): number {
  const turn = (b - a) % (2 * Math.PI);
  if (turn > Math.PI) return turn - 2 * Math.PI;
  if (turn <= -Math.PI) return turn + 2 * Math.PI;
  return turn;
}

const frame = (levels: OrbLevels, state: OrbState = 'listening'): OrbFrame => ({ ...levels, state });

describe('the phase is integrated frame by frame', () => {
  const conversation = [quiet(1000), assistant(0.6, 1500), quiet(1000), assistant(0.3, 500), quiet(2000, 'thinking')];

  it('reaches the same phases after the same time at half the frame rate', () => {
    const at60 = play(conversation, everyMs(1000 / 60));
    const at30 = play(conversation, everyMs(1000 / 30));
    at60.phases.forEach((phase, index) => {
      expect(phaseGap(phase, at30.phases[index] ?? Number.NaN)).toBeLessThan(1e-9);
    });
    expect(at30.rateRadPerS).toBeCloseTo(at60.rateRadPerS, 9);
  });

  it('reaches the same phases when frames come unevenly, as they do on a busy machine', () => {
    const random = seededRandom(5);
    const withMicrophone = [...conversation, person(0.4, 1500), quiet(1000)];
    const even = play(withMicrophone, everyMs(1000 / 60));
    const uneven = play(withMicrophone, () => 4 + 60 * random());
    even.phases.forEach((phase, index) => {
      expect(phaseGap(phase, uneven.phases[index] ?? Number.NaN)).toBeLessThan(1e-9);
    });
  });

  it('never jumps when the speed changes: each frame turns a little more than the last as a voice starts', () => {
    const frameMs = 1000 / 60;
    let model = play([quiet(3000)], everyMs(frameMs));
    const advances: number[] = [];
    for (let k = 0; k < 120; k += 1) {
      const next = stepOrb(model, frame({ assistantLevel: 0.5, micLevel: 0, assistantAudible: true }, 'speaking'), frameMs);
      advances.push(Math.abs(turnBetween(model.phases[0] ?? 0, next.phases[0] ?? 0)));
      model = next;
    }
    const voiceAdvance = ORB.voiceRateRadPerS * strandRateFactor(0) * (frameMs / 1000);
    const restAdvance = REST_RATE_RAD_PER_S.speaking * strandRateFactor(0) * (frameMs / 1000);
    expect(advances[0]).toBeLessThan(restAdvance * 1.1);
    advances.slice(1).forEach((advance, k) => {
      const before = advances[k] ?? 0;
      expect(advance).toBeGreaterThanOrEqual(before);
      expect(advance - before).toBeLessThan(0.05 * voiceAdvance);
    });
    expect(advances.at(-1)).toBeGreaterThan(0.9 * voiceAdvance);
  });

  it('takes a long pause (a hidden tab) as one short step, and a step backwards as none', () => {
    const start = createOrb('listening');
    const voice = frame({ assistantLevel: 1, micLevel: 0, assistantAudible: true });
    expect(stepOrb(start, voice, 600_000)).toEqual(stepOrb(start, voice, ORB.maxStepMs));
    expect(stepOrb(start, voice, -40).phases).toEqual(start.phases);
    expect(stepOrb(start, voice, Number.NaN).phases).toEqual(start.phases);
  });

  it('keeps every phase within one turn however long it runs', () => {
    const model = play([assistant(1, 120_000)], everyMs(1000 / 60));
    for (const phase of model.phases) {
      expect(phase).toBeGreaterThanOrEqual(0);
      expect(phase).toBeLessThan(2 * Math.PI);
    }
  });
});

describe('the strands turn against each other', () => {
  it('turns every other strand the opposite way', () => {
    const start = createOrb('listening');
    const later = play([quiet(500)], everyMs(1000 / 60), start);
    const turns = start.phases.map((phase, index) => turnBetween(phase, later.phases[index] ?? Number.NaN));
    expect(turns).toHaveLength(ORB.strands);
    turns.forEach((turn, index) => {
      expect(Math.sign(turn)).toBe(index % 2 === 0 ? 1 : -1);
      expect(Math.sign(turn)).toBe(strandDirection(index));
    });
  });

  it('turns each strand at a rate of its own, so the crossings travel', () => {
    const start = createOrb('listening');
    const later = play([quiet(500)], everyMs(1000 / 60), start);
    const speeds = start.phases.map((phase, index) => Math.abs(turnBetween(phase, later.phases[index] ?? Number.NaN)));
    expect(new Set(speeds.map((speed) => speed.toFixed(6))).size).toBe(ORB.strands);
    for (let index = 0; index < ORB.strands; index += 1) {
      expect(strandRateFactor(index)).toBeGreaterThanOrEqual(1 - ORB.strandRateSpread / 2);
      expect(strandRateFactor(index)).toBeLessThanOrEqual(1 + ORB.strandRateSpread / 2);
    }
  });

  it('starts with the strands spread round the shape rather than lying on one another', () => {
    const { phases } = createOrb('listening');
    for (let a = 0; a < phases.length; a += 1) {
      for (let b = a + 1; b < phases.length; b += 1) {
        expect(phaseGap(phases[a] ?? 0, phases[b] ?? 0)).toBeGreaterThan(0.3);
      }
    }
  });
});

describe('how fast it turns', () => {
  it('turns at about 0.13 rad/s at rest and 0.64 rad/s with a voice, easing between them', () => {
    const rest = play([quiet(5000)], everyMs(1000 / 60));
    expect(rest.rateRadPerS).toBeCloseTo(0.13, 3);
    const voiced = play([assistant(0.5, 5000)], everyMs(1000 / 60), rest);
    expect(voiced.rateRadPerS).toBeCloseTo(0.64, 3);
    const halfway = play([assistant(0.5, ORB.rateEaseMs)], everyMs(1000 / 60), rest);
    expect(halfway.rateRadPerS).toBeGreaterThan(0.13);
    expect(halfway.rateRadPerS).toBeLessThan(0.64);
    const settled = play([quiet(5000)], everyMs(1000 / 60), voiced);
    expect(settled.rateRadPerS).toBeCloseTo(0.13, 3);
  });

  it('turns each strand by its share of the shared rate once settled', () => {
    const settled = play([assistant(0.5, 5000)], everyMs(1000 / 60));
    const second = play([assistant(0.5, 1000)], everyMs(1000 / 60), settled);
    settled.phases.forEach((phase, index) => {
      const turned = Math.abs(turnBetween(phase, second.phases[index] ?? Number.NaN));
      expect(turned).toBeCloseTo(0.64 * strandRateFactor(index), 3);
    });
  });

  it('counts a person speaking into the microphone as a voice, but not a quiet room', () => {
    expect(play([person(0.4, 5000)], everyMs(1000 / 60)).rateRadPerS).toBeCloseTo(0.64, 3);
    expect(play([person(0.02, 5000, 'listening')], everyMs(1000 / 60)).rateRadPerS).toBeCloseTo(0.13, 3);
  });

  it('churns faster while thinking and slower while muted or failed, with no voice', () => {
    const thinking = play([quiet(5000, 'thinking')], everyMs(1000 / 60)).rateRadPerS;
    const muted = play([quiet(5000, 'muted')], everyMs(1000 / 60)).rateRadPerS;
    const failed = play([quiet(5000, 'error')], everyMs(1000 / 60)).rateRadPerS;
    expect(thinking).toBeGreaterThan(0.13);
    expect(thinking).toBeLessThan(0.64);
    expect(muted).toBeLessThan(0.13);
    expect(failed).toBeLessThan(0.13);
    expect(createOrb('thinking').rateRadPerS).toBe(REST_RATE_RAD_PER_S.thinking);
  });
});

describe('the shape follows the sound, not the turn', () => {
  it('draws the assistant whenever any of it is audible, whatever the state says', () => {
    for (const state of ['listening', 'hearing', 'thinking', 'muted'] as const) {
      const model = play([assistant(0.8, 2000, state)], everyMs(1000 / 60), createOrb(state));
      expect(model.level).toBeCloseTo(0.8, 3);
      expect(model.rateRadPerS).toBeGreaterThan(0.6);
    }
  });

  it('never draws the microphone while the assistant is audible, even between its syllables', () => {
    const echo = { assistantLevel: 0, micLevel: 0.9, assistantAudible: true };
    expect(heardLevel(frame(echo))).toBe(0);
    const model = play([{ levels: echo, state: 'listening', ms: 1000 }], everyMs(1000 / 60));
    expect(model.level).toBe(0);
  });

  it('draws the microphone once the assistant is no longer audible', () => {
    const model = play([assistant(0.5, 500), person(0.4, 1000, 'listening')], everyMs(1000 / 60));
    expect(model.level).toBeCloseTo(0.4, 2);
  });

  it('ignores a level the player reports for audio that is not audible', () => {
    expect(heardLevel(frame({ assistantLevel: 0.9, micLevel: 0.1, assistantAudible: false }))).toBe(0.1);
  });

  it('draws nothing of a muted microphone', () => {
    expect(heardLevel(frame({ assistantLevel: 0, micLevel: 0.7, assistantAudible: false }, 'muted'))).toBe(0);
  });

  it('takes a broken or out-of-range reading as silence or full scale', () => {
    expect(heardLevel(frame({ assistantLevel: Number.NaN, micLevel: 0, assistantAudible: true }))).toBe(0);
    expect(heardLevel(frame({ assistantLevel: 3, micLevel: 0, assistantAudible: true }))).toBe(1);
    expect(heardLevel(frame({ assistantLevel: 0, micLevel: -0.2, assistantAudible: false }))).toBe(0);
    expect(heardLevel(frame({ assistantLevel: 0, micLevel: Number.POSITIVE_INFINITY, assistantAudible: false }))).toBe(0);
  });
});

describe('the drawn level is smoothed', () => {
  const loud = frame({ assistantLevel: 1, micLevel: 0, assistantAudible: true });

  /** How long, in 1 ms steps, the level takes to cross `bar` from `from` under `input`. */
  function msToCross(from: OrbModel, input: OrbFrame, bar: number): number {
    let model = from;
    let ms = 0;
    const rising = input.assistantLevel > from.level;
    while (rising ? model.level < bar : model.level > bar) {
      model = stepOrb(model, input, 1);
      ms += 1;
    }
    return ms;
  }

  it('rises fast to a syllable and falls back slower', () => {
    const rest = createOrb('speaking');
    const up = msToCross(rest, loud, 0.5);
    const full = play([assistant(1, 2000)], everyMs(10), rest);
    const down = msToCross(full, frame({ ...loud, assistantLevel: 0 }), 0.5);
    expect(up).toBeGreaterThan(0);
    expect(down).toBeGreaterThan(3 * up);
  });

  it('never overshoots the level heard, nor leaves 0..1', () => {
    let model = createOrb('speaking');
    const random = seededRandom(11);
    for (let k = 0; k < 2000; k += 1) {
      const level = random();
      model = stepOrb(model, frame({ assistantLevel: level, micLevel: 0, assistantAudible: true }), 4 + 30 * random());
      expect(model.level).toBeGreaterThanOrEqual(0);
      expect(model.level).toBeLessThanOrEqual(1);
    }
  });

  it('follows a syllable envelope rather than holding a flat figure', () => {
    let model = createOrb('speaking');
    const drawn: number[] = [];
    for (let k = 0; k < 120; k += 1) {
      // Four syllables a second, as speech runs.
      const level = 0.5 + 0.5 * Math.sin((2 * Math.PI * 4 * k) / 60);
      model = stepOrb(model, frame({ assistantLevel: level, micLevel: 0, assistantAudible: true }), 1000 / 60);
      drawn.push(model.level);
    }
    const late = drawn.slice(60);
    expect(Math.max(...late) - Math.min(...late)).toBeGreaterThan(0.4);
  });

  it('carries the state of the latest frame', () => {
    expect(stepOrb(createOrb('connecting'), frame(SILENCE, 'thinking'), 16).state).toBe('thinking');
  });
});
