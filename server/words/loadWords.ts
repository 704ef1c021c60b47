/**
 * The words files, read once at start: the defaults (`words/<lang>.md` at the project root) with
 * the site's own (`CONFAB_WORDS_DIR`, files of the same names holding only the words it changes)
 * laid over them. English is the floor: `en.md` must hold every key, and any other language's file
 * that lacks one says it in English, so a missing word is never silence. An unknown key, or a
 * site's file that names a key twice, stops the start naming the file and the key.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ALL_WORD_KEYS, layered, parseWordsFile, WordsFileError } from './words';
import type { SomeWords, Words } from './words';

/** The language every other one falls back to, whose file must be whole. */
export const FLOOR_LANGUAGE = 'en';
const WORDS_FILE = /^([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?)\.md$/;

/** The words in every language there is a file for, the site's laid over the defaults. */
export interface WordBook {
  /** The languages with a words file (defaults' or site's), `en` first. */
  readonly languages: readonly string[];
  /** The words in `language`; a language with no file, or a key its file lacks, is said in English. */
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
  const floorFile = join(folders.dir, `${FLOOR_LANGUAGE}.md`);
  const floorGiven = defaults.get(FLOOR_LANGUAGE);
  if (floorGiven === undefined) throw new WordsFileError(floorFile, 'file', 'is missing; English is every other language’s fallback, so it must be there and whole.');
  const lacking = ALL_WORD_KEYS.find((key) => floorGiven[key] === undefined);
  if (lacking !== undefined) throw new WordsFileError(floorFile, lacking, 'is missing; English is every other language’s fallback, so it must hold every word.');
  const floor = layered(floorGiven as Words, site.get(FLOOR_LANGUAGE));
  const languages = [...new Set([FLOOR_LANGUAGE, ...defaults.keys(), ...site.keys()])];
  const book = new Map<string, Words>(languages.map((language) => [language, layered(floor, defaults.get(language), site.get(language))]));
  return {
    languages,
    wordsIn: (language) => book.get(language) ?? book.get(language.split('-')[0] ?? '') ?? floor,
  };
}

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
 * Each words file in `dir` (`<lang>.md`, a README aside), read by `parse`, by its language; throws
 * `WordsFileError` on a file not named after a language. The door's words and an app's are read so.
 */
export function readWordsFiles<T>(dir: string, parse: (file: string, text: string) => T): Map<string, T> {
  const files = readdirSync(dir).filter((name) => name.endsWith('.md') && name.toLowerCase() !== 'readme.md').sort();
  const byLanguage = new Map<string, T>();
  for (const name of files) {
    const file = join(dir, name);
    const language = WORDS_FILE.exec(name)?.[1];
    if (language === undefined) throw new WordsFileError(file, 'file name', 'is not a language: name a words file after its language, e.g. es.md or pt-BR.md.');
    byLanguage.set(language, parse(file, readFileSync(file, 'utf8')));
  }
  return byLanguage;
}
