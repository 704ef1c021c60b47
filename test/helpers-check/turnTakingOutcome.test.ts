import { describe, expect, it } from 'vitest';
import type { TurnTakingReport } from '../e2e/harness/turnTaking';
import { LEAD_MS } from '../e2e/speech/bargeInSpeech';
import { outcomeOf } from '../e2e/speech/turnTakingRun';
import type { SoundScenario, TurnTakingClip, TurnTakingSpeech } from '../e2e/speech/turnTakingSpeech';
import { HEARING } from '../../src/core/hearing/tuning';
import { STOP_RAMP_MS } from '../../src/platform/audio/player';

// The answer starts at 1000 ms on the audio clock: the marker's frame ends at 1000 - LEAD_MS + 10.
const ANSWER_AT_MS = 1000;
const QUANTUM_MS = (128 / 48_000) * 1000;
const cough: TurnTakingClip = { file: 'nonSpeech-cough.wav', kind: 'nonSpeech', words: null, made: 'sox cough' };
const speech: TurnTakingSpeech = {
  dir: '/nowhere',
  assistant: { pieces: ['a.wav', 'b.wav'], pieceMs: [2000, 5000], totalMs: 7120 },
  texts: ['One two three.', 'Four five six seven.'],
  clipMs: new Map([[cough.file, 250]]),
  mics: new Map(),
};
const coughAt = (atMs: number): SoundScenario => ({ name: 'cough', leak: 0.2, sound: { clip: cough, level: 0.4, atMs } });

function report(over: Partial<TurnTakingReport>): TurnTakingReport {
  return {
    sampleRateHz: 48_000,
    frameMs: 10,
    markerAtMs: ANSWER_AT_MS - LEAD_MS + 10,
    bargeInsAtMs: [],
    ducks: [],
    recogniserStartedAtMs: null,
    words: [],
    forwarded: [],
    stoppedAtMs: null,
    sources: [
      { atMs: ANSWER_AT_MS, durationMs: 2000 },
      { atMs: ANSWER_AT_MS + 2120, durationMs: 5000 },
    ],
    started: [],
    leak: { gain: 0.25, playerAtMs: ANSWER_AT_MS + 10, microphoneAtMs: ANSWER_AT_MS + 20, peak: 0.2 },
    voiceFrames: { total: 0, speech: 0, firstAtMs: null, changes: [] },
    refusals: [],
    bar: { atHeardMs: null, leakOverBar: 0, cancelledAtHeard: null, residualOverBar: 0, cancellingFromMs: null },
    beforeFirstBargeIn: [],
    ...over,
  };
}

describe('a turn-taking run read against its scenario', () => {
  it('times the duck and the voice back at full level from the sound’s first and last samples', () => {
    const onset = ANSWER_AT_MS + 500;
    const outcome = outcomeOf(coughAt(500), report({ ducks: [{ atMs: onset + 40, ducked: true }, { atMs: onset + 400, ducked: false }] }), speech);
    expect(outcome.duckedMs).toBeCloseTo(40 + QUANTUM_MS);
    expect(outcome.fullLevelAgainMs).toBeCloseTo(400 + HEARING.duck.unduckMs - 250);
    expect(outcome.lostPieces).toEqual([]);
    expect(outcome.falseDucks).toBe(0);
  });

  it('counts a piece whose end passed while ducked as lost, unless it was said again and ended at full level', () => {
    // Ducked from 2840 to 3500 ms; the first piece ends at 3000, inside the duck.
    const onset = ANSWER_AT_MS + 1800;
    const ducks = [{ atMs: onset + 40, ducked: true }, { atMs: onset + 700, ducked: false }];
    const lost = outcomeOf(coughAt(1800), report({ ducks }), speech);
    expect(lost.lostPieces).toEqual([0]);
    const sources = [...report({}).sources, { atMs: onset + 760, durationMs: 2000 }];
    const saidAgain = outcomeOf(coughAt(1800), report({ ducks, sources }), speech);
    expect(saidAgain.lostPieces).toEqual([]);
  });

  it('reads a stop as the turn taken, silent after its ramp and one quantum, and the rest of the answer as not heard', () => {
    const onset = ANSWER_AT_MS + 500;
    const sources = [{ atMs: ANSWER_AT_MS, durationMs: 2000, stopAtMs: onset + 455 }];
    const outcome = outcomeOf(coughAt(500), report({ ducks: [{ atMs: onset + 40, ducked: true }], stoppedAtMs: onset + 450, sources }), speech);
    expect(outcome.taken).toBe(true);
    expect(outcome.silentMs).toBeCloseTo(450 + STOP_RAMP_MS + QUANTUM_MS);
    expect(outcome.fullLevelAgainMs).toBeNull();
    expect(outcome.lostPieces).toEqual([0, 1]);
  });

  it('does not count a play cut before its last sample as heard, only a full one after it', () => {
    const [first, second] = report({}).sources;
    const cut = { atMs: second?.atMs ?? 0, durationMs: 5000, stopAtMs: (second?.atMs ?? 0) + 300 };
    expect(outcomeOf(coughAt(500), report({ sources: [first ?? cut, cut] }), speech).lostPieces).toEqual([1]);
    const again = { atMs: cut.stopAtMs + 10, durationMs: 5000 };
    expect(outcomeOf(coughAt(500), report({ sources: [first ?? cut, cut, again] }), speech).lostPieces).toEqual([]);
  });

  it('counts every duck of a leak-only run as false, and a duck never ended as never back to full level', () => {
    const leakOnly = outcomeOf({ name: 'leak', leak: 0.5, sound: null }, report({ ducks: [{ atMs: ANSWER_AT_MS + 900, ducked: true }] }), speech);
    expect(leakOnly.falseDucks).toBe(1);
    const onset = ANSWER_AT_MS + 500;
    const neverBack = outcomeOf(coughAt(500), report({ ducks: [{ atMs: onset + 40, ducked: true }] }), speech);
    expect(neverBack.fullLevelAgainMs).toBeNaN();
  });
});
