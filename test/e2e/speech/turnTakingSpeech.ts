/**
 * The sounds for the turn-taking benchmark (test/bench/turn-taking.ts), said or made over the
 * barge-in answer (bargeInSpeech.ts):
 *
 * - **interruptions**: "Wait, stop." and "Actually, can you repeat that?", each in two voices;
 * - **backchannels**: "mm-hmm", "uh-huh", "yeah", "right", "okay", "I see", each in two voices;
 * - **non-speech**, made with sox from seeded noise and tones: a cough (a shaped noise burst), a
 *   knock, a run of clicks, a dropped object's clatter — 80 to 400 ms each.
 *
 * They are kept beside the barge-in clips in test/e2e/speech/clips/ and made by the same
 * `npm run speech`; clips.json gains a `turnTaking` section — this recipe, and the list of clips
 * with the words each says (what the bench's fake recogniser hears) — and their sha256s join the
 * manifest's `files`. Another folder with the same manifest (`npm run bench -- turn-taking --clips
 * DIR`) is read from its own list, so other recordings run through the same harness.
 *
 * Each run's capture WAV holds what the microphone hears that is not the voice — the marker, the
 * noise floor, the sound at its onset — and no leak: the harness page adds the voice's leak itself,
 * from the player's output through a room (test/e2e/harness/room.ts), so that it follows the voice.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIPS_DIR, GAP_MS, MANIFEST, RATE_HZ, REMAKE_CLIPS, WORDS_PER_MINUTE, answerSpeech, clipsProblem, msToSamples, run, say, sha256, trimmed, writeMic } from './bargeInSpeech';
import type { AssistantSpeech, Manifest } from './bargeInSpeech';
import { readWav } from './wav';

/** The four kinds of sound over the answer; `leak` is none, the speaker's leak alone. */
export type SoundKind = 'interruption' | 'backchannel' | 'nonSpeech';

/** Two voices that are not the assistant's (en-us): a woman's, as in the barge-in clips, and a man's. */
const VOICES = ['en-gb+f3', 'en-us+m3'] as const;
const INTERRUPTIONS = ['Wait, stop.', 'Actually, can you repeat that?'] as const;
/**
 * Each backchannel as the recogniser writes it, and what espeak-ng is given to say it: spelt out,
 * it reads "mm-hmm" as the letters ("em em hum"), so that one is given as phonemes.
 */
const BACKCHANNELS = [
  { words: 'mm-hmm', say: "[[m'hmm]]" },
  { words: 'uh-huh', say: 'uh-huh' },
  { words: 'yeah', say: 'yeah' },
  { words: 'right', say: 'right' },
  { words: 'okay', say: 'okay' },
  { words: 'I see', say: 'I see' },
] as const;
/**
 * sox synth recipes (after `sox -R -D -n -r RATE -c 1 -b 16 FILE`): `-R` seeds sox's noise the
 * same every time and `-D` turns dither off, so the files come out the same whenever they are made.
 * Each is normalised to a peak of -1 dBFS; the bench sets its level.
 */
const NON_SPEECH = [
  { name: 'cough', effects: ['synth', '0.26', 'whitenoise', 'lowpass', '2500', 'highpass', '300', 'fade', 'p', '0.008', '0.26', '0.22', 'gain', '-n', '-1'] },
  { name: 'knock', effects: ['synth', '0.09', 'sine', '170', 'synth', '0.09', 'pinknoise', 'mix', 'lowpass', '900', 'fade', 'p', '0.001', '0.09', '0.085', 'gain', '-n', '-1'] },
  { name: 'clicks', effects: ['synth', '0.08', 'whitenoise', 'gain', '-6', 'highpass', '2500', 'tremolo', '40', '100', 'fade', 'l', '0', '0.08', '0.078', 'gain', '-n', '-1'] },
  { name: 'clatter', effects: ['synth', '0.4', 'whitenoise', 'bandpass', '3500', '2q', 'tremolo', '14', '100', 'fade', 'l', '0.001', '0.4', '0.39', 'gain', '-n', '-1'] },
] as const;

/** Everything the turn-taking clips depend on: when any of it changes, they must be made again. */
const RECIPE = {
  rateHz: RATE_HZ,
  wordsPerMinute: WORDS_PER_MINUTE,
  voices: VOICES,
  interruptions: INTERRUPTIONS,
  backchannels: BACKCHANNELS,
  nonSpeech: NON_SPEECH,
};

/** One kept clip, as the manifest lists it. */
export interface TurnTakingClip {
  /** Its file name in the clips folder. */
  file: string;
  kind: SoundKind;
  /** What a recogniser would write for it; null for a sound that is not speech. */
  words: string | null;
  /** How it was made (the voice, or the sox recipe's name), for the run lines. */
  made: string;
}

interface TurnTakingSection {
  recipe: typeof RECIPE;
  clips: TurnTakingClip[];
}

type TurnTakingManifest = Manifest & { turnTaking?: TurnTakingSection };

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** The clips this recipe makes, in the order the bench cycles through them. */
function recipeClips(): TurnTakingClip[] {
  const spoken = (kind: SoundKind, words: string) =>
    VOICES.map((voice): TurnTakingClip => ({ file: `${kind}-${slug(words)}-${slug(voice)}.wav`, kind, words, made: voice }));
  return [
    ...INTERRUPTIONS.flatMap((words) => spoken('interruption', words)),
    ...BACKCHANNELS.flatMap(({ words }) => spoken('backchannel', words)),
    ...NON_SPEECH.map(({ name }): TurnTakingClip => ({ file: `nonSpeech-${name}.wav`, kind: 'nonSpeech', words: null, made: `sox ${name}` })),
  ];
}

/**
 * Makes the turn-taking clips in `dir` with espeak-ng and sox and adds them to its manifest, which
 * the barge-in clips' `makeClips` has just written. Throws if either tool fails, with its own message.
 */
export function makeTurnTakingClips(dir = CLIPS_DIR): void {
  const clips = recipeClips();
  for (const clip of clips) {
    const path = join(dir, clip.file);
    const saying = BACKCHANNELS.find((b) => b.words === clip.words)?.say ?? clip.words;
    if (saying !== null) say(path, clip.made, saying);
    else {
      const effects = NON_SPEECH.find((n) => `sox ${n.name}` === clip.made)?.effects ?? [];
      run('sox', ['-R', '-D', '-n', '-r', String(RATE_HZ), '-c', '1', '-b', '16', path, ...effects]);
    }
  }
  const manifestPath = join(dir, MANIFEST);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as TurnTakingManifest;
  const files = { ...manifest.files, ...Object.fromEntries(clips.map((clip) => [clip.file, sha256(join(dir, clip.file))])) };
  const turnTaking: TurnTakingSection = { recipe: RECIPE, clips };
  writeFileSync(manifestPath, `${JSON.stringify({ ...manifest, files, turnTaking }, null, 2)}\n`);
}

/**
 * Why the turn-taking clips in `dir` cannot be used, as a sentence that says what to do; null when
 * they can. The kept folder is held to this recipe as well; another folder only to its manifest.
 */
export function turnTakingClipsProblem(dir = CLIPS_DIR): string | null {
  const kept = dir === CLIPS_DIR;
  const answer = clipsProblem(dir, kept);
  if (answer !== null) return answer;
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as TurnTakingManifest;
  const section = manifest.turnTaking;
  if (section === undefined) return `${join(dir, MANIFEST)} has no turnTaking section; make the clips again with \`${REMAKE_CLIPS}\` (needs espeak-ng and sox), or list your own there.`;
  if (kept && JSON.stringify(section.recipe) !== JSON.stringify(RECIPE)) {
    return `The turn-taking clips in ${dir} were made from another recipe (turnTakingSpeech.ts changed); make them again with \`${REMAKE_CLIPS}\` (needs espeak-ng and sox).`;
  }
  for (const clip of section.clips) {
    const path = join(dir, clip.file);
    if (!existsSync(path) || sha256(path) !== manifest.files[clip.file]) {
      return `The turn-taking clip ${path} is missing or not the one its manifest hashed; make the clips again with \`${REMAKE_CLIPS}\`, or hash your own into ${MANIFEST}.`;
    }
  }
  const missing = (['interruption', 'backchannel', 'nonSpeech'] as const).filter((kind) => !section.clips.some((clip) => clip.kind === kind));
  if (missing.length > 0) return `${join(dir, MANIFEST)} lists no ${missing.join(' or ')} clip; the bench needs at least one of each kind.`;
  return null;
}

/** One sound the microphone hears over the answer. */
export interface SoundScenario {
  /** Names the WAV file; letters, digits, dots and dashes. */
  name: string;
  /** The voice's leak at the microphone, its loudest sample, 0..1 (the page makes it); 0 for headphones. */
  leak: number;
  /** The sound, or null for the leak alone. */
  sound: {
    clip: TurnTakingClip;
    /** Its loudest sample before clipping, 0..1 or over (a loud sound clips, as it does at a real microphone). */
    level: number;
    /** When its first sample comes, in ms after the answer's first sample. */
    atMs: number;
  } | null;
}

/** Everything one set-up made. */
export interface TurnTakingSpeech {
  /** The folder holding every file. */
  dir: string;
  assistant: AssistantSpeech;
  /** The answer's pieces as said, in order (what the voice has said, for the self-echo check). */
  texts: readonly string[];
  /** How long each clip lasts, first sample over 1 % of its peak to last, in ms, by file. */
  clipMs: Map<string, number>;
  /** The microphone WAV for each scenario, by name (everything the microphone hears but the voice's leak): an absolute path. */
  mics: Map<string, string>;
}

/** The clips listed in `clipsDir`'s manifest, checked; throws saying what to do when they cannot be used. */
export function turnTakingClips(clipsDir = CLIPS_DIR): TurnTakingClip[] {
  const problem = turnTakingClipsProblem(clipsDir);
  if (problem !== null) throw new Error(problem);
  const manifest = JSON.parse(readFileSync(join(clipsDir, MANIFEST), 'utf8')) as TurnTakingManifest;
  return manifest.turnTaking?.clips ?? [];
}

/**
 * Makes the answer's pieces and one microphone WAV per scenario in `dir`, from the clips in
 * `clipsDir`: the marker, the noise floor and the sound, with no leak (the page adds it). Throws,
 * saying what to do, if those cannot be used.
 */
export function makeTurnTakingSpeech(dir: string, scenarios: readonly SoundScenario[], clipsDir = CLIPS_DIR): TurnTakingSpeech {
  turnTakingClips(clipsDir);
  const { assistant, leak } = answerSpeech(dir, clipsDir);
  const manifest = JSON.parse(readFileSync(join(clipsDir, MANIFEST), 'utf8')) as TurnTakingManifest;
  const sounds = new Map<string, Float32Array>();
  const soundOf = (file: string) => {
    let samples = sounds.get(file);
    if (samples === undefined) {
      const pcm = readWav(join(clipsDir, file));
      if (pcm.rateHz !== RATE_HZ) throw new Error(`${join(clipsDir, file)} is at ${pcm.rateHz} Hz; convert it to ${RATE_HZ} Hz with sox -r ${RATE_HZ}.`);
      samples = trimmed(pcm.samples, 1);
      sounds.set(file, samples);
    }
    return samples;
  };
  // No leak in the file, only its length: the answer, its tail, and the longest piece again (said
  // again after a duck), so the noise floor runs on under all of it.
  const longestPiece = msToSamples(Math.max(...assistant.pieceMs) + GAP_MS);
  const withoutLeak = new Float32Array(leak.length + longestPiece);
  const mics = new Map<string, string>();
  for (const scenario of scenarios) {
    const path = join(dir, `mic-${scenario.name}.wav`);
    const { sound } = scenario;
    writeMic(path, withoutLeak, 0, sound === null ? [] : [{ samples: soundOf(sound.clip.file), level: sound.level, atMs: sound.atMs }]);
    mics.set(scenario.name, path);
  }
  return {
    dir,
    assistant,
    texts: manifest.recipe.answer,
    clipMs: new Map([...sounds].map(([file, samples]) => [file, (samples.length / RATE_HZ) * 1000])),
    mics,
  };
}
