/**
 * How an offer sounds: the voice says the question and its choices as one sentence, "Which copy
 * is it: the paperback or the hardcover?" — the question's end turned into a colon, then the
 * choices as `Intl.ListFormat`'s disjunction in the person's language — never the list read out
 * item by item. Only the question's last sentence is joined: those before it are said as written.
 *
 * Whether an answer is an offer is known only once it has ended (its list must be its last lines),
 * so while it streams (`holdList`) the last word of a line is held back from the chunker until
 * whitespace follows it on its line or, at the line's end, until the next non-blank line's first
 * characters say whether a `- ` list follows; a list is held for as long as it lasts. A line that
 * is no item lets all that go on, as written, at once. At the end (`releaseList`) what is still
 * held is said as the question's last word and its choices when the answer is an offer by the rule
 * the server cuts it by (`common/conversation/choices.ts`), and as written otherwise. A question
 * whose line ends in spaces has gone on whole by then: its choices are said after it, as a
 * question of their own.
 *
 * The hold costs nothing the person hears: the chunker reads whole tokens, so it holds a word
 * itself until whitespace follows it, and at a line's end the wait is for a token or two more.
 *
 * Pure: the state is plain data the conversation machine keeps.
 */
import { cutChoices } from '../../../common/conversation/choices';

/** What is held back from the voice while an answer streams. */
export interface ListHold {
  /**
   * Not yet given to the chunker: the last word of the last line of words (with what follows it)
   * and, after it, blank lines, items and the start of a line not yet known to be an item or not.
   */
  readonly held: string;
  /**
   * The line being read: words (only its last word is held), an item, or open — blank so far, or
   * a dash that may still start an item.
   */
  readonly line: 'open' | 'words' | 'item';
}

export const NOTHING_HELD: ListHold = Object.freeze({ held: '', line: 'open' });

/** The start of a `- ` item, as `cutChoices` reads one. */
const ITEM = /^[ \t]*- +\S/u;
/** The start of a line that may still become an item. */
const MAY_BE_ITEM = /^[ \t]*-? *$/u;
const BLANK = /^\s*$/u;
/** What ends a question, with any emphasis closing it ("**Which list?**"): a colon takes its place. */
const QUESTION_END = /(?:[.!?;:,…。！？：]|[*_~`])+$/u;

/** Reads `delta` of an answer: what goes on to the chunker now, and what is held. */
export function holdList(hold: ListHold, delta: string): { hold: ListHold; pass: string } {
  let { held, line } = hold;
  let pass = '';
  for (const piece of delta.split(/(?<=\n)/u)) {
    const ends = piece.endsWith('\n');
    held += ends ? piece.slice(0, -1) : piece;
    if (line === 'open') line = lineKind(held.slice(held.lastIndexOf('\n') + 1), ends);
    if (line === 'words') {
      const at = lastWordAt(held);
      pass += held.slice(0, at);
      held = held.slice(at);
    }
    if (ends) {
      held += '\n';
      line = 'open';
    }
  }
  return { hold: { held, line }, pass };
}

/** What the line read so far (`complete` when its end has come) is known to be. */
function lineKind(line: string, complete: boolean): ListHold['line'] {
  if (ITEM.test(line)) return 'item';
  if (BLANK.test(line) || (!complete && MAY_BE_ITEM.test(line))) return 'open';
  return 'words';
}

/** Where the word `text` ends in starts; its length when it ends in whitespace. */
function lastWordAt(text: string): number {
  let start = text.length;
  while (start > 0 && !/\s/u.test(text.charAt(start - 1))) start -= 1;
  return start;
}

/**
 * At the end of `answer` (the whole of it): what of it the chunker still gets — the question's
 * last word and the choices as one sentence when the answer is an offer, what was held as written
 * otherwise.
 */
export function releaseList(hold: ListHold, answer: string, language: string): string {
  const cut = cutChoices(answer);
  if (cut === null) return hold.held;
  const choices = choicesAloud(cut.choices.items, language);
  const word = /^\S+/u.exec(hold.held)?.[0];
  if (word === undefined) return `\n${choices.charAt(0).toUpperCase()}${choices.slice(1)}`;
  return `${word.replace(QUESTION_END, '')}: ${choices}`;
}

/** Text known whole, as the voice says it: what the chunker gets of it had it streamed. */
export function aloud(text: string, language: string): string {
  const { hold, pass } = holdList(NOTHING_HELD, text);
  return pass + releaseList(hold, text, language);
}

/**
 * The choices as the end of a question, in `language`: "the paperback or the hardcover?". Each
 * starts in lower case where the language writes it so (German capitalises its nouns), unless it
 * opens with a word in capitals ("PDF").
 */
export function choicesAloud(items: readonly string[], language: string): string {
  const german = language.toLowerCase().startsWith('de');
  const said = items.map((item) => {
    const plain = item.replace(/[.!?;:,]+$/u, '');
    if (german || /^\p{Lu}{2}/u.test(plain)) return plain;
    return plain.charAt(0).toLowerCase() + plain.slice(1);
  });
  return `${listFormat(language).format(said)}?`;
}

function listFormat(language: string): Intl.ListFormat {
  try {
    return new Intl.ListFormat(language, { type: 'disjunction' });
  } catch {
    // A tag Intl does not take is said as English would.
    return new Intl.ListFormat('en', { type: 'disjunction' });
  }
}
