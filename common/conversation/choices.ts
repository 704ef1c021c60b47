/**
 * Choices to tap: an answer whose last lines are a `- ` list under some words ends in buttons, and
 * what the person presses is sent as their own next words. It is the grammar a chat answer already
 * writes, so a bot that has never heard of buttons offers nothing by accident and a list that is
 * not an offer stays a list: one with nothing above it (a summary in bullets), more than
 * `CHOICES_MAX` choices, an item over `CHOICE_CHARS_MAX` characters or nested deeper than
 * `CHOICE_DEPTH_MAX` is left in the words.
 *
 * The cut is made once, as the answer's line is kept (server/db/lines.ts): the words are kept
 * without the list and the choices apart, so nothing downstream reads markdown again and no reader
 * is shown the grammar. A nested list offers its innermost items, each said with the items above
 * it ("Paperback — used").
 */
import { isRecord } from '../isRecord';

/** Most choices one offer holds. */
export const CHOICES_MAX = 6;
/** Longest item, in characters (UTF-16 code units, as `String.length` counts them), once its markup is gone. */
export const CHOICE_CHARS_MAX = 70;
/** Deepest a list may nest and still be an offer: a flat list is 1 deep. */
export const CHOICE_DEPTH_MAX = 3;

/** What a line offers, kept beside its words. */
export interface Choices {
  /** The last line of the words above the list: what the choices answer, and their buttons' label. */
  question: string;
  /** What each choice says, in order: the words a press sends. */
  items: readonly string[];
}

/** An offer as the page holds it on a line: the choices, the line that offers them, and which was taken. */
export interface Offer extends Choices {
  /** The server's id of the line that offers them. */
  id: string;
  /** The choice taken (its index in `items`), or null while none is. */
  taken: number | null;
}

/** An answer cut: its words without the list, and the choices the list offered. */
export interface Cut {
  words: string;
  choices: Choices;
}

/** What joins a nested choice's items, outermost first. */
const NESTED = ' — ';
/** One item of a `- ` list: its indent and its text. */
const ITEM = /^([ \t]*)- +(\S.*)$/u;
const FENCE = /^[ \t]*(?:`{3,}|~{3,})/u;
const LINK = /\[([^\]]*)\]\((?:[^()\s]|\([^()\s]*\))*\)/gu;
const EMPHASIS = /\*\*|__|~~|`|(?<![\p{L}\p{N}])[*_]+|[*_]+(?![\p{L}\p{N}])/gu;
const BLOCK_MARKER = /^(?:#{1,6}|>+)[ \t]+/u;

/** `text` with its inline markup taken off: a link's words, no emphasis or backticks. */
function plain(text: string): string {
  return text.replace(LINK, '$1').replace(EMPHASIS, '').replace(/\s+/gu, ' ').trim();
}

/** An indent's width, a tab counting as four spaces. */
const widthOf = (indent: string) => indent.length + 3 * (indent.match(/\t/gu)?.length ?? 0);

/**
 * The answer `text` cut into its words and the choices its last lines offer, or null when it
 * offers none (it ends in no `- ` list, nothing stands above the list, or the list is over a cap).
 */
export function cutChoices(text: string): Cut | null {
  const lines = text.split(/\r\n|\r|\n/u);
  while (lines.length > 0 && (lines.at(-1) ?? '').trim() === '') lines.pop();
  let top = lines.length;
  while (top > 0) {
    const line = lines[top - 1] ?? '';
    if (line.trim() !== '' && !ITEM.test(line)) break;
    top -= 1;
  }
  const above = lines.slice(0, top);
  const listed = lines.slice(top).filter((line) => line.trim() !== '');
  const question = above.findLast((line) => line.trim() !== '');
  // Inside an open code block the list is code.
  if (listed.length === 0 || question === undefined || above.filter((line) => FENCE.test(line)).length % 2 === 1) return null;
  const items = itemsOf(listed);
  if (items === null) return null;
  return { words: above.join('\n').trimEnd(), choices: { question: plain(question.trim().replace(BLOCK_MARKER, '')), items } };
}

/** The choices of a list's lines, innermost items said with those above them; null when over a cap. */
function itemsOf(listed: readonly string[]): string[] | null {
  const read = listed.map((line) => {
    const [, indent = '', said = ''] = ITEM.exec(line) ?? [];
    return { width: widthOf(indent), text: plain(said) };
  });
  if (read.some((item) => item.text === '' || item.text.length > CHOICE_CHARS_MAX)) return null;
  const indents: number[] = [];
  const depths = read.map(({ width }) => {
    while (indents.length > 0 && width < (indents.at(-1) ?? 0)) indents.pop();
    if (indents.length === 0 || width > (indents.at(-1) ?? 0)) indents.push(width);
    return indents.length;
  });
  if (depths.some((depth) => depth > CHOICE_DEPTH_MAX)) return null;
  const choices: string[] = [];
  const path: string[] = [];
  read.forEach((item, i) => {
    const depth = depths[i] ?? 1;
    path.length = depth - 1;
    path.push(item.text);
    if ((depths[i + 1] ?? 0) <= depth) choices.push(path.join(NESTED));
  });
  return choices.length > CHOICES_MAX ? null : choices;
}

/**
 * An offering line as a model reads it again: its words and, under them, its choices as the list
 * they were written as — a model sees what it offered when the person answers it.
 */
export function writtenWithChoices(words: string, choices: Choices): string {
  return `${words}\n\n${choices.items.map((item) => `- ${item}`).join('\n')}`;
}

/** Whether `value` is choices as a line keeps them. */
export function isChoices(value: unknown): value is Choices {
  return (
    isRecord(value) &&
    typeof value.question === 'string' &&
    Array.isArray(value.items) &&
    value.items.length > 0 &&
    value.items.length <= CHOICES_MAX &&
    value.items.every((item) => typeof item === 'string' && item !== '')
  );
}

/** Whether `value` is an offer as a page holds it. */
export function isOffer(value: unknown): value is Offer {
  if (!isChoices(value)) return false;
  const offer = value as unknown as Record<string, unknown>;
  const taken = offer.taken;
  return typeof offer.id === 'string' && (taken === null || (typeof taken === 'number' && Number.isInteger(taken) && taken >= 0 && taken < value.items.length));
}
