/**
 * What an app says aloud in its own name — a change's consequence ("That's 5 things on your shopping
 * list."), the question before it acts, a reminder as it comes due — in the person's language, kept
 * as the door's words are: in markdown a site owner can read, never in code. An app's folder holds
 * `words/<lang>.md`, one `- <key>: <text>` a line (a title and notes may stand around them).
 *
 * Every language's file names every key the app has, as English (`en.md`) does: no language
 * borrows another's words, so a person is never answered in a language they did not ask for, and a
 * language with no file says nothing. Where nobody's language is known (an MCP call), the words are
 * English's. `{name}` is filled in when it is said. A key ending `-one` is the form for exactly one
 * (`count-one` beside `count`), which `count` picks. A bad file (a key English lacks or has, a key
 * given twice, a line under the title that is not an item, no English) stops the app from loading,
 * naming the file and the key.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE_LANGUAGE, readWordsFiles } from '../words/loadWords';
import { filledIn, PLACEHOLDER, WordsFileError } from '../words/words';

export interface AppWords {
  /** The languages with a file, `en` first. */
  readonly languages: readonly string[];
  /** `key` in `language` (its own file, else its base language's; English when none is given), filled in; nothing for a language with no file. */
  say(language: string | undefined, key: string, fill?: Readonly<Record<string, string>>): string;
  /** As `say`, in the key's `-one` form when `n` is 1; `{n}` is `n`. */
  count(language: string | undefined, key: string, n: number, fill?: Readonly<Record<string, string>>): string;
  /**
   * What fills `name` in `text`, when `text` is `key` as said in any language with `name` its one
   * blank (a reminder inside the sentence that says it); undefined when it is no such sentence.
   */
  filling(key: string, name: string, text: string): string | undefined;
}

const ITEM = /^-\s+([a-z][a-z-]*)\s*:\s*(\S.*?)\s*$/;

/** The words in `folder`'s `words/` (a URL beside the app's `index`, or a path); throws `WordsFileError`. */
export function appWords(folder: URL | string): AppWords {
  const dir = join(typeof folder === 'string' ? folder : fileURLToPath(folder), 'words');
  if (!existsSync(dir)) throw new WordsFileError(dir, 'folder', 'cannot be found; an app that speaks keeps its words in words/<lang>.md beside its index.');
  const byLanguage = readWordsFiles(dir, parseAppWords);
  const base = byLanguage.get(BASE_LANGUAGE);
  if (base === undefined) throw new WordsFileError(join(dir, `${BASE_LANGUAGE}.md`), 'file', 'is missing; English names every word the app says.');
  for (const [language, words] of byLanguage) {
    const file = join(dir, `${language}.md`);
    const stray = [...words.keys()].find((key) => !base.has(key));
    if (stray !== undefined) throw new WordsFileError(file, stray, `is not a word this app says; en.md has ${[...base.keys()].join(', ')}.`);
    const lacking = [...base.keys()].find((key) => !words.has(key));
    if (lacking !== undefined) throw new WordsFileError(file, lacking, 'is missing; every language holds every word, since a word a language lacks is not said in another.');
  }

  const textOf = (language: string | undefined, key: string): string => {
    if (!base.has(key)) throw new Error(`${dir}: the app asked for "${key}", which en.md does not have`);
    const words = language === undefined ? base : (byLanguage.get(language) ?? byLanguage.get(language.split('-')[0] ?? ''));
    return words?.get(key) ?? '';
  };

  return {
    languages: [BASE_LANGUAGE, ...[...byLanguage.keys()].filter((l) => l !== BASE_LANGUAGE)],
    say: (language, key, fill = {}) => filledIn(textOf(language, key), fill),
    count(language, key, n, fill = {}) {
      const one = `${key}-one`;
      return filledIn(textOf(language, n === 1 && base.has(one) ? one : key), { ...fill, n: String(n) });
    },
    filling(key, name, text) {
      for (const words of byLanguage.values()) {
        const template = words.get(key);
        if (template === undefined) continue;
        const blanks = [...template.matchAll(PLACEHOLDER)];
        if (blanks.length !== 1 || blanks[0]?.[1] !== name) continue;
        const [before = '', after = ''] = template.split(`{${name}}`);
        if (text.length > before.length + after.length && text.startsWith(before) && text.endsWith(after)) return text.slice(before.length, text.length - after.length);
      }
      return undefined;
    },
  };
}

/**
 * One app words file's items. Lines before the first item that are not items are its title and
 * notes; after it, a line is an item, blank or a comment (`<!-- -->`).
 */
export function parseAppWords(file: string, text: string): ReadonlyMap<string, string> {
  const words = new Map<string, string>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('<!--')) continue;
    const item = ITEM.exec(line);
    if (item === null) {
      if (words.size === 0 && !line.startsWith('-')) continue;
      throw new WordsFileError(file, `line ${String(index + 1)}`, `is "${line.slice(0, 40)}"; each word is an item, "- <key>: <text>".`);
    }
    const key = item[1] ?? '';
    if (words.has(key)) throw new WordsFileError(file, key, 'is given twice; keep one.');
    words.set(key, item[2] ?? '');
  }
  return words;
}
