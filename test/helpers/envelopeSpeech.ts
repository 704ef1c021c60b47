/**
 * Speech-shaped microphone levels for the echo gate's tests and its benchmark: what a peak meter
 * (peak |sample| over each frame, 0..1) reads while an assistant talks through a speaker, while a
 * person talks into the microphone, or both. Everything is drawn from a seeded generator, so a
 * seed names one exact recording.
 *
 * The model, and why each part is there:
 * - Syllables come at 4–6 Hz and rise fast and fall slowly (a rise over 20–40 % of the syllable),
 *   because that is the amplitude envelope of running speech; each carries a stress factor of
 *   0.75–1.25, so some syllables are louder than others, as in any sentence.
 * - Words are 1–3 syllables. Between syllables of one word the level dips to a quarter of the
 *   syllable's peak (the consonants); between words there is a pause of 50–300 ms, or none (70 %
 *   of words follow a pause).
 * - Each frame's peak wobbles by about 10 % (the pitch period against the frame), so no two frames
 *   of one syllable read the same.
 * - The leak reaches the microphone through a room, whose reverberation holds each decay up
 *   (exponential with a 40–70 ms time constant, i.e. RT60 of about 0.3–0.5 s); the person is close
 *   to the microphone and reaches it dry.
 * - A level is named by its mean over the stretch it covers; peaks then reach about 1.5–2× that
 *   mean, as in real speech. `peakToMean` measures it.
 * - Sources are uncorrelated, so their envelopes combine in power: √(a² + b² + n²). The peak of a
 *   sum of uncorrelated signals lies between the larger part and the plain sum; power addition is
 *   the usual middle estimate, and it is slightly kinder to the leak-alone case than `max` would be
 *   unkind to the person. The result is clipped at 1, where a real capture saturates.
 */

/** A deterministic uniform generator in [0, 1) (mulberry32). */
export const K = { PAUSE_P: 0.5, PAUSE_MAX: 250, STRESS: 0.2, FALLP: 2, TROUGH: 0.3 };
export type Random = () => number;

/** mulberry32: small, fast, and good enough to draw test signals; the same seed gives the same run. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
  /** The mean level the stretch is scaled to, 0..1 (before clipping). */
  meanLevel: number;
  /** Frame length in milliseconds. Default 10. */
  frameMs?: number;
  /** Room reverberation decay time constant in milliseconds; 0 for a dry (close) source. Default 0. */
  reverbMs?: number;
}

/**
 * One speech-shaped envelope, one value per frame, scaled so its mean is `meanLevel`. It starts on
 * a syllable (no leading silence) and may end mid-word.
 */
export function speechEnvelope(random: Random, options: SpeechOptions): Float64Array {
  const frameMs = options.frameMs ?? 10;
  const frames = Math.max(1, Math.round(options.durationMs / frameMs));
  const out = new Float64Array(frames);
  let t = 0;
  let firstWord = true;
  while (t < options.durationMs) {
    if (!firstWord && random() < K.PAUSE_P) t += between(random, 50, K.PAUSE_MAX);
    firstWord = false;
    const syllables = 1 + Math.floor(random() * 3);
    for (let s = 0; s < syllables; s++) {
      const lengthMs = 1000 / between(random, 4, 6);
      const stress = between(random, 1 - K.STRESS, 1 + K.STRESS);
      const rise = between(random, 0.2, 0.4);
      const from = Math.ceil(t / frameMs);
      const to = Math.min(frames, Math.ceil((t + lengthMs) / frameMs));
      for (let f = from; f < to; f++) {
        const u = (f * frameMs - t) / lengthMs;
        const shape =
          u < rise ? 0.5 - 0.5 * Math.cos((Math.PI * u) / rise) : 0.5 + 0.5 * Math.cos(Math.PI * ((u - rise) / (1 - rise)) ** K.FALLP);
        out[f] = stress * (K.TROUGH + (1 - K.TROUGH) * shape);
      }
      t += lengthMs;
    }
  }
  for (let f = 0; f < frames; f++) {
    out[f] = (out[f] ?? 0) * Math.max(0, 1 + 0.1 * gaussian(random));
  }
  const reverbMs = options.reverbMs ?? 0;
  if (reverbMs > 0) {
    const hold = Math.exp(-frameMs / reverbMs);
    for (let f = 1; f < frames; f++) out[f] = Math.max(out[f] ?? 0, (out[f - 1] ?? 0) * hold);
  }
  let sum = 0;
  for (const v of out) sum += v;
  const scale = sum > 0 ? (options.meanLevel * frames) / sum : 0;
  for (let f = 0; f < frames; f++) out[f] = (out[f] ?? 0) * scale;
  return out;
}

/** A steady level, one value per frame: the bench-top case the reference measurements used. */
export function steadyEnvelope(level: number, durationMs: number, frameMs = 10): Float64Array {
  return new Float64Array(Math.max(1, Math.round(durationMs / frameMs))).fill(level);
}

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
