import { describe, expect, it } from 'vitest';
import { chunkAll } from '../../../common/speaking/chunker';
import {
  audioMsOf,
  budgetChars,
  COST_HEADROOM,
  fresherCost,
  HANDOVER_MS,
  makeMs,
  observeCost,
  paceAfter,
  paceOf,
  playedUntil,
  readVoiceCost,
  realTimeFactor,
  SAFE_COST,
  stepsInTime,
} from '../../../common/speaking/pace';
import type { Pace, PieceTiming, VoiceCost } from '../../../common/speaking/pace';
import { TALK } from '../../../common/talk';
import { LONG_ANSWER } from '../../helpers/longAnswer';

/** A device whose pieces cost a real-time factor of 0.5 at 8 steps, speaking 70 ms a character at speed 1. */
const HALF: VoiceCost = { prepareMsPerS: 20, stepMsPerS: 50, vocodeMsPerS: 80, audioMsPerChar: 70, pieces: 12, provider: 'wasm' };
/** The same device at a real-time factor of 0.9 at 8 steps. */
const SLOW: VoiceCost = { prepareMsPerS: 20, stepMsPerS: 90, vocodeMsPerS: 160, audioMsPerChar: 70, pieces: 12, provider: 'wasm' };

const GAP_MS = TALK.gapMs;
const SPEED = 1;

function idle(atMs: number, cost: VoiceCost = HALF): Pace {
  return { atMs, busyUntilMs: atMs, playsUntilMs: 0, making: 0, gapMs: GAP_MS, speed: SPEED, cost };
}

function timing(overrides: Partial<PieceTiming> = {}): PieceTiming {
  // 2 s of audio from 28 characters at speed 1.05: 75 ms a character at speed 1.
  return { chars: 28, audioMs: 2000, speed: 1.05, steps: 8, prepareMs: 40, stepsMs: 800, vocodeMs: 160, provider: 'wasm', ...overrides };
}


interface Spoken {
  pieces: string[];
  /** Steps each piece was made with. */
  steps: number[];
  /** Silence beyond the gap after the opening, summed, in ms. */
  stallMs: number;
}

/**
 * An answer spoken by a simulated device whose true cost is `device`, the page believing `believed`:
 * cut all at once (as a streamed answer is, well ahead of its voice) to the budget the page's pace
 * gives, then made one piece after another, each with the steps `stepsInTime` allows by the time
 * the audio before it has played out, and played as soon as it is ready.
 */
function speak(text: string, device: VoiceCost, believed: VoiceCost, floor = TALK.floor): Spoken {
  const steps = (piece: number) => (piece === 0 ? TALK.opening : TALK.steps);
  const start = idle(0, believed);
  const pieces = chunkAll(text, {}, (cut) => {
    const ahead = cut.reduce((pace, piece, i) => paceAfter(pace, piece.length, steps(i), 0), start);
    return budgetChars(ahead, TALK.steps, 0);
  });
  let clockMs = 0;
  let playsUntilMs = 0;
  let workerUntilMs: number | null = null;
  let stallMs = 0;
  const made: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    const audioMs = audioMsOf(device, piece.length, SPEED);
    const used = stepsInTime({
      wanted: steps(i),
      floor,
      audioMs,
      nowMs: clockMs + (audioMs / 1000) * device.prepareMsPerS,
      readyByMs: workerUntilMs === null ? null : workerUntilMs + GAP_MS,
      cost: believed,
    });
    clockMs += makeMs(device, audioMs, used);
    made.push(used);
    if (i > 0) stallMs += Math.max(0, clockMs - (playsUntilMs + GAP_MS));
    playsUntilMs = playedUntil(playsUntilMs, clockMs, audioMs, GAP_MS);
    workerUntilMs = playsUntilMs;
  }
  return { pieces, steps: made, stallMs };
}

describe('what a device costs', () => {
  it('is a real-time factor of 1 at 8 steps before anything is measured, so a new device starts with small pieces', () => {
    expect(realTimeFactor(SAFE_COST, 8)).toBeCloseTo(1, 6);
    expect(SAFE_COST.pieces).toBe(0);
  });

  it('is taken whole from the first piece measured, per second of audio and per step, with speech per character at speed 1', () => {
    const cost = observeCost(SAFE_COST, timing());
    expect(cost).toEqual({ prepareMsPerS: 20, stepMsPerS: 50, vocodeMsPerS: 80, audioMsPerChar: 75, pieces: 1, provider: 'wasm' });
  });

  it('moves by a running mean over the first pieces, then a quarter for a quicker piece', () => {
    let cost = observeCost(SAFE_COST, timing({ stepsMs: 1600 }));
    cost = observeCost(cost, timing());
    expect(cost.stepMsPerS).toBeCloseTo(75, 9);
    expect(cost.pieces).toBe(2);
    for (let i = 0; i < 10; i += 1) cost = observeCost(cost, timing({ stepsMs: 1600 }));
    const settled = cost.stepMsPerS;
    expect(observeCost(cost, timing()).stepMsPerS).toBeCloseTo(settled + 0.25 * (50 - settled), 9);
  });

  it('believes a slower piece at least half, so a device that slows down is followed within a piece or two', () => {
    let cost = observeCost(SAFE_COST, timing());
    for (let i = 0; i < 10; i += 1) cost = observeCost(cost, timing());
    const slower = observeCost(cost, timing({ stepsMs: 1600 }));
    expect(slower.stepMsPerS).toBeCloseTo(75, 9);
    expect(observeCost(slower, timing({ stepsMs: 1600 })).stepMsPerS).toBeCloseTo(87.5, 9);
  });

  it('is taken from the worker’s own measurements where they know more than the page’s', () => {
    const page = { ...HALF, pieces: 12 };
    expect(fresherCost(page, null)).toBe(page);
    expect(fresherCost(page, { ...SLOW, pieces: 13 })).toMatchObject({ stepMsPerS: 90 });
    expect(fresherCost(page, { ...SLOW, pieces: 11 })).toBe(page);
    expect(fresherCost(page, { ...SLOW, pieces: 1, provider: 'webgpu' })).toMatchObject({ provider: 'webgpu' });
  });

  it('starts again from a piece made on another provider (WebGPU failed over to WASM)', () => {
    const onGpu = observeCost(SAFE_COST, timing({ provider: 'webgpu', stepsMs: 80 }));
    const onCpu = observeCost({ ...onGpu, pieces: 30 }, timing({ provider: 'wasm' }));
    expect(onCpu).toMatchObject({ stepMsPerS: 50, pieces: 1, provider: 'wasm' });
  });

  it('learns nothing from a piece with no audio', () => {
    expect(observeCost(HALF, timing({ audioMs: 0 }))).toBe(HALF);
  });

  it('is read back as kept, and anything else kept is the safe default', () => {
    expect(readVoiceCost(JSON.parse(JSON.stringify(HALF)))).toEqual(HALF);
    expect(readVoiceCost(undefined)).toBe(SAFE_COST);
    expect(readVoiceCost({ ...HALF, audioMsPerChar: 0 })).toBe(SAFE_COST);
    expect(readVoiceCost({ ...HALF, stepMsPerS: Number.NaN })).toBe(SAFE_COST);
    expect(readVoiceCost({ ...HALF, pieces: 1.5 })).toBe(SAFE_COST);
    expect(readVoiceCost({ ...HALF, provider: 4 })).toBe(SAFE_COST);
  });
});

describe('the pace of the voice', () => {
  it('plays a piece the gap after the one before it, or as soon as it is ready if that is later', () => {
    expect(playedUntil(1000, 900, 500, 120)).toBe(1620);
    expect(playedUntil(1000, 2000, 500, 120)).toBe(2500);
    expect(playedUntil(0, 2000, 500, 120)).toBe(2500);
  });

  it('follows each piece asked after the one before it: made at its cost, played after what is queued', () => {
    const once = paceAfter(idle(1000), 20, 8, 1000);
    // 20 characters, 1.4 s of audio, made in 0.7 s.
    expect(once).toMatchObject({ busyUntilMs: 1700, playsUntilMs: 3100 });
    const twice = paceAfter(once, 20, 8, 1000);
    expect(twice).toMatchObject({ busyUntilMs: 2400, playsUntilMs: 3100 + GAP_MS + 1400 });
  });

  it('never has a piece ready before now, however long ago its making began', () => {
    expect(paceAfter(idle(5000), 20, 8, 5000, 1000).busyUntilMs).toBe(5000);
    expect(paceAfter(idle(5000), 20, 8, 5000, 4800).busyUntilMs).toBe(5500);
  });

  it('is estimated from what was handed to the player and what is still being made', () => {
    const pace = paceOf({
      atMs: 1000,
      playsUntilMs: 2500,
      making: [
        { chars: 20, steps: 8, sinceMs: 900 },
        { chars: 10, steps: 8 },
      ],
      gapMs: GAP_MS,
      speed: SPEED,
      cost: HALF,
    });
    expect(pace.busyUntilMs).toBe(900 + 700 + 350);
    expect(pace.playsUntilMs).toBe(2500 + GAP_MS + 1400 + GAP_MS + 700);
  });

  it('counts a piece made out of turn by its real audio, from when it was made', () => {
    const pace = paceOf({ atMs: 1000, playsUntilMs: 0, making: [{ chars: 20, steps: 8, made: { atMs: 990, audioMs: 1234 } }], gapMs: GAP_MS, speed: SPEED, cost: HALF });
    expect(pace).toMatchObject({ busyUntilMs: 1000, playsUntilMs: 990 + 1234 });
  });
});

describe('the budget of the next piece', () => {
  it('is what the device can make before the queued audio and the gap have played out, with headroom', () => {
    const pace: Pace = { ...idle(0), busyUntilMs: 1000, playsUntilMs: 3000 };
    const perChar = COST_HEADROOM * makeMs(HALF, 70, 8);
    expect(budgetChars(pace, 8, 0)).toBe(Math.floor((3000 + GAP_MS - HANDOVER_MS - 1000) / perChar));
  });

  it('is zero when nothing is queued: a piece now is late whatever its size, and the shortest ends the silence soonest', () => {
    expect(budgetChars(idle(0), 8, 0)).toBe(0);
    expect(budgetChars({ ...idle(0), playsUntilMs: 4000 }, 8, 4000)).toBe(0);
  });

  it('shrinks as the queued audio plays while the voice is idle, and grows with fewer steps', () => {
    const pace: Pace = { ...idle(0), playsUntilMs: 5000 };
    expect(budgetChars(pace, 8, 2000)).toBeLessThan(budgetChars(pace, 8, 0));
    expect(budgetChars(pace, 4, 0)).toBeGreaterThan(budgetChars(pace, 8, 0));
  });

  it('grows with every piece queued ahead of it on a device faster than speech', () => {
    let pace = paceAfter(idle(0), 36, 8, 0);
    const budgets: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const budget = budgetChars(pace, 8, 0);
      budgets.push(budget);
      pace = paceAfter(pace, budget, 8, 0);
    }
    expect(budgets.every((budget, i) => i === 0 || budget > (budgets[i - 1] ?? 0))).toBe(true);
  });
});

describe('the steps of a piece', () => {
  const question = { wanted: 8, floor: 4, audioMs: 2000, cost: HALF };

  it('are all those asked for the opening, which nothing plays before', () => {
    expect(stepsInTime({ ...question, nowMs: 1e9, readyByMs: null })).toBe(8);
  });

  it('are all those asked when the piece will be ready in time with them', () => {
    // 2 s of audio: 8 steps and the vocoder take 0.96 s, 1.152 s with headroom.
    expect(stepsInTime({ ...question, nowMs: 0, readyByMs: 1152 + HANDOVER_MS })).toBe(8);
  });

  it('are the most that still make it in time when all of them would not', () => {
    // 6 steps: (6 × 50 + 80) × 2 × 1.2 = 912 ms.
    expect(stepsInTime({ ...question, nowMs: 0, readyByMs: 912 + HANDOVER_MS })).toBe(6);
    expect(stepsInTime({ ...question, nowMs: 0, readyByMs: 911 + HANDOVER_MS })).toBe(5);
  });

  it('are never fewer than the floor, however late the piece', () => {
    expect(stepsInTime({ ...question, nowMs: 5000, readyByMs: 0 })).toBe(4);
    expect(stepsInTime({ ...question, floor: 8, nowMs: 5000, readyByMs: 0 })).toBe(8);
  });

  it('are never more than asked for, even with a floor above them', () => {
    expect(stepsInTime({ ...question, wanted: 3, floor: 4, nowMs: 5000, readyByMs: 0 })).toBe(3);
  });
});

describe('an answer spoken at the pace of its device', () => {
  it('has no silence beyond the gap at a real-time factor of 0.5, at full steps, with pieces that grow', () => {
    const spoken = speak(LONG_ANSWER, HALF, HALF);
    expect(spoken.stallMs).toBe(0);
    expect(spoken.steps.every((steps) => steps === 8)).toBe(true);
    const lengths = spoken.pieces.map((piece) => piece.length);
    expect(lengths.at(-2)).toBeGreaterThan(lengths[1] ?? Infinity);
    expect(spoken.pieces.join(' ')).toBe(LONG_ANSWER);
  });

  it('has no silence beyond the gap at a real-time factor of 0.9, in more and smaller pieces', () => {
    const fast = speak(LONG_ANSWER, HALF, HALF);
    const slow = speak(LONG_ANSWER, SLOW, SLOW);
    expect(slow.stallMs).toBe(0);
    expect(slow.pieces.length).toBeGreaterThan(fast.pieces.length);
    expect(slow.pieces.join(' ')).toBe(LONG_ANSWER);
  });

  it('has no silence on a device used for the first time, which starts from the safe default', () => {
    expect(speak(LONG_ANSWER, HALF, SAFE_COST).stallMs).toBe(0);
    expect(speak(LONG_ANSWER, SLOW, SAFE_COST).stallMs).toBe(0);
  });

  it('hurries the pieces of a device slower than it was believed to be, down to a floor the bot sets, and is silent for less', () => {
    const floor = 4;
    const hurried = speak(LONG_ANSWER, SLOW, HALF, floor);
    const unhurried = speak(LONG_ANSWER, SLOW, HALF);
    expect(unhurried.steps.every((steps) => steps === TALK.steps)).toBe(true);
    expect(Math.min(...hurried.steps)).toBeGreaterThanOrEqual(floor);
    expect(hurried.steps.some((steps) => steps < TALK.steps)).toBe(true);
    expect(hurried.stallMs).toBeLessThan(unhurried.stallMs);
  });
});
