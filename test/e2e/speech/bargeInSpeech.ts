/**
 * The speech for the barge-in browser tests and benchmark. What needs espeak-ng and sox — the
 * voices themselves, and the leak as a speaker and a room colour it — was made once and is kept in
 * test/e2e/speech/clips/ (with clips.json: the recipe they were made from and each file's
 * sha256), so the tests need neither tool; `npm run speech` makes them again, and a change to the
 * recipe below (the words, voices, gap, effects) is refused until it has been run. Everything else
 * is made from those clips at set-up time, here:
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
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../helpers/random';
import { readWav, writeWav } from './wav';
import type { Pcm } from './wav';

/** Where the clips made with espeak-ng and sox are kept. */
export const CLIPS_DIR = join(import.meta.dirname, 'clips');
/** The command that makes them again. */
export const REMAKE_CLIPS = 'npm run speech';

/** Every file is written at 48 kHz; Chromium resamples to its context's rate (44.1 kHz in the headless runs here). */
export const RATE_HZ = 48_000;
/**
 * Where the marker starts in the capture file, in ms. In trials a marker at the very start was
 * sometimes missed whole (the file had begun before the page's graph was connected), and the first
 * frames that did arrive glitched (silent frames between full ones).
 */
const MARKER_AT_MS = 400;
/** The marker: long enough to fill a 10 ms level frame whatever its phase. */
const MARKER_MS = 30;
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
const ANSWER = [
  'Sure, here is the plan for tomorrow.',
  'We meet at nine by the river, right next to the old stone bridge, and walk from there.',
] as const;
const PERSON_VOICE = 'en-gb+f3';
/** What a person says over the assistant: a question, or the one quiet word of the headphone case. */
const PERSON_SAYS = {
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

/** Runs one of the clip-making tools (espeak-ng, sox); throws with its own message when it fails. */
export function run(command: string, args: readonly string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** espeak-ng's speaking rate for every voice, in words per minute. */
export const WORDS_PER_MINUTE = 165;
/** The assistant's pieces are scaled so their loudest sample is this. */
const PIECE_LEVEL = 0.8;
/**
 * sox's colouring of the assistant's timeline: a small speaker (no bass) in a room. Every sox run
 * here is without dither (`-D`), which would otherwise add fresh random noise each time: the clips
 * come out the same whenever they are made.
 */
const LEAK_EFFECTS = ['gain', '-6', 'highpass', '200', 'reverb', '30', '50', '40', 'gain', '-n', '-1'] as const;

/** Everything the kept clips depend on: when any of it changes, they must be made again. */
const RECIPE = {
  rateHz: RATE_HZ,
  answer: ANSWER,
  assistantVoice: ASSISTANT_VOICE,
  personSays: PERSON_SAYS,
  personVoice: PERSON_VOICE,
  wordsPerMinute: WORDS_PER_MINUTE,
  gapMs: GAP_MS,
  edge: EDGE,
  pieceLevel: PIECE_LEVEL,
  leakEffects: LEAK_EFFECTS,
};

/** The kept clips, by what they are; each as espeak-ng and sox made it, at `RATE_HZ`. */
const CLIP_FILES = {
  assistant: ANSWER.map((_, i) => `assistant-${String(i + 1)}.wav`),
  question: 'person-question.wav',
  word: 'person-word.wav',
  /** The assistant's timeline (trimmed pieces and the gap) as the speaker and room colour it. */
  leak: 'assistant-leak.wav',
} as const;

/** The manifest's name in a clips folder. */
export const MANIFEST = 'clips.json';

/** clips.json: what the clips were made from and each file's sha256; other clip sets add their own section (turnTakingSpeech.ts). */
export interface Manifest {
  recipe: typeof RECIPE;
  /** sha256 of each clip, by file name: these and every other set's. */
  files: Record<string, string>;
}

function clipNames(): string[] {
  return [...CLIP_FILES.assistant, CLIP_FILES.question, CLIP_FILES.word, CLIP_FILES.leak];
}

export const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * Why the kept clips in `dir` cannot be used — missing, made from another recipe, or changed
 * since — as a sentence that says how to make them again; null when they can. A folder of other
 * recordings (`sameRecipe` false) is held only to its own manifest: every file there, as hashed.
 */
export function clipsProblem(dir = CLIPS_DIR, sameRecipe = true): string | null {
  const manifestPath = join(dir, MANIFEST);
  if (!existsSync(manifestPath)) return `The test speech clips are missing from ${dir}; make them with \`${REMAKE_CLIPS}\` (needs espeak-ng and sox).`;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  if (sameRecipe && JSON.stringify(manifest.recipe) !== JSON.stringify(RECIPE)) {
    return `The test speech clips in ${dir} were made from another recipe (words, voices, gap or effects in bargeInSpeech.ts changed); make them again with \`${REMAKE_CLIPS}\` (needs espeak-ng and sox).`;
  }
  for (const name of clipNames()) {
    const path = join(dir, name);
    if (!existsSync(path) || sha256(path) !== manifest.files[name]) {
      return `The test speech clip ${path} is missing or not the one made; make the clips again with \`${REMAKE_CLIPS}\` (needs espeak-ng and sox).`;
    }
  }
  return null;
}

/** Says `text` in `voice` with espeak-ng into `path`, at `RATE_HZ`, mono 16-bit (sox converts it). */
export function say(path: string, voice: string, text: string): void {
  const raw = `${path}.espeak.wav`;
  run('espeak-ng', ['-v', voice, '-s', String(WORDS_PER_MINUTE), '-w', raw, text]);
  run('sox', ['-D', raw, '-r', String(RATE_HZ), '-c', '1', '-b', '16', path]);
  rmSync(raw);
}

/** The assistant's pieces as played (trimmed, scaled) and its timeline: the pieces with the gap between them. */
function assistantOf(raw: readonly Pcm[]): { pieces: Float32Array[]; timeline: Float32Array } {
  const pieces = raw.map((pcm) => trimmed(pcm.samples, PIECE_LEVEL));
  const gap = msToSamples(GAP_MS);
  const timeline = new Float32Array(pieces.reduce((n, p) => n + p.length, 0) + gap * (pieces.length - 1));
  let at = 0;
  for (const samples of pieces) {
    timeline.set(samples, at);
    at += samples.length + gap;
  }
  return { pieces, timeline };
}

/**
 * Makes the clips again in `dir` with espeak-ng and sox (`npm run speech`), and the manifest that
 * says what they were made from. Throws if either tool fails, with its own message.
 */
export function makeClips(dir = CLIPS_DIR): void {
  const work = mkdtempSync(join(tmpdir(), 'confab-speech-'));
  try {
    mkdirSync(dir, { recursive: true });
    ANSWER.forEach((text, i) => {
      say(join(dir, CLIP_FILES.assistant[i] ?? ''), ASSISTANT_VOICE, text);
    });
    say(join(dir, CLIP_FILES.question), PERSON_VOICE, PERSON_SAYS.question);
    say(join(dir, CLIP_FILES.word), PERSON_VOICE, PERSON_SAYS.word);
    // The leak is coloured from the pieces as the page plays them, read from the kept files.
    const { timeline } = assistantOf(CLIP_FILES.assistant.map((name) => readWav(join(dir, name))));
    const dry = join(work, 'assistant-timeline.wav');
    writeWav(dry, { samples: timeline, rateHz: RATE_HZ });
    run('sox', ['-D', dry, join(dir, CLIP_FILES.leak), ...LEAK_EFFECTS]);
    const manifest: Manifest = { recipe: RECIPE, files: Object.fromEntries(clipNames().map((name) => [name, sha256(join(dir, name))])) };
    writeFileSync(join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The kept clips, checked against the recipe; throws saying how to make them again when they cannot be used. */
function readClips(dir = CLIPS_DIR): { assistant: Pcm[]; question: Pcm; word: Pcm; leak: Pcm } {
  const problem = clipsProblem(dir, dir === CLIPS_DIR);
  if (problem !== null) throw new Error(problem);
  return {
    assistant: CLIP_FILES.assistant.map((name) => readWav(join(dir, name))),
    question: readWav(join(dir, CLIP_FILES.question)),
    word: readWav(join(dir, CLIP_FILES.word)),
    leak: readWav(join(dir, CLIP_FILES.leak)),
  };
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

export function msToSamples(ms: number): number {
  return Math.round((ms / 1000) * RATE_HZ);
}

/** Adds `clip` into `into` from sample `at`, as far as it fits. */
function addAt(into: Float32Array, clip: Float32Array, at: number): void {
  for (let i = 0; i < clip.length && at + i < into.length; i++) into[at + i] = (into[at + i] ?? 0) + (clip[i] ?? 0);
}

/**
 * The coloured leak on the timeline with its tail, its peak scaled to 1. sox's reverb ends with its
 * input, so the ring-out is cut at the answer's last sample and the tail is the room's noise floor
 * alone. The tail must be in the file: Chromium's fake capture at the end of a `%noloop` file
 * keeps handing over its last buffer, a steady sound the page would hear just after the answer.
 */
function leakOf(wet: Pcm, timeline: Float32Array): Float32Array {
  const leak = new Float32Array(timeline.length + msToSamples(TAIL_MS));
  leak.set(wet.samples.subarray(0, leak.length));
  const peak = peakOf(leak);
  return leak.map((s) => s / peak);
}

/** The faint noise floor, the same every time. */
function noiseFloor(length: number): Float32Array {
  const random = seededRandom(NOISE_SEED);
  return Float32Array.from({ length }, () => (random() * 2 - 1) * NOISE_LEVEL);
}

/** The answer as a speech set-up plays it and the microphone hears it leak. */
export interface Answer {
  assistant: AssistantSpeech;
  /** The coloured leak from the answer's first sample, with its tail, its peak 1, at `RATE_HZ`. */
  leak: Float32Array;
}

/**
 * Writes the assistant's pieces (trimmed, as played) into `dir` and answers them with the leak,
 * from the clips in `clipsDir`. Throws, saying how to make them again, if those cannot be used.
 */
export function answerSpeech(dir: string, clipsDir = CLIPS_DIR): Answer {
  mkdirSync(dir, { recursive: true });
  const clips = readClips(clipsDir);
  const { pieces, timeline } = assistantOf(clips.assistant);
  const names = pieces.map((samples, i) => {
    const name = `assistant-${String(i + 1)}.wav`;
    writeWav(join(dir, name), { samples, rateHz: RATE_HZ });
    return name;
  });
  return {
    assistant: { pieces: names, pieceMs: pieces.map((p) => (p.length / RATE_HZ) * 1000), totalMs: (timeline.length / RATE_HZ) * 1000 },
    leak: leakOf(clips.leak, timeline),
  };
}

/** A sound over the leak in a microphone WAV: its samples (peak 1), its loudest sample, and when its first sample comes, in ms after the answer's first. */
export interface Overlay {
  samples: Float32Array;
  level: number;
  atMs: number;
}

/**
 * Writes one fake-microphone WAV to `path` on the timeline the harness pages line up with: the
 * noise floor, the marker, the leak at `leakLevel` from `LEAD_MS` after the marker, and `overlays`.
 */
export function writeMic(path: string, leak: Float32Array, leakLevel: number, overlays: readonly Overlay[]): void {
  const marker = msToSamples(MARKER_AT_MS);
  const lead = marker + msToSamples(LEAD_MS);
  const samples = noiseFloor(lead + leak.length);
  for (let i = 0; i < msToSamples(MARKER_MS); i++) samples[marker + i] = MARKER_LEVEL * Math.sin((2 * Math.PI * MARKER_HZ * i) / RATE_HZ);
  if (leakLevel > 0) addAt(samples, leak.map((s) => s * leakLevel), lead);
  for (const { samples: sound, level, atMs } of overlays) addAt(samples, sound.map((s) => s * level), lead + msToSamples(atMs));
  writeWav(path, { samples, rateHz: RATE_HZ });
}

/**
 * Makes the assistant's pieces and one microphone WAV per scenario in `dir` (created if missing),
 * from the kept clips. Throws, saying how to make them again, if those cannot be used.
 */
export function makeSpeech(dir: string, scenarios: readonly MicScenario[]): Speech {
  const { assistant, leak } = answerSpeech(dir);
  const clips = readClips();
  const voices = {
    question: trimmed(clips.question.samples, 1),
    word: trimmed(clips.word.samples, 1),
  };
  const mics = new Map<string, string>();
  for (const scenario of scenarios) {
    const path = join(dir, `mic-${scenario.name}.wav`);
    const { person } = scenario;
    writeMic(path, leak, scenario.leak, person === null ? [] : [{ samples: voices[person.says], level: person.level, atMs: person.atMs }]);
    mics.set(scenario.name, path);
  }
  return {
    dir,
    assistant,
    personMs: { question: (voices.question.length / RATE_HZ) * 1000, word: (voices.word.length / RATE_HZ) * 1000 },
    mics,
  };
}
