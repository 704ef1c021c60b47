/**
 * An outside tool's result as the stand-in says it, with no model to word it: briefly, from its
 * fields, as a person would — its text when it answered text; how many it found and the first few
 * by name when it answered a list; a few plain fields of an object; that it is done when it
 * answered nothing (a 204) — in the person's language (`## outside` of the words files, a list
 * joined as `Intl` joins one in that language). The JSON itself is never read aloud.
 */
import { joinWords } from '../apps/spoken';
import { say } from '../words/words';
import type { Words } from '../words/words';

/** How many of a list's items are named before "and N more". */
const ITEMS_SAID = 3;
/** How many of an object's plain fields are said. */
const FIELDS_SAID = 3;
/** How many of a list item's plain fields are said when it has no name. */
const ITEM_FIELDS_SAID = 2;
/** Longest text said whole, in characters; a longer one is cut at a word and marked as cut. */
const TEXT_CHARS_MAX = 200;
/** Longest one field's value said, in characters. */
const VALUE_CHARS_MAX = 60;
/** The fields that name a thing, looked for in this order: said alone, without their field's name. */
const NAME_FIELDS = ['name', 'title', 'label', 'displayName', 'display_name', 'summary', 'text', 'message'];

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `text` on one line, at most `most` characters, cut at a word and marked as cut. */
function cut(text: string, most: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= most) return line;
  const head = line.slice(0, most + 1);
  const atWord = head.lastIndexOf(' ');
  return `${(atWord > most / 2 ? head.slice(0, atWord) : head.slice(0, most)).trimEnd()}…`;
}

/** `displayName` → `display name`, `due_at` → `due at`: a field's name as words. */
function label(field: string): string {
  return field.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase().trim();
}

/** A value said plainly (text or a number), or undefined when it has nothing plain to say. */
function plain(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return cut(value, VALUE_CHARS_MAX);
  return undefined;
}

/** What is worth saying of an answer: an HTTP answer's body, a text that holds JSON as that JSON. */
function substance(output: unknown): unknown {
  if (isFields(output) && typeof output.status === 'number' && Object.keys(output).every((key) => key === 'status' || key === 'body')) return substance(output.body);
  if (isFields(output) && Object.keys(output).length === 1 && typeof output.text === 'string') return substance(output.text);
  if (typeof output === 'string' && /^\s*[[{]/.test(output)) {
    try {
      return JSON.parse(output) as unknown;
    } catch {
      return output;
    }
  }
  return output;
}

/** An object's name and up to `most` other plain fields (`title Mona Lisa, year 1503`): its name alone first. */
function fieldsSaid(fields: Fields, most: number): string[] {
  const named = NAME_FIELDS.find((field) => plain(fields[field]) !== undefined);
  const said = named === undefined ? [] : [plain(fields[named]) ?? ''];
  for (const [field, value] of Object.entries(fields)) {
    const text = field === named ? undefined : plain(value);
    if (text !== undefined) said.push(`${label(field)} ${text}`);
  }
  return said.slice(0, most);
}

/** One item of a list: its name, else its first few plain fields, else nothing. */
function itemSaid(item: unknown): string | undefined {
  if (!isFields(item)) return plain(item);
  const named = NAME_FIELDS.find((field) => plain(item[field]) !== undefined);
  if (named !== undefined) return plain(item[named]);
  const said = fieldsSaid(item, ITEM_FIELDS_SAID);
  return said.length === 0 ? undefined : said.join(', ');
}

/** A list as it is said: how many, and the first few by name, joined as `language` joins a list. */
function listSaid(app: string, list: readonly unknown[], words: Words, language: string): string {
  if (list.length === 0) return say(words, 'outside.found-none', { app });
  const named = list.slice(0, ITEMS_SAID).map(itemSaid).filter((item): item is string => item !== undefined);
  const count = String(list.length);
  if (named.length === 0) return say(words, 'outside.counted', { app, count });
  const unnamed = list.length - named.length;
  const items = joinWords(unnamed > 0 ? [...named, say(words, 'outside.more', { count: String(unnamed) })] : named, language);
  return say(words, list.length === 1 ? 'outside.found-one' : 'outside.found', { app, count, items });
}

/** The result `output` of the app `app`, said in `words`, which are in `language`, in a sentence or two. */
export function spokenResult(app: string, output: unknown, words: Words, language: string): string {
  const said = substance(output);
  if (Array.isArray(said)) return listSaid(app, said, words, language);
  if (typeof said === 'string' && said.trim() !== '') return say(words, 'outside.says', { app, what: cut(said, TEXT_CHARS_MAX) });
  if (typeof said === 'number') return say(words, 'outside.says', { app, what: String(said) });
  if (isFields(said)) {
    const fields = fieldsSaid(said, FIELDS_SAID);
    // An object that is mostly a list (`{ items: [...], total: 40 }`) is said as its list.
    const list = Object.values(said).find((value): value is unknown[] => Array.isArray(value));
    if (list !== undefined && NAME_FIELDS.every((field) => plain(said[field]) === undefined)) return listSaid(app, list, words, language);
    if (fields.length > 0) return say(words, 'outside.says', { app, what: `${fields.join(', ')}.` });
  }
  return say(words, 'outside.done', { app });
}
