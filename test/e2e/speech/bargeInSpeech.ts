/**
 * The speech for the barge-in browser tests and benchmark, made at set-up time with espeak-ng and
 * sox (both in /usr/bin here and in CI):
 *
 * - the assistant's answer, two pieces the page plays through the real player, dry;
 * - one fake-microphone WAV per scenario, on a timeline the page can line up with its playback:
 *   `MARKER_AT_MS` of room noise, a 30 ms marker tone, `LEAD_MS` from the marker's start to what
 *   the microphone would hear while the assistant talks. The capture file starts when the page
 *   calls getUserMedia, but its first tens of milliseconds can be gone (or glitch) before the
 *   page's graph is connected, which is why the marker is not at the very start.
 *
 * The leak is the assistant's own timeline (piece, the player's gap, piece) as a laptop speaker and
 * a room would colour it — sox's high-pass (a small speaker has no bass) and reverb — scaled so its
 * loudest sample is the scenario's leak level, the level a peak meter reads on the leak's loudest
 * syllable. The person is a different voice, dry (close to the microphone), starting at a known
 * moment: their first sample over 1 % of their peak. Under everything is a faint, seeded noise floor
 * (a real capture is never digital silence). Sources add as waveforms and clip at full scale, as a
 * capture does.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { seededRandom } from '../../helpers/random';
import { readWav, writeWav } from './wav';
import type { Pcm } from './wav';

/** Every file is written at 48 kHz; Chromium resamples to its context's rate (44.1 kHz in the headless runs here). */
export const RATE_HZ = 48_000;
/**
 * Where the marker starts in the capture file, in ms. In trials a marker at the very start was
 * sometimes missed whole (the file had begun before the page's graph was connected), and the first
 * frames that did arrive glitched (silent frames between full ones).
 */
export const MARKER_AT_MS = 400;
/** The marker: long enough to fill a 10 ms level frame whatever its phase. */
export const MARKER_MS = 30;
/** The marker's peak level: over the noise floor, under the echo gate's floor (0.09). */
export const MARKER_LEVEL = 0.05;
const MARKER_HZ = 1000;
/** From the marker's first sample to the assistant's first sample at the microphone, in ms. */
export const LEAD_MS = 600;
/** The player's gap between pieces in conversation (the bot's `gap`), in ms. */
export const GAP_MS = 120;
/** Microphone noise floor, peak: a quiet room through a decent microphone. */
const NOISE_LEVEL = 0.003;
/** Quiet kept after the assistant's last sample, so the page hears the room ring out. */
const TAIL_MS = 900;
/** Where a clip's sound begins and ends: its first and last sample over this share of its peak. */
const EDGE = 0.01;
const NOISE_SEED = 0x5eed_ba26;

const ASSISTANT_VOICE = 'en-us';
/** The answer the tests play: two pieces, so the player's gap is in it. */
export const ANSWER = [
  'Sure, here is the plan for tomorrow.',
  'We meet at nine by the river, right next to the old stone bridge, and walk from there.',
] as const;
const PERSON_VOICE = 'en-gb+f3';
/** What a person says over the assistant: a question, or the one quiet word of the headphone case. */
export const PERSON_SAYS = {
  question: 'Wait, hold on, I have a question about that.',
  word: 'Wait.',
} as const;

/** The assistant's answer as the page plays it. */
export interface AssistantSpeech {
  /** The pieces' file names under the speech folder, in order. */
  pieces: string[];
  /** The pieces' lengths in milliseconds. */
  pieceMs: number[];
  /** From its first sample to its last, gap included, in milliseconds. */
  totalMs: number;
}

/** What the microphone hears in one scenario. */
export interface MicScenario {
  /** Names the WAV file; letters, digits, dots and dashes. */
  name: string;
  /** The leak's loudest sample, 0..1; 0 for headphones (nothing from the speaker reaches the microphone). */
  leak: number;
  /** A person talking, or null for the leak alone. */
  person: {
    says: keyof typeof PERSON_SAYS;
    /** Their loudest sample before clipping, 0..1 or over (a loud voice clips, as it does at a real microphone). */
    level: number;
    /** When their first sample comes, in ms after the assistant's first sample. */
    atMs: number;
  } | null;
}

/** Everything one set-up made. */
export interface Speech {
  /** The folder holding every file. */
  dir: string;
  assistant: AssistantSpeech;
  /** How long each thing a person says lasts, first sample to last, in ms. */
  personMs: Record<keyof typeof PERSON_SAYS, number>;
  /** The microphone WAV for each scenario, by name: an absolute path. */
  mics: Map<string, string>;
}

function run(command: string, args: readonly string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Says `text` in `voice` and returns it at `RATE_HZ`, mono. */
function say(dir: string, name: string, voice: string, text: string): Pcm {
  const raw = join(dir, `${name}.espeak.wav`);
  const path = join(dir, `${name}.wav`);
  run('espeak-ng', ['-v', voice, '-s', '165', '-w', raw, text]);
  run('sox', [raw, '-r', String(RATE_HZ), '-c', '1', '-b', '16', path]);
  return readWav(path);
}

function peakOf(samples: Float32Array): number {
  let peak = 0;
  for (const sample of samples) peak = Math.max(peak, Math.abs(sample));
  return peak;
}

/** The stretch from the first to the last sample over `EDGE` of the peak, scaled so its peak is `level`. */
export function trimmed(samples: Float32Array, level: number): Float32Array {
  const peak = peakOf(samples);
  if (peak === 0) throw new Error('trimmed: the clip is silent; espeak-ng wrote no sound.');
  const over = (s: number | undefined) => Math.abs(s ?? 0) > EDGE * peak;
  let first = 0;
  while (!over(samples[first])) first++;
  let last = samples.length - 1;
  while (!over(samples[last])) last--;
  return samples.slice(first, last + 1).map((s) => (s / peak) * level);
}

function msToSamples(ms: number): number {
  return Math.round((ms / 1000) * RATE_HZ);
}

/** Adds `clip` into `into` from sample `at`, as far as it fits. */
function addAt(into: Float32Array, clip: Float32Array, at: number): void {
  for (let i = 0; i < clip.length && at + i < into.length; i++) into[at + i] = (into[at + i] ?? 0) + (clip[i] ?? 0);
}

/** Colours the assistant's timeline as a speaker and a room would and scales its peak to 1. */
function leakOf(dir: string, timeline: Float32Array): Float32Array {
  const dry = join(dir, 'assistant-timeline.wav');
  const wet = join(dir, 'assistant-leak.wav');
  writeWav(dry, { samples: timeline, rateHz: RATE_HZ });
  run('sox', [dry, wet, 'gain', '-6', 'highpass', '200', 'reverb', '30', '50', '40', 'gain', '-n', '-1']);
  const leak = readWav(wet).samples.slice(0, timeline.length + msToSamples(TAIL_MS));
  const peak = peakOf(leak);
  return leak.map((s) => s / peak);
}

/** The faint noise floor, the same every time. */
function noiseFloor(length: number): Float32Array {
  const random = seededRandom(NOISE_SEED);
  return Float32Array.from({ length }, () => (random() * 2 - 1) * NOISE_LEVEL);
}

/**
 * Makes the assistant's pieces of `answer` and one microphone WAV per scenario in `dir` (created if
 * missing).
 * Throws if espeak-ng or sox fails, with their own message.
 */
export function makeSpeech(dir: string, scenarios: readonly MicScenario[], answer: readonly string[] = ANSWER): Speech {
  mkdirSync(dir, { recursive: true });
  const pieces = answer.map((text, i) => trimmed(say(dir, `assistant-raw-${i + 1}`, ASSISTANT_VOICE, text).samples, 0.8));
  const names = pieces.map((samples, i) => {
    const name = `assistant-${i + 1}.wav`;
    writeWav(join(dir, name), { samples, rateHz: RATE_HZ });
    return name;
  });
  const gap = msToSamples(GAP_MS);
  const timeline = new Float32Array(pieces.reduce((n, p) => n + p.length, 0) + gap * (pieces.length - 1));
  let at = 0;
  for (const samples of pieces) {
    timeline.set(samples, at);
    at += samples.length + gap;
  }
  const leak = leakOf(dir, timeline);
  const voices = {
    question: trimmed(say(dir, 'person-question', PERSON_VOICE, PERSON_SAYS.question).samples, 1),
    word: trimmed(say(dir, 'person-word', PERSON_VOICE, PERSON_SAYS.word).samples, 1),
  };

  const marker = msToSamples(MARKER_AT_MS);
  const lead = marker + msToSamples(LEAD_MS);
  const mics = new Map<string, string>();
  for (const scenario of scenarios) {
    const samples = noiseFloor(lead + leak.length);
    for (let i = 0; i < msToSamples(MARKER_MS); i++) samples[marker + i] = MARKER_LEVEL * Math.sin((2 * Math.PI * MARKER_HZ * i) / RATE_HZ);
    if (scenario.leak > 0) addAt(samples, leak.map((s) => s * scenario.leak), lead);
    if (scenario.person !== null) {
      const { says, level, atMs } = scenario.person;
      addAt(samples, voices[says].map((s) => s * level), lead + msToSamples(atMs));
    }
    const path = join(dir, `mic-${scenario.name}.wav`);
    writeWav(path, { samples, rateHz: RATE_HZ });
    mics.set(scenario.name, path);
  }
  return {
    dir,
    assistant: { pieces: names, pieceMs: pieces.map((p) => (p.length / RATE_HZ) * 1000), totalMs: (timeline.length / RATE_HZ) * 1000 },
    personMs: { question: (voices.question.length / RATE_HZ) * 1000, word: (voices.word.length / RATE_HZ) * 1000 },
    mics,
  };
}
