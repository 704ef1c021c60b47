/**
 * How an offer sounds: the voice says the question as it is written and then the choices as one
 * question of their own, "The paperback or the hardcover?" (`Intl.ListFormat`'s disjunction in
 * the person's language), never the list read out item by item.
 *
 * Whether a list is an offer is known only once the answer has ended (it must be its last lines),
 * so while the answer streams a list is held back from the chunker (`holdList`), line by line as it
 * comes: a line that is not an item lets it go on, as written, at once. At the end
 * (`releaseList`) what is still held is said as the choices when the answer is an offer by the same
 * rule the server cuts it by (`common/conversation/choices.ts`), and as written otherwise.
 *
 * Pure: the state is plain data the conversation machine keeps.
 */
import { cutChoices } from '../../../common/conversation/choices';

/** What is held back from the voice while an answer streams. */
export interface ListHold {
  /** The line being read, not yet known to be an item or not. */
  readonly line: string;
  /** Whether the line being read is known to be no item, so what follows of it goes straight on. */
  readonly passing: boolean;
  /** Whole lines of a list read so far (items and blank lines), from its first item. */
  readonly held: string;
}

export const NOTHING_HELD: ListHold = Object.freeze({ line: '', passing: false, held: '' });

/** A line that is a `- ` item, or may still become one. */
const MAY_BE_ITEM = /^[ \t]*(?:-(?: .*)?)?$/u;
const ITEM = /^[ \t]*- +\S/u;

/** Reads `delta` of an answer: what goes on to the chunker now, and what is held. */
export function holdList(hold: ListHold, delta: string): { hold: ListHold; pass: string } {
  let { line, passing, held } = hold;
  let pass = '';
  for (const piece of delta.split(/(?<=\n)/u)) {
    if (passing) {
      pass += piece;
      passing = !piece.endsWith('\n');
      continue;
    }
    line += piece;
    if (line.endsWith('\n')) {
      if (ITEM.test(line)) held += line;
      else if (line.trim() === '' && held === '') pass += line;
      else if (line.trim() === '') held += line;
      else {
        pass += held + line;
        held = '';
      }
      line = '';
    } else if (!MAY_BE_ITEM.test(line)) {
      pass += held + line;
      held = '';
      line = '';
      passing = true;
    }
  }
  return { hold: { line, passing, held }, pass };
}

/**
 * At the end of `answer` (the whole of it): what of it the chunker still gets — the held list said
 * as its choices when the answer is an offer, what was held as written otherwise, '' when nothing is.
 */
export function releaseList(hold: ListHold, answer: string, language: string): string {
  const rest = hold.held + hold.line;
  if (rest.trim() === '') return rest;
  const cut = cutChoices(answer);
  return cut === null ? rest : choicesAloud(cut.choices.items, language);
}

/** Text known whole, as the voice says it: an offer's list said as its choices. */
export function aloud(text: string, language: string): string {
  const cut = cutChoices(text);
  return cut === null ? text : `${cut.words}\n${choicesAloud(cut.choices.items, language)}`;
}

/**
 * The choices as one question, in `language`: "The paperback or the hardcover?". Each after the
 * first starts in lower case where the language writes it so (German capitalises its nouns), unless
 * it opens with a word in capitals ("PDF").
 */
export function choicesAloud(items: readonly string[], language: string): string {
  const german = language.toLowerCase().startsWith('de');
  const said = items.map((item, i) => {
    const plain = item.replace(/[.!?;:,]+$/u, '');
    if (i === 0 || german || /^\p{Lu}{2}/u.test(plain)) return plain;
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
