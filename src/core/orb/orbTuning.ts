/**
 * The orb's figures, in one place beside the measurements that chose them.
 */
import type { OrbState } from './orbState';

/** How the orb moves and follows the sound. */
export interface OrbTuning {
  /**
   * How many strands every shape draws. Six is enough for crossings everywhere round the shape
   * and few enough that each strand stays legible. Default 6.
   */
  strands: number;
  /**
   * The turning rate with a voice, in radians a second: measured at about 0.64 in the running page
   * it grew from, where amplitude alone read as a meter and motion round the ring read as a voice.
   */
  voiceRateRadPerS: number;
  /**
   * Time constant, in milliseconds, with which the turning rate eases between its resting value
   * and `voiceRateRadPerS`: a voice picks it up within a syllable or two, and the gaps between
   * words do not make it stutter. Default 400.
   */
  rateEaseMs: number;
  /**
   * How far strand rates spread round the shared rate, as a share of it: 0.5 gives strands from
   * 0.75× to 1.25×, far enough apart that the crossings travel visibly. Default 0.5.
   */
  strandRateSpread: number;
  /**
   * Time constant, in milliseconds, with which the drawn level rises to a louder sound: fast
   * enough that a syllable's onset is seen with it. Default 30.
   */
  attackMs: number;
  /**
   * Time constant, in milliseconds, with which the drawn level falls back: slower than the
   * attack, so a syllable's tail decays instead of flickering, and quick enough that the gap
   * between two syllables (speech runs at about four a second) still shows. Default 140.
   */
  releaseMs: number;
  /**
   * The microphone level, 0..1, over which it counts as a voice and the strands speed up.
   * Over a quiet room's noise (a peak meter reads 0.01–0.03 there), under a quiet word (about
   * 0.12). The assistant's audio is a voice whenever any of it is audible, at any level. Default 0.06.
   */
  voiceFloor: number;
  /**
   * The longest step integrated at once, in milliseconds. A tab that was hidden resumes with a
   * step of minutes; taken whole it would spin the picture to an arbitrary place. Default 250.
   */
  maxStepMs: number;
  /** How many segments each strand is drawn with; enough that curves stay smooth at 512 px. Default 160. */
  segments: number;
}

/** The defaults, each explained on its field in `OrbTuning`. */
export const ORB: Readonly<OrbTuning> = Object.freeze({
  strands: 6,
  voiceRateRadPerS: 0.64,
  rateEaseMs: 400,
  strandRateSpread: 0.5,
  attackMs: 30,
  releaseMs: 140,
  voiceFloor: 0.06,
  maxStepMs: 250,
  segments: 160,
});

/**
 * The turning rate with no voice, in radians a second, per state. Measured at about 0.13 at rest;
 * thinking churns a little faster, because work is going on that the person is waiting for;
 * a muted or failed orb turns slower still, so it reads as set aside rather than frozen.
 */
export const REST_RATE_RAD_PER_S: Readonly<Record<OrbState, number>> = Object.freeze({
  connecting: 0.13,
  listening: 0.13,
  hearing: 0.13,
  thinking: 0.3,
  speaking: 0.13,
  muted: 0.065,
  error: 0.065,
});
