/**
 * The scripted stand-in that answers while nothing may be bought: with no provider configured, or
 * with providers configured but `AGENTS_LIVE` not switched on. It says which, in the person's
 * language (`## stand-in` of the words files), and repeats what it heard, so the whole voice loop — recogniser, door, chunker, voice —
 * works end to end for nothing. It streams word by word, like a model, so the page's first-piece
 * timing is exercised too.
 */

import { shippedWords } from '../words/loadWords';
import { say } from '../words/words';
import type { Words } from '../words/words';

/** The `model` a stand-in's answer reports. */
export const STAND_IN_MODEL = 'confab-stand-in';

/** Why the stand-in is answering. */
export type StandInReason =
  /** No provider is configured at all. */
  | 'no-provider'
  /** Providers are configured, but `AGENTS_LIVE=1` is not set: a key is not consent to spend. */
  | 'not-live';

/** Longest echo of what was heard, in characters, before it is cut at a word and marked as cut. */
export const HEARD_CHARS_MAX = 120;

export function standInReason(providerCount: number, live: boolean): StandInReason | undefined {
  if (providerCount === 0) return 'no-provider';
  return live ? undefined : 'not-live';
}

/** What the person said, as it can be quoted aloud: one line, no double quotes, at most `HEARD_CHARS_MAX`. */
export function heardLine(question: string): string {
  const line = question.replace(/\s+/g, ' ').replace(/"/g, "'").trim();
  if (line.length <= HEARD_CHARS_MAX) return line;
  const cut = line.slice(0, HEARD_CHARS_MAX + 1);
  const atWord = cut.lastIndexOf(' ');
  return `${(atWord > HEARD_CHARS_MAX / 2 ? cut.slice(0, atWord) : cut.slice(0, HEARD_CHARS_MAX)).trimEnd()}…`;
}

/**
 * The stand-in's whole answer, no markdown: why it is standing in, and what it heard. `words`
 * default to the shipped English (a run's worker, which has no person's language).
 */
export function standInAnswer(reason: StandInReason, question: string, words: Words = shippedWords().wordsIn('en')): string {
  const heard = heardLine(question);
  const echo = heard === '' ? say(words, 'stand-in.heard-nothing') : say(words, 'stand-in.heard', { words: heard });
  return say(words, reason === 'no-provider' ? 'stand-in.no-provider' : 'stand-in.not-live', { heard: echo });
}

/** Waits `ms`, or less when `signal` aborts first; never rejects. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/** `text` a word at a time (each with its trailing space), `wordMs` apart, until `signal` aborts. */
export async function* wordByWord(text: string, wordMs: number, sleep: Sleep, signal: AbortSignal): AsyncGenerator<string, void, undefined> {
  const words = text.match(/\S+\s*/g) ?? [];
  for (const [index, word] of words.entries()) {
    if (index > 0) await sleep(wordMs, signal);
    if (signal.aborted) return;
    yield word;
  }
}
