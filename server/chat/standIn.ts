/**
 * The scripted stand-in that answers while nothing may be bought: with no provider configured, or
 * with providers configured but `AGENTS_LIVE` not switched on. It says which, in plain spoken
 * English, and repeats what it heard, so the whole voice loop — recogniser, door, chunker, voice —
 * works end to end for nothing. It streams word by word, like a model, so the page's first-piece
 * timing is exercised too.
 */

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

/** The stand-in's whole answer: four sentences, no markdown. */
export function standInAnswer(reason: StandInReason, question: string): string {
  const heard = heardLine(question);
  const echo = heard === '' ? 'I did not hear any words in what you sent.' : `I heard you say: "${heard}".`;
  return reason === 'no-provider'
    ? `I'm a stand-in, not a language model, because this server has no model provider set up. ` +
        `Nothing is being bought while I answer. ${echo} ` +
        `Once a provider is configured and AGENTS_LIVE is set to 1, a real model will answer instead.`
    : `I'm a stand-in, not the real model, because a provider is set up but AGENTS_LIVE has not been switched on. ` +
        `That keeps anything from being bought by accident. ${echo} ` +
        `Whoever pays the bill can set AGENTS_LIVE to 1, and a real model will answer instead.`;
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
