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
