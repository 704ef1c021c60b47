/**
 * Speech-shaped microphone levels for the echo gate's tests and its benchmark: what a peak meter
 * (peak |sample| over each frame, 0..1) reads while an assistant talks through a speaker, while a
 * person talks into the microphone, or both. Everything is drawn from a seeded generator, so a
 * seed names one exact recording.
 *
 * The model, and why each part is there:
 * - Syllables come at 4–6 Hz, rise fast and fall slowly (the rise takes 20–40 % of the syllable),
 *   because that is the amplitude envelope of running speech; each carries a stress factor of
 *   0.8–1.2, so some syllables are louder than others, as in any sentence.
 * - Words are 1–3 syllables. Between syllables of one word the level dips to 30 % of the
 *   syllable's peak (the consonants); half the words follow a pause of 50–250 ms.
 * - Each frame's peak wobbles by about 10 % (the pitch period against the frame), so no two frames
 *   of one syllable read the same.
 * - The leak reaches the microphone through a room, whose reverberation holds each decay up
 *   (exponential with a 40–70 ms time constant, an RT60 of about 0.3–0.5 s); the person is close
 *   to the microphone and reaches it dry.
 * - A level is named by its long-run mean, and the voice's effort is fixed by it: a stretch with
 *   more pauses has a lower mean, not louder syllables. Peaks then reach about 2× the mean (the
 *   99th percentile of a stretch is 1.9–2.1× its mean), as in real speech; `peakToMean` measures it.
 * - Sources are uncorrelated, so their envelopes combine in power: √(a² + b² + n²). The peak of a
 *   sum of uncorrelated signals lies between the larger part and the plain sum; power addition is
 *   the usual middle estimate. The result is clipped at 1, where a real capture saturates.
 */

import { seededRandom } from './random';
import type { Random } from './random';

/** Half the words follow a pause, of 50 ms up to this many milliseconds. */
const WORD_PAUSE_SHARE = 0.5;
const LONGEST_WORD_PAUSE_MS = 250;
/** Syllable peaks vary by this much either way. */
const STRESS = 0.2;
/** Between syllables of a word the level dips to this share of the syllable's peak. */
const TROUGH = 0.3;
/** The fall's shape: above 1 it holds the vowel before it falls. */
const FALL_POWER = 2;
/** The per-frame wobble's standard deviation, as a share of the level. */
const WOBBLE = 0.1;

/** A uniform draw in [low, high). */
export function between(random: Random, low: number, high: number): number {
  return low + (high - low) * random();
}

/** A standard normal draw (Box–Muller), for the per-frame wobble. */
function gaussian(random: Random): number {
  const u = Math.max(random(), 1e-12);
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export interface SpeechOptions {
  /** How long the stretch is, in milliseconds. */
  durationMs: number;
  /** The long-run mean level of the voice, 0..1 (before clipping). */
  meanLevel: number;
  /** Frame length in milliseconds. Default 10. */
  frameMs?: number;
  /** Room reverberation decay time constant in milliseconds; 0 for a dry (close) source. Default 0. */
  reverbMs?: number;
}

/**
 * One speech-shaped envelope, one value per frame, at the effort whose long-run mean is `meanLevel`
 * (before clipping). It starts on a syllable (no leading silence) and may end mid-word.
 */
export function speechEnvelope(random: Random, options: SpeechOptions): Float64Array {
  return scaled(unitSpeech(random, options), options.meanLevel);
}

function scaled(unit: Float64Array, meanLevel: number): Float64Array {
  const scale = meanLevel / UNIT_MEAN;
  return unit.map((v) => v * scale);
}

function unitSpeech(random: Random, options: Omit<SpeechOptions, 'meanLevel'>): Float64Array {
  const frameMs = options.frameMs ?? 10;
  const frames = Math.max(1, Math.round(options.durationMs / frameMs));
  const out = new Float64Array(frames);
  let t = 0;
  let firstWord = true;
  while (t < options.durationMs) {
    if (!firstWord && random() < WORD_PAUSE_SHARE) t += between(random, 50, LONGEST_WORD_PAUSE_MS);
    firstWord = false;
    const syllables = 1 + Math.floor(random() * 3);
    for (let s = 0; s < syllables; s++) {
      const lengthMs = 1000 / between(random, 4, 6);
      const stress = between(random, 1 - STRESS, 1 + STRESS);
      const rise = between(random, 0.2, 0.4);
      const from = Math.ceil(t / frameMs);
      const to = Math.min(frames, Math.ceil((t + lengthMs) / frameMs));
      for (let f = from; f < to; f++) {
        const u = (f * frameMs - t) / lengthMs;
        const shape =
          u < rise ? 0.5 - 0.5 * Math.cos((Math.PI * u) / rise) : 0.5 + 0.5 * Math.cos(Math.PI * ((u - rise) / (1 - rise)) ** FALL_POWER);
        out[f] = stress * (TROUGH + (1 - TROUGH) * shape);
      }
      t += lengthMs;
    }
  }
  for (let f = 0; f < frames; f++) {
    out[f] = (out[f] ?? 0) * Math.max(0, 1 + WOBBLE * gaussian(random));
  }
  const reverbMs = options.reverbMs ?? 0;
  if (reverbMs > 0) {
    const hold = Math.exp(-frameMs / reverbMs);
    for (let f = 1; f < frames; f++) out[f] = Math.max(out[f] ?? 0, (out[f - 1] ?? 0) * hold);
  }
  return out;
}

/**
 * The long-run mean of the unit envelope (syllable peaks about 1), measured once over ten minutes of
 * it. Scaling by this rather than by each stretch's own mean keeps the voice's effort fixed: a
 * stretch with more pauses has a lower mean, not louder syllables.
 */
const UNIT_MEAN = (() => {
  const unit = unitSpeech(seededRandom(1), { durationMs: 600_000 });
  let sum = 0;
  for (const v of unit) sum += v;
  return sum / unit.length;
})();

/** Room noise: a peak meter's reading of a quiet room, `level` ±30 % per frame. */
export function noiseEnvelope(random: Random, level: number, frames: number): Float64Array {
  const out = new Float64Array(frames);
  for (let f = 0; f < frames; f++) out[f] = level * between(random, 0.7, 1.3);
  return out;
}

/** What the meter reads when several uncorrelated sources reach the microphone at once: √Σx², clipped at 1. */
export function mixLevels(...parts: readonly number[]): number {
  let power = 0;
  for (const p of parts) power += p * p;
  return Math.min(1, Math.sqrt(power));
}

/** The peak-to-mean ratio of an envelope, taking its 99th percentile as the peak so one wobble does not decide it. */
export function peakToMean(envelope: Float64Array): number {
  const sorted = Array.from(envelope).sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length);
  const peak = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  return mean > 0 ? peak / mean : 0;
}
