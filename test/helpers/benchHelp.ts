/**
 * What `npm run bench -- --help` prints: every benchmark with a line on what it measures (the first
 * sentence of its file's opening comment, so it cannot drift from the file), the options, and what a
 * `--clips DIR` folder must hold.
 */
import { BENCH_FLAGS, MAX_LOAD } from './benchOptions';

/** A benchmark as the help lists it. */
export interface BenchEntry {
  name: string;
  /** Its file's text. */
  source: string;
}

/** The longest line a benchmark gets in the list, in characters; a longer first sentence is cut at a word. */
const LINE_CHARS = 160;

/** The first sentence of the file's opening doc comment, on one line (cut at `LINE_CHARS`); empty when it has none. */
export function firstSentence(source: string): string {
  const comment = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? '';
  const text = comment
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  const sentence = /^.*?[.?](?=\s|$)/.exec(text)?.[0] ?? text;
  return sentence.length <= LINE_CHARS ? sentence : `${sentence.slice(0, sentence.lastIndexOf(' ', LINE_CHARS - 1))} …`;
}

/** What each option does, by its usage. */
const OPTION_LINES: Readonly<Record<string, string>> = {
  '--clips DIR': 'play the recordings in DIR instead of the kept clips (turn-taking; capture-lag); see below.',
  '--load N': `keep N busy processes (one core each, 0–${String(MAX_LOAD)}) running from before the benchmark until after it; the result records "load" and the 1-minute load average seen ("loadAverage1m": mean, max).`,
  '--leaks 0.15,0.35,0.55': "the speaker's leak levels at the microphone (its loudest sample, over 0 and at most 1) in place of the benchmark's own (barge-in, turn-taking).",
  '--short': 'the short form, for CI, of the benchmarks that have one (scale-out): their slow parts shortened, as their result says.',
  '--help': 'print this and run nothing.',
};

const CLIPS_FOLDER = [
  'A --clips DIR folder holds WAV files and a clips.json manifest (test/e2e/speech/clips/ is one; `npm run speech` makes it):',
  '  WAV files: RIFF/WAVE, 16-bit PCM, mono (only the first channel of more is read), 48 000 Hz. Each sound is trimmed',
  '    to its first and last sample over 1 % of its peak and played at the level a run asks for, so its own level does not matter.',
  '  assistant-1.wav, assistant-2.wav   the answer the voice says, in two pieces (played through the real player);',
  "  assistant-leak.wav                 the two pieces with the player's 120 ms gap between them, through a speaker and a room;",
  '  person-question.wav, person-word.wav  a person talking over the answer (the barge-in clips: must be there, though turn-taking does not play them);',
  '  any other files: the sounds the turn-taking manifest lists.',
  '  clips.json:',
  '    "recipe": { "answer": [the two pieces as said, as text] } (other recipe fields are ignored in a folder of your own);',
  '    "files": { "<file name>": "<sha256 of the file, hex>" } for every WAV above and every listed sound;',
  '    "turnTaking": { "clips": [ { "file": "<name>.wav", "kind": "interruption" | "backchannel" | "nonSpeech",',
  '        "words": "what a recogniser writes for it" (null for a sound that is not speech), "made": "a label for the run lines" } ] }',
  '      with at least one clip of each kind.',
] as const;

/** The help text, for the benchmarks in `benches`. */
export function benchHelp(benches: readonly BenchEntry[]): string {
  const width = Math.max(...benches.map((b) => b.name.length));
  return [
    'npm run bench -- [NAME…] [OPTIONS]   runs the named benchmarks (all of them with none named); each prints its result as its last JSON line.',
    '',
    'Benchmarks:',
    ...benches.map((b) => `  ${b.name.padEnd(width)}  ${firstSentence(b.source)}`),
    '',
    'Options:',
    ...BENCH_FLAGS.map((usage) => `  ${usage.padEnd(24)}${OPTION_LINES[usage] ?? ''}`),
    '',
    ...CLIPS_FOLDER,
    '',
  ].join('\n');
}
