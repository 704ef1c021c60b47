/**
 * The hearing's one production profile: every figure the page hears by, each with its unit, what it
 * trades, and the measurement that chose it. The page runs exactly this table (a test holds it to
 * that); a test or a benchmark that wants another value passes it. How each was measured, and what
 * was tried before, is in docs/hearing.md; the figures the benchmarks report are in
 * docs/performance.md.
 *
 * Units are in the names where a field has one: `…Ms` milliseconds, `…Db` decibels; a level is a
 * peak |sample| from 0 to 1; a margin is a factor over a level.
 */
import type { VoiceActivityOptions } from '../../../common/voiceActivity';
import type { EchoGateOptions } from './echoGateOptions';
import type { YieldingOptions } from './yielding';

/** How yielding is paced, beyond the decision's own options. */
export interface YieldingPace extends YieldingOptions {
  /** How often time alone is given to a decision under way, ms: later rulings by time are late by up to this. */
  tickMs: number;
  /** The voice activity model counts while its last frame is this recent, ms: a model that stopped is not heard as "no speech". */
  voiceFreshMs: number;
}

/** How far the voice goes down while it is decided whose turn it is, and how it comes back. */
interface DuckOptions {
  /** The ducked voice's gain, dB: under a person's voice, still heard (a backchannel need not lose a word). */
  duckDb: number;
  /** How long the voice takes to come back to full level, ms: quick, with no click. */
  unduckMs: number;
}

export interface HearingTuning {
  /** The echo gate on the microphone as it comes. */
  gate: EchoGateOptions;
  /** The second gate, on the microphone with the voice cancelled from it (gatePair.ts). */
  cancelledGate: EchoGateOptions;
  /** The voice activity model's speech/no-speech hysteresis. */
  voiceActivity: VoiceActivityOptions;
  yielding: YieldingPace;
  duck: DuckOptions;
}

const gate: EchoGateOptions = {
  // A person must stay 1.375× over the leak's peak: a steady 0.35 leak puts the bar at 0.48, a 0.55 leak at 0.76 (`bench echo-gate`: 0 false barge-ins).
  margin: 1.375,
  // The bar never goes under 0.09: over a quiet room (0.01–0.03) and a headphone's spill, under a quiet word close up (0.12–0.15).
  floor: 0.09,
  // The leak's peak is the level the top 3 % of remembered voice lies over: the stressed syllables; 5 % let a louder answer trip it.
  peakShare: 0.03,
  // At least 50 ms of voice stands for that peak, so a first answer's opening syllable sets it; 100 ms left the bar under the second syllable.
  peakMinMs: 50,
  // What was learned gives way to what is heard over 8 s of voice: several sentences; a louder leak is followed within a second.
  memoryMs: 8000,
  // A frame over 1.3× the peak teaches nothing: a person under the bar cannot teach it that they are the leak.
  riseLimit: 1.3,
  // The leak's loudest moments run 1.2× its peak: a person at full scale is still heard under a 0.7 leak, with no false barge-in.
  headroom: 1.2,
  // What was learned fades over a minute of silence: the room and volume rarely change between turns.
  idleForgetMs: 60_000,
  // 40 ms over the bar is a person: longer than a click, shorter than a first syllable.
  minOverMs: 40,
  // A 15 ms dip under the bar is forgiven: one 10 ms frame's wobble.
  bridgeMs: 15,
  // The gate listens 250 ms past the voice: the room rings ~200 ms, and the player leaves 120 ms between pieces.
  tailMs: 250,
  // The first 200 ms of voice is all leak to a cold gate: an answer's first syllable sets the bar instead of tripping it.
  warmUpMs: 200,
  // The margin starts at 2 and eases to 1.375 over 6 s of voice: in Chromium a first answer's second piece can outdo its first (`bench barge-in`).
  settleMs: 6000,
  coldMargin: 2,
  // An answer after a silence starts 1.25× wider, easing back over 500 ms: it may come out louder than the last.
  turnMargin: 1.25,
  turnSettleMs: 500,
  // The loudest output of the last 200 ms is what the microphone may hear now: output and input latency and the room.
  referenceMs: 200,
  // Output under 0.02 teaches nothing of the leak's share: there the share is mostly the room's noise.
  referenceMin: 0.02,
  // A peak meter on a clipping capture reads 1 or a hair under: 0.97 is as loud as the microphone can say.
  fullScale: 0.97,
  // One frame stands for at most 25 ms (its 10 ms and a little jitter): a stalled meter's late frame is no sustained sound.
  longestFrameMs: 25,
  // What was learned is noted every 100 ms: a barge-in hands back the leak from before the person's first 40 ms.
  checkpointMs: 100,
};

export const HEARING: Readonly<HearingTuning> = Object.freeze({
  gate: Object.freeze(gate),
  cancelledGate: Object.freeze({
    ...gate,
    // The residual swings further over its usual peak than the leak (the room's reverberation is left whole): single frames reach 0.5–0.9 of a 2.75 bar.
    margin: 2.75,
    coldMargin: 3.5,
    // It hears only while the voice sounds: once silent, the residual is the microphone itself, and its low bar would take the room's ring-out for a person.
    tailMs: 0,
  }),
  // vad-web's thresholds for Silero v5, and three 32 ms frames (~100 ms) of hang so a dip between syllables is not an end.
  voiceActivity: Object.freeze({ onAt: 0.5, offAt: 0.35, hangFrames: 3 }),
  yielding: Object.freeze({
    // Speech going on over 700 ms is more than "mm-hmm" or "yeah": a turn (`bench turn-taking`: every interruption taken, ≥ 90 % backchannels carried on).
    backchannelMaxMs: 700,
    // No speech within 350 ms of the duck, with the model heard, is a cough, a knock, a click.
    noSpeechMs: 350,
    // No words within 1.5 s of the duck is not a turn: the voice carries on.
    wordsWithinMs: 1500,
    // Speech stopped for 250 ms has ended.
    endedMs: 250,
    // Chrome's first words come ~400 ms after speech begins: a sound over with none by 500 ms was not words.
    wordsExpectedMs: 500,
    tickMs: 50,
    // A few of the model's 32 ms frames.
    voiceFreshMs: 250,
  }),
  // 18 dB down is under a person's voice and still heard; back in 60 ms, with no click.
  duck: Object.freeze({ duckDb: -18, unduckMs: 60 }),
});
