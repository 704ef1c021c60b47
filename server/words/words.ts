/**
 * What Confab says in its own name — a cut answer's ending, the filler, a confirmation's prompt,
 * the stand-in's reasons — kept in words files (`words/<lang>.md`), never in code. This module is
 * the catalogue (which words there are), the file format and the one lookup; `loadWords.ts` reads
 * the files and lays the site's over the defaults, `turnWords.ts` picks a turn's.
 *
 * A words file is markdown a site owner can edit: one `## <section>` heading per kind, and under it
 * `- <key>: <text>` items, one a line. `{name}` in a text is filled in when it is said.
 */

import { PAGE_WORD_KEYS } from '../../common/pageWords';
import { filledIn, layered, parseWords, PLACEHOLDER, WordsFileError } from '../../common/words';

// The format and the filling-in are shared with the page (common/words.ts); the server's imports keep coming from here.
export { filledIn, layered, PLACEHOLDER, WordsFileError };

/** Every word there is, by section, in the order `words/en.md` lists them; the page's are checked here too. */
const WORD_KEYS = {
  ...PAGE_WORD_KEYS,
  endings: ['out-of-time', 'out-of-money', 'out-of-steps', 'failed', 'stalled', 'cancelled', 'nothing-to-add'],
  acting: ['filler', 'confirm', 'go-ahead', 'shall-i', 'done', 'left-as-it-was', 'no-longer-open', 'outcome-unknown', 'stopped-done', 'stopped-before'],
  'stand-in': ['no-provider', 'not-live', 'heard', 'heard-nothing', 'which-list', 'list-shopping', 'list-todo', 'adds-to-list'],
  outside: ['says', 'done', 'found', 'found-one', 'found-none', 'counted', 'more'],
  ceilings: ['answers', 'spend', 'no-answers', 'no-spend', 'site-answers', 'site-spend', 'site-no-answers', 'site-no-spend', 'background', 'background-none', 'app', 'app-none', 'not-live'],
  windows: ['per-minute', 'per-hour', 'per-day', 'per-week', 'per-month'],
  waits: ['second', 'seconds', 'minute', 'minutes', 'hour', 'hours', 'day', 'days'],
  runs: ['progress-one', 'progress', 'cancelled', 'out-of-steps', 'out-of-money', 'out-of-time', 'failed', 'no-model', 'unanswered', 'paused-while-away'],
  wakes: ['ask', 'ask-in-zone', 'allowed', 'allowed-in-zone', 'no-wake', 'no-zone'],
  verbs: ['invalid-input', 'timed-out', 'cancelled', 'execution-failed', 'output-too-large', 'not-in-scope', 'confirmation-required', 'unknown-verb', 'key-reused', 'rate-limited', 'server-busy', 'overloaded', 'outcome-unknown'],
  requests: [
    'too-large', 'cut-off', 'stalled', 'headers-too-large', 'too-slow', 'malformed',
    'not-json', 'not-object', 'not-text', 'text-too-long', 'not-flag', 'not-json-type', 'foreign-host', 'foreign-origin',
    'sign-in-needed', 'sign-in-invalid', 'sign-in-keys', 'new-persons', 'grant-refused', 'restarting',
    'no-route', 'no-model-file', 'no-file', 'not-built', 'server-failed', 'no-bot', 'bot-gone', 'no-conversation', 'no-memory', 'no-notice', 'no-token',
    'line-too-long', 'line-who', 'line-blank', 'already-said', 'no-choice', 'choice-index', 'choice-gone', 'too-many-pages', 'page-ids', 'presence-since', 'token-name', 'token-bots', 'too-many-tokens',
    'turn-id', 'turn-ids-differ', 'messages-empty', 'not-record', 'message-shape', 'role-unknown', 'content-shape', 'part-shape', 'no-user-message', 'provider-not-retried', 'provider-status', 'provider-unreachable', 'provider-timeout', 'provider-stream', 'provider-said', 'no-provider-answered',
    'device-voice', 'voice-not-live', 'voice-unreachable', 'voice-failed', 'speech-input', 'speech-too-long', 'speech-no-voice', 'speech-voice-offered', 'speech-format', 'speech-speed',
  ],
  audience: ['for-people', 'for-owner', 'for-named'],
  yours: ['forget-typed', 'zone'],
  devices: [
    'open-localhost', 'needs-https', 'passkey-user', 'label', 'label-system', 'label-unknown',
    'challenge-used', 'challenge-expired', 'passkey-refused', 'passkey-known', 'unknown-passkey', 'keep-first', 'not-signed-in',
    'link-unknown', 'link-expired', 'link-tries', 'no-passkey', 'no-device', 'owner-only', 'name-format', 'name-taken', 'invite-unknown', 'invite-expired',
  ],
} as const;

type WordSection = keyof typeof WORD_KEYS;
/** One word's full name, `<section>.<key>` (`endings.out-of-time`). */
export type WordKey = { [S in WordSection]: `${S}.${(typeof WORD_KEYS)[S][number]}` }[WordSection];

/** Every full name, in catalogue order. */
export const ALL_WORD_KEYS: readonly WordKey[] = (Object.entries(WORD_KEYS) as [WordSection, readonly string[]][]).flatMap(([section, keys]) =>
  keys.map((key) => `${section}.${key}` as WordKey),
);

/** A full set of words in one language: every key has its text. */
export type Words = Readonly<Record<WordKey, string>>;
/** Some words (a site's, a bot's, a language short of a key): laid over a full set. */
export type SomeWords = Partial<Record<WordKey, string>>;

/** Whether `name` is a word's full name. */
function isWordKey(name: string): name is WordKey {
  return (ALL_WORD_KEYS as readonly string[]).includes(name);
}

/**
 * The text of `key` in `words`, each `{name}` filled from `fill`. A placeholder nobody filled is
 * dropped rather than said as braces.
 */
export function say(words: Words, key: WordKey, fill: Readonly<Record<string, string>> = {}): string {
  return filledIn(words[key], fill);
}

/**
 * The words in one file's text. Refuses, naming the file and the key, an unknown section or key, a
 * key given twice, and a line that is neither a heading, an item, blank, nor prose before the
 * first heading (a title or a note for whoever edits it). Missing keys are the caller's to judge.
 */
export function parseWordsFile(file: string, text: string): SomeWords {
  return parseWords(WORD_KEYS, file, text);
}

/** The words of a bot file's `words:` (`{ <lang>: { <section>: { <key>: text } } }`), checked. */
export function wordsOfMapping(file: string, value: unknown, languages: readonly string[]): Readonly<Record<string, SomeWords>> {
  const byLanguage: Record<string, SomeWords> = {};
  if (!isMapping(value)) throw new WordsFileError(file, 'words', 'must be a mapping of languages, each a mapping of sections of `key: text` (e.g. words: { en: { acting: { filler: Just a second. } } }).');
  for (const [language, sections] of Object.entries(value)) {
    if (!languages.includes(language)) throw new WordsFileError(file, `words.${language}`, `is not a language this bot speaks; it speaks ${languages.join(', ')}.`);
    if (!isMapping(sections)) throw new WordsFileError(file, `words.${language}`, 'must be a mapping of sections.');
    const words: SomeWords = {};
    for (const [section, keys] of Object.entries(sections)) {
      if (!(section in WORD_KEYS)) throw new WordsFileError(file, `words.${language}.${section}`, `is not a section of words; the sections are ${Object.keys(WORD_KEYS).join(', ')}.`);
      if (!isMapping(keys)) throw new WordsFileError(file, `words.${language}.${section}`, 'must be a mapping of `key: text`.');
      for (const [key, text] of Object.entries(keys)) {
        const name = `${section}.${key}`;
        if (!isWordKey(name)) throw new WordsFileError(file, `words.${language}.${name}`, `is not a word Confab says; ${section} has ${WORD_KEYS[section as WordSection].join(', ')}.`);
        if (typeof text !== 'string' || text.trim() === '') throw new WordsFileError(file, `words.${language}.${name}`, 'must be a sentence.');
        words[name] = text.trim();
      }
    }
    byLanguage[language] = words;
  }
  return byLanguage;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
