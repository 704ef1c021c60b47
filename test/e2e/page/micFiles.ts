/**
 * The WAV files Chromium's fake capture device plays as the page's microphone
 * (`--use-file-for-fake-audio-capture`): silence, or silence and then a person talking.
 *
 * The default fake device beeps every second, which the echo gate rightly hears as a person talking
 * over the assistant; these pages need a microphone that says nothing unless a test wants it to.
 */
import { writeWav } from '../speech/wav';

const RATE_HZ = 16_000;

/** One second of silence; Chromium loops it, so the microphone is silent for as long as it is open. */
export function writeSilence(path: string): string {
  writeWav(path, { samples: new Float32Array(RATE_HZ), rateHz: RATE_HZ });
  return path;
}

/**
 * Silence for `quietMs`, then `talkMs` of something voiced (a 140 Hz buzz with its harmonics, in
 * syllables at 4 Hz, as speech has — neither a steady tone nor steady noise, which the browser's
 * noise suppression would take away) peaking at `level`, then silence to the end. Played once
 * (`%noloop`), from the moment the page opens the microphone.
 */
export function writeTalkAfter(path: string, options: { quietMs: number; talkMs: number; level: number; totalMs: number }): string {
  const samples = new Float32Array(Math.round((options.totalMs / 1000) * RATE_HZ));
  const from = Math.round((options.quietMs / 1000) * RATE_HZ);
  const to = Math.min(samples.length, from + Math.round((options.talkMs / 1000) * RATE_HZ));
  for (let i = from; i < to; i++) {
    const t = (i - from) / RATE_HZ;
    let voiced = 0;
    for (let harmonic = 1; harmonic <= 12; harmonic++) voiced += Math.sin(2 * Math.PI * 140 * harmonic * t) / harmonic;
    const syllable = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
    samples[i] = options.level * syllable * (voiced / 2.2);
  }
  writeWav(path, { samples, rateHz: RATE_HZ });
  return `${path}%noloop`;
}

/** A sound in a microphone file: a short murmur (a voiced "mm-hmm", two syllables) or a knock (a noise burst that dies at once). */
export interface MicSound {
  kind: 'murmur' | 'knock';
  /** Where it begins, in ms after the page opens the microphone. */
  atMs: number;
  /** Its peak level. */
  level: number;
}

const MURMUR_MS = 320;
const KNOCK_MS = 250;

/** Silence with `sounds` in it, `totalMs` long, played once (`%noloop`) from the moment the page opens the microphone. */
export function writeSounds(path: string, sounds: readonly MicSound[], totalMs: number): string {
  const samples = new Float32Array(Math.round((totalMs / 1000) * RATE_HZ));
  let seed = 0x6b6e6f63;
  const random = () => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  for (const sound of sounds) {
    const from = Math.round((sound.atMs / 1000) * RATE_HZ);
    const length = Math.round(((sound.kind === 'murmur' ? MURMUR_MS : KNOCK_MS) / 1000) * RATE_HZ);
    for (let i = 0; i < length && from + i < samples.length; i++) {
      const t = i / RATE_HZ;
      let value: number;
      if (sound.kind === 'murmur') {
        // "Mm-hmm": a hummed 120 Hz voice in two syllables, rising on the second.
        const pitch = t < 0.16 ? 120 : 150;
        let voiced = 0;
        for (let harmonic = 1; harmonic <= 8; harmonic++) voiced += Math.sin(2 * Math.PI * pitch * harmonic * t) / harmonic ** 2;
        value = Math.sin((Math.PI * (t % 0.16)) / 0.16) * (voiced / 1.6);
      } else {
        // A knock on a table: broadband noise, dying away within a quarter of a second.
        value = (random() * 2 - 1) * Math.exp(-t / 0.06);
      }
      samples[from + i] = sound.level * value;
    }
  }
  writeWav(path, { samples, rateHz: RATE_HZ });
  return `${path}%noloop`;
}
