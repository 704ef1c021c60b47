/**
 * The page's words in the person's language (the page's language setting, the one every turn sends
 * as `x-confab-language`). One source: the words files. English is bundled into the page (so there
 * is always something to say), each other shipped language is its own chunk, fetched when it is
 * chosen; the server then sends the words as this site lays them (`GET /api/words/<lang>`: its own
 * over the shipped), and the last it sent for each language is kept on this device, so a start
 * with no connection still speaks the person's language as the site words it.
 */
import english from '../../words/en.md?raw';
import { isRecord } from '../../common/isRecord';
import { ALL_PAGE_WORD_KEYS, PAGE_FLOOR_LANGUAGE, pageWordsIn, parsePageWords, sayer } from '../../common/pageWords';
import type { PageSay, PageWords, SomePageWords } from '../../common/pageWords';

/** The shipped words files other than English, each loaded when its language is first chosen. */
const SHIPPED = import.meta.glob<string>(['../../words/*.md', '!../../words/en.md', '!../../words/README.md'], { query: '?raw', import: 'default' });
const LANGUAGE_FILE = /\/([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?)\.md$/;
/** Where the site's words for a language, as the server last sent them, are kept on this device. */
const KEPT_PREFIX = 'confab.words.';
/** The language last chosen, so the next start (the home page included) opens in it. */
const KEPT_LANGUAGE = 'confab.words.language';

const shipped = new Map<string, SomePageWords>([[PAGE_FLOOR_LANGUAGE, parsePageWords('words/en.md', english)]]);
const loaders = new Map<string, () => Promise<string>>(
  Object.entries(SHIPPED).flatMap(([path, load]) => {
    const language = LANGUAGE_FILE.exec(path)?.[1];
    return language === undefined ? [] : [[language, load] as const];
  }),
);

let language = startingLanguage();
let site: SomePageWords | undefined = kept(language);
let words: PageWords = pageWordsIn(shipped, language, site);
let saying: PageSay = sayer(words);
const listeners = new Set<() => void>();

/** Says one of the page's words in the person's language, as the words stand now. */
export const sayWord: PageSay = (key, fill) => saying(key, fill);

/** The language the page speaks now. */
export function wordsLanguage(): string {
  return language;
}

/** Calls `listener` whenever the words change (another language, or the site's arrived); answers a way to stop. */
export function onWordsChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Speaks `next` from now on: at once in what this device has (the site's words kept from last time,
 * or English), then in the shipped file and the site's words as each arrives. Resolves once both
 * have been tried; never rejects, since a page that could not fetch its words still speaks.
 */
export async function speakLanguage(next: string, fetcher: typeof fetch = (input, init) => fetch(input, init)): Promise<void> {
  if (next !== language) {
    language = next;
    site = kept(next);
    keep(KEPT_LANGUAGE, next);
    settle();
  }
  await Promise.all([loadShipped(next), fetchSite(next, fetcher)]);
}

async function loadShipped(wanted: string): Promise<void> {
  const base = wanted.split('-')[0] ?? wanted;
  const missing = [base, wanted].filter((each) => !shipped.has(each) && loaders.has(each));
  for (const each of missing) {
    try {
      const load = loaders.get(each);
      if (load !== undefined) shipped.set(each, parsePageWords(`words/${each}.md`, await load()));
    } catch {
      // A chunk that did not load leaves the words this device has; the site's may still come.
      continue;
    }
  }
  if (missing.length > 0 && wanted === language) settle();
}

async function fetchSite(wanted: string, fetcher: typeof fetch): Promise<void> {
  let given: SomePageWords | undefined;
  try {
    const response = await fetcher(`/api/words/${encodeURIComponent(wanted)}`, { headers: { accept: 'application/json' } });
    if (!response.ok) return;
    given = pageWordsOf(await response.json());
  } catch {
    // Offline, or a server without the route: the words this device has stand.
    return;
  }
  if (given === undefined) return;
  keep(`${KEPT_PREFIX}${wanted}`, JSON.stringify(given));
  if (wanted !== language) return;
  site = given;
  settle();
}

function settle(): void {
  words = pageWordsIn(shipped, language, site);
  saying = sayer(words);
  for (const listener of listeners) listener();
}

/** The page's words in what the server sent (`{ words: { <key>: text } }`), its other keys left aside. */
function pageWordsOf(body: unknown): SomePageWords | undefined {
  if (!isRecord(body) || !isRecord(body.words)) return undefined;
  const given = body.words;
  const known: SomePageWords = {};
  for (const key of ALL_PAGE_WORD_KEYS) {
    const text = given[key];
    if (typeof text === 'string' && text.trim() !== '') known[key] = text;
  }
  return known;
}

function kept(wanted: string): SomePageWords | undefined {
  const text = read(`${KEPT_PREFIX}${wanted}`);
  if (text === null) return undefined;
  try {
    return pageWordsOf({ words: JSON.parse(text) as unknown });
  } catch {
    return undefined;
  }
}

/** The last language chosen here, else the browser's first that a words file is shipped for, else English. */
function startingLanguage(): string {
  const chosen = read(KEPT_LANGUAGE);
  if (chosen !== null) return chosen;
  const offered = typeof navigator === 'undefined' ? [] : navigator.languages;
  return offered.map((tag) => tag.split('-')[0] ?? tag).find((base) => base === PAGE_FLOOR_LANGUAGE || loaders.has(base)) ?? PAGE_FLOOR_LANGUAGE;
}

/** localStorage, where there is one that works (not in a private window that refuses it, nor in Node). */
function storage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}

function read(key: string): string | null {
  try {
    return storage()?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function keep(key: string, value: string): void {
  try {
    storage()?.setItem(key, value);
  } catch {
    // Full or refused: the words still hold for this visit.
  }
}
