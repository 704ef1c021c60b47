/**
 * The orb's motion: a pure model stepped once per drawn frame.
 *
 * The shape follows the SOUND, not the turn. The state and the audio disagree constantly — a
 * reply plays on after the turn has come back, an interruption returns the turn mid-sentence — so
 * the level drawn is chosen from the audio alone: the assistant's whenever any of it is audible,
 * and otherwise the microphone's. The microphone is never drawn while the assistant is audible: it
 * is hearing the reply through the speakers, and an orb wobbling to its own echo lies twice.
 *
 * Each strand turns at its own rate and every other one the opposite way, so the strands shear
 * past each other and the crossings travel; one shared rotation would turn the picture like a
 * wheel. The phase is integrated step by step, never taken as time × speed: multiplying time by a
 * speed that changes makes the picture jump as the speed moves.
 *
 * Pure: the model is immutable plain data and each step is given its duration.
 */
import type { OrbState } from './orbState';
import { ORB, REST_RATE_RAD_PER_S } from './orbTuning';
import type { OrbTuning } from './orbTuning';

/** The sound the orb follows, read once per frame. */
export interface OrbLevels {
  /** The level of the assistant's voice at the player's output, 0..1. */
  assistantLevel: number;
  /** The level of the microphone (the echo-cancelled stream), 0..1. */
  micLevel: number;
  /** Whether any of the assistant's audio is playing now. */
  assistantAudible: boolean;
}

/** One frame's input: the levels and the state the page is in. */
export interface OrbFrame extends OrbLevels {
  state: OrbState;
}

/** The orb between two frames. */
export interface OrbModel {
  /** The state the orb shows, from the latest frame. */
  readonly state: OrbState;
  /** The level drawn, 0..1: the heard level smoothed (fast attack, slower release). */
  readonly level: number;
  /** The shared turning rate, in radians a second, easing between rest and voice. */
  readonly rateRadPerS: number;
  /** Each strand's phase, in radians, kept in [0, 2π); shapes use it only through sin and cos. */
  readonly phases: readonly number[];
}

/** The level of a silent room with nothing playing. */
export const SILENCE: Readonly<OrbLevels> = Object.freeze({ assistantLevel: 0, micLevel: 0, assistantAudible: false });

const TURN = 2 * Math.PI;
/** The golden angle, in radians: successive multiples never line two strands up. */
const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));
/** The golden ratio's fractional part: successive multiples spread evenly over 0..1 without repeating. */
const GOLDEN_FRACTION = (Math.sqrt(5) - 1) / 2;

/** The orb at rest in `state`: nothing heard, the resting rate, strands spread round the shape. */
export function createOrb(state: OrbState, tuning: OrbTuning = ORB): OrbModel {
  return {
    state,
    level: 0,
    rateRadPerS: REST_RATE_RAD_PER_S[state],
    phases: Array.from({ length: tuning.strands }, (_, index) => wrapPhase(index * GOLDEN_ANGLE)),
  };
}

/** Which way strand `index` turns: +1 for even strands, -1 for odd ones. */
export function strandDirection(index: number): 1 | -1 {
  return index % 2 === 0 ? 1 : -1;
}

/** How fast strand `index` turns relative to the shared rate: a factor, distinct for every strand. */
export function strandRateFactor(index: number, tuning: OrbTuning = ORB): number {
  const spread = (index * GOLDEN_FRACTION) % 1;
  return 1 + tuning.strandRateSpread * (spread - 0.5);
}

/** The level this frame's sound puts on the orb, 0..1, before smoothing. */
export function heardLevel(frame: OrbFrame): number {
  if (frame.assistantAudible) return unitLevel(frame.assistantLevel);
  // A muted microphone hears nothing the person means to be heard.
  if (frame.state === 'muted') return 0;
  return unitLevel(frame.micLevel);
}

/**
 * The rate the strands are heading for, in radians a second: the voice rate while the assistant
 * is audible or the microphone drawn is over `voiceFloor`, the state's resting rate otherwise.
 * It is decided from this frame's sound alone; the easing toward it is what smooths a flickering
 * level, so a steady input turns the strands alike however the time is sliced into frames.
 */
function targetRate(frame: OrbFrame, tuning: OrbTuning = ORB): number {
  const voiced = frame.assistantAudible || heardLevel(frame) > tuning.voiceFloor;
  return voiced ? tuning.voiceRateRadPerS : REST_RATE_RAD_PER_S[frame.state];
}

/**
 * The orb after a frame of `dtMs` milliseconds. Level and rate ease exponentially toward their
 * targets, and the phase advances by the exact integral of the easing rate over the step, so a
 * steady input reaches the same picture at any frame rate.
 */
export function stepOrb(model: OrbModel, frame: OrbFrame, dtMs: number, tuning: OrbTuning = ORB): OrbModel {
  const stepMs = Number.isFinite(dtMs) ? Math.min(Math.max(dtMs, 0), tuning.maxStepMs) : 0;
  const heard = heardLevel(frame);
  const levelEaseMs = heard > model.level ? tuning.attackMs : tuning.releaseMs;
  const level = approach(model.level, heard, stepMs, levelEaseMs);
  const target = targetRate(frame, tuning);
  const rateRadPerS = approach(model.rateRadPerS, target, stepMs, tuning.rateEaseMs);
  const turnedRad = easedDistance(model.rateRadPerS, target, stepMs, tuning.rateEaseMs);
  const phases = model.phases.map((phase, index) =>
    wrapPhase(phase + strandDirection(index) * strandRateFactor(index, tuning) * turnedRad),
  );
  return { state: frame.state, level, rateRadPerS, phases };
}

/** Where a value easing exponentially from `from` toward `to` with time constant `easeMs` is after `stepMs`. */
function approach(from: number, to: number, stepMs: number, easeMs: number): number {
  return to + (from - to) * Math.exp(-stepMs / easeMs);
}

/**
 * How far, in radians, a rate easing from `fromRadPerS` toward `toRadPerS` turns in `stepMs`:
 * the integral of the easing curve, so the distance does not depend on how the time is sliced.
 */
function easedDistance(fromRadPerS: number, toRadPerS: number, stepMs: number, easeMs: number): number {
  const stepS = stepMs / 1000;
  const easeS = easeMs / 1000;
  return toRadPerS * stepS + (fromRadPerS - toRadPerS) * easeS * (1 - Math.exp(-stepS / easeS));
}

/** `phase` brought into [0, 2π), so hours of turning keep full precision. */
function wrapPhase(phase: number): number {
  const wrapped = phase - TURN * Math.floor(phase / TURN);
  // A phase a hair under 0 wraps to 2π - ε, which rounds to 2π itself.
  return wrapped >= TURN ? 0 : wrapped;
}

/** A level brought into 0..1; a missing or broken reading is silence. */
function unitLevel(level: number): number {
  return Number.isFinite(level) ? Math.min(Math.max(level, 0), 1) : 0;
}
