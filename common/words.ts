/**
 * The words files' format and the one way to say a word, shared by the server (which reads the
 * files from disk and lays the site's over them) and the page (which bundles the shipped files and
 * takes the site's from the server). What words there are is each side's catalogue: the server's in
 * `server/words/words.ts`, the page's in `pageWords.ts`.
 *
 * A words file is markdown a site owner can edit: one `## <section>` heading per kind, and under it
 * `- <key>: <text>` items, one a line. `{name}` in a text is filled in when it is said.
 */

/** The sections of words and the keys under each, in the order the files list them. */
export type Catalogue = Readonly<Record<string, readonly string[]>>;

/** One word's full name in `C`, `<section>.<key>` (`endings.out-of-time`). */
export type KeyOf<C extends Catalogue> = { [S in keyof C & string]: `${S}.${C[S][number]}` }[keyof C & string];

/** Every full name in `catalogue`, in its order. */
export function keysOf<C extends Catalogue>(catalogue: C): readonly KeyOf<C>[] {
  return Object.entries(catalogue).flatMap(([section, keys]) => keys.map((key) => `${section}.${key}` as KeyOf<C>));
}

/** A words file (or a bot's `words:`) that cannot be used: names the file and the key. */
export class WordsFileError extends Error {
  override readonly name = 'WordsFileError';
  constructor(
    /** The file as it was read (a words file, or the bot file whose `words:` is at fault). */
    readonly file: string,
    /** The key at fault (`endings.out-of-time`), or `section`, `line`, `folder`. */
    readonly key: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${file}: ${key} ${detail}`, options);
  }
}

/** A `{name}` in a text. */
export const PLACEHOLDER = /\{([a-z-]+)\}/g;

/** `text` with each `{name}` filled from `fill`; a placeholder nobody filled is dropped rather than said as braces. */
export function filledIn(text: string, fill: Readonly<Record<string, string>>): string {
  return text.replace(PLACEHOLDER, (_, name: string) => fill[name] ?? '').replace(/\s{2,}/g, ' ').trim();
}

/** `over` laid on `base`: a key `over` has wins. */
export function layered<K extends string>(base: Readonly<Record<K, string>>, ...over: readonly (Partial<Record<K, string>> | undefined)[]): Readonly<Record<K, string>> {
  return Object.freeze(Object.assign({}, base, ...over.filter((o) => o !== undefined)) as Record<K, string>);
}

const SECTION = /^##\s+(\S.*?)\s*$/;
const ITEM = /^-\s+([a-z][a-z-]*)\s*:\s*(\S.*?)\s*$/;

/**
 * The words of `catalogue` in one file's text. Refuses, naming the file and the key, an unknown
 * key, a key given twice, and a line under a section that is not an item; prose before the first
 * heading (a title, a note for whoever edits it) is passed over. A section the catalogue lacks is
 * refused too, unless `otherSections` is `skip`: then it is someone else's, read by them (the page
 * reads its own sections of a file the server checks whole). Missing keys are the caller's to judge.
 */
export function parseWords<C extends Catalogue>(catalogue: C, file: string, text: string, otherSections: 'refuse' | 'skip' = 'refuse'): Partial<Record<KeyOf<C>, string>> {
  const words: Partial<Record<string, string>> = {};
  let section: string | undefined;
  let skipping = false;
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('# ') || line.startsWith('<!--')) continue;
    const heading = SECTION.exec(line);
    if (heading !== null) {
      const name = heading[1] ?? '';
      skipping = !Object.hasOwn(catalogue, name);
      if (skipping && otherSections === 'refuse') throw new WordsFileError(file, `section "${name}"`, `is not a section of words; the sections are ${Object.keys(catalogue).join(', ')}.`);
      section = name;
      continue;
    }
    if (section === undefined || skipping) continue;
    const item = ITEM.exec(line);
    if (item === null) throw new WordsFileError(file, `line ${String(index + 1)}`, `is "${line.slice(0, 40)}"; under a section each line is an item, "- <key>: <text>".`);
    const keys = catalogue[section] ?? [];
    const key = `${section}.${item[1] ?? ''}`;
    if (!keys.includes(item[1] ?? '')) throw new WordsFileError(file, key, `is not a word Confab says; ## ${section} has ${keys.join(', ')}.`);
    if (words[key] !== undefined) throw new WordsFileError(file, key, 'is given twice; keep one.');
    words[key] = item[2] ?? '';
  }
  return words;
}
