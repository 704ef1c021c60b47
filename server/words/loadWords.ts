/**
 * The words files, read once at start: the defaults (`words/<lang>.md` at the project root) with
 * the site's own (`CONFAB_WORDS_DIR`, files of the same names holding only the words it changes)
 * laid over them. Every language stands alone: its defaults must hold every key, and no language
 * borrows another's, because a bot that has lost a word should go quiet rather than start speaking
 * English at somebody (a language with no file at all says nothing). A shipped file that lacks a
 * key, an unknown key, or a site's file that names a key twice stops the start naming the file and
 * the key.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ALL_WORD_KEYS, layered, parseWordsFile, WordsFileError } from './words';
import type { SomeWords, WordKey, Words } from './words';
import { readMdFolder, unreadable } from '../mdFolder';

/**
 * The language the server's own words are in where no person's language is known (what a model or
 * a log reads): its file must be there, and whole like every other.
 */
export const BASE_LANGUAGE = 'en';
const WORDS_FILE = /^([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?)\.md$/;

/** The words in every language there is a file for, the site's laid over the defaults. */
export interface WordBook {
  /** The languages with a words file (defaults' or site's), `en` first. */
  readonly languages: readonly string[];
  /** The words in `language` (or its base language: `es` for `es-MX`); with no file for either, every word is nothing. */
  wordsIn(language: string): Words;
}

export interface WordsFolders {
  /** The defaults: `words/` at the project root. */
  dir: string;
  /** The site's words over them (`CONFAB_WORDS_DIR`); unset: none. */
  siteDir?: string;
}

/** The words folder beside the bots (`words/`, resolved against the working directory, as `bots/` is). */
export function defaultWordsDir(cwd: string = process.cwd()): string {
  return resolve(cwd, 'words');
}

/** Reads both folders; throws `WordsFileError` on the first bad file. */
export function loadWords(folders: WordsFolders): WordBook {
  const defaults = readFolder(folders.dir, true);
  const site = folders.siteDir === undefined ? new Map<string, SomeWords>() : readFolder(folders.siteDir, false);
  if (!defaults.has(BASE_LANGUAGE)) throw new WordsFileError(join(folders.dir, `${BASE_LANGUAGE}.md`), 'file', 'is missing; it is what the server says where nobody’s language is known, so it must be there and whole.');
  const languages = [...new Set([BASE_LANGUAGE, ...defaults.keys(), ...site.keys()])];
  const book = new Map<string, Words>();
  for (const language of languages) {
    // The site's file alone stands for a language the defaults lack, so it is the one that must be whole.
    const given = defaults.get(language) ?? site.get(language) ?? {};
    const whole = join(defaults.has(language) ? folders.dir : (folders.siteDir ?? folders.dir), `${language}.md`);
    const lacking = ALL_WORD_KEYS.find((key) => given[key] === undefined);
    if (lacking !== undefined) throw new WordsFileError(whole, lacking, 'is missing; every language holds every word, since a word a language lacks is not said in another.');
    book.set(language, layered(given as Words, site.get(language)));
  }
  return {
    languages,
    wordsIn: (language) => book.get(language) ?? book.get(language.split('-')[0] ?? '') ?? SILENT,
  };
}

/** The words of a language with no file: each is nothing, so nothing is said. */
const SILENT: Words = Object.freeze(Object.fromEntries(ALL_WORD_KEYS.map((key) => [key, ''])) as Record<WordKey, string>);

let shipped: WordBook | undefined;
/** The shipped words alone (no site's), read once: what a door or an executor built without words says. */
export function shippedWords(): WordBook {
  shipped ??= loadWords({ dir: defaultWordsDir() });
  return shipped;
}

function readFolder(dir: string, required: boolean): Map<string, SomeWords> {
  if (!existsSync(dir)) {
    if (required) throw new WordsFileError(dir, 'folder', 'cannot be found; the server needs the words folder (`words/<lang>.md`) it ships with.');
    throw new WordsFileError(dir, 'folder', 'cannot be found; CONFAB_WORDS_DIR must name a folder of words files (`<lang>.md`).');
  }
  return readWordsFiles(dir, parseWordsFile);
}

/**
 * Each words file in `dir` (`<lang>.md`, a README aside: `readMdFolder`), read by `parse`, by its language; throws
 * `WordsFileError` on a file not named after a language. The door's words and an app's are read so.
 */
export function readWordsFiles<T>(dir: string, parse: (file: string, text: string) => T): Map<string, T> {
  const byLanguage = new Map<string, T>();
  for (const { name, path, text } of readMdFolder(dir, (at, what, cause) => new WordsFileError(at, what, unreadable(cause), { cause }))) {
    const language = WORDS_FILE.exec(name)?.[1];
    if (language === undefined) throw new WordsFileError(path, 'file name', 'is not a language: name a words file after its language, e.g. es.md or pt-BR.md.');
    byLanguage.set(language, parse(path, text));
  }
  return byLanguage;
}
