/**
 * Where the spoken sentences and phrases of an answer end, word by word, and what counts as a word.
 */

/**
 * Fewest words a clause needs to be the opening, and fewest that must follow it in its sentence.
 * Three keeps a lead-in like "Well," or "In short," from being spoken alone, and keeps a cut from
 * leaving a word or two dangling after it.
 */
export const MIN_PHRASE_WORDS = 3;

/** Abbreviations always followed by more of their sentence. Lower case, without the final stop. */
const MID_SENTENCE_ABBREVIATIONS: ReadonlySet<string> = new Set([
  'mr', 'mrs', 'ms', 'mx', 'dr', 'prof', 'st', 'mt', 'rev', 'fr', 'gen', 'col', 'lt', 'capt', 'sgt',
  'gov', 'sen', 'rep', 'hon', 'vs', 'v', 'cf', 'viz', 'approx', 'e.g', 'i.e',
]);

/** Abbreviations that may also close a sentence. Lower case, without the final stop. */
const CLOSING_ABBREVIATIONS: ReadonlySet<string> = new Set([
  'jr', 'sr', 'etc', 'al', 'inc', 'ltd', 'co', 'corp', 'no', 'nos', 'vol', 'fig', 'p', 'pp', 'ch',
  'sec', 'eq', 'min', 'max',
]);

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
export const OPENS_SENTENCE = /^[^\p{L}\p{N}]*(?!\p{Ll})\p{L}/u;
export const TRAILING_PUNCTUATION = /^[.,;:!?…)\]}’”»%]+$/u;
const OPENERS = /^[([{"'‘“«¿¡]+/u;
const CLOSERS = /[)\]}"'’”»]+$/u;
const ELLIPSIS = /(?:\.\.\.|…)$/u;
const INITIAL = /^\p{Lu}$/u;
const DOTTED_ABBREVIATION = /^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u;
const CLAUSE_END = /(?:[,;:…]|\.\.\.)$/u;
const DASH = /^[-–—]+$/u;
const STOPPED = /[.!?…,;:\-–—]$/u;

/**
 * Whether a sentence ends after `word`, or whether that depends on how the next word opens.
 *
 * Sentences end at `!`, `?` or `.` followed by whitespace, with any closing quotes and brackets
 * kept on the sentence they close (and at every line break, `withStop`). A full stop ends nothing
 * after an initial ("J. R. R. Tolkien") or a title or Latin abbreviation ("Dr.", "e.g.", "vs."), and
 * a stop inside a token ("3.14", "example.com") is no boundary at all. After an ellipsis, a dotted
 * abbreviation ("p.m.", "U.S.") or an abbreviation that may close a sentence ("etc.", "Jr.", "No."),
 * the sentence ends only if the next word opens with a capital letter.
 */
export function stopAfter(word: string): 'ends' | 'continues' | 'depends' {
  const core = word.replace(CLOSERS, '');
  if (ELLIPSIS.test(core)) return 'depends';
  if (core.endsWith('!') || core.endsWith('?')) return 'ends';
  if (!core.endsWith('.')) return 'continues';
  const body = core.slice(0, -1).replace(OPENERS, '');
  const name = body.toLowerCase();
  if (INITIAL.test(body) || MID_SENTENCE_ABBREVIATIONS.has(name)) return 'continues';
  if (CLOSING_ABBREVIATIONS.has(name) || DOTTED_ABBREVIATION.test(body)) return 'depends';
  return 'ends';
}

/**
 * The sentence with a full stop on its last word, unless it already ends in punctuation: a line
 * that ends without it is spoken as a sentence (a list item, a heading).
 */
export function withStop(words: string[]): string[] {
  const last = words.at(-1);
  if (last === undefined || STOPPED.test(last.replace(CLOSERS, ''))) return words;
  return [...words.slice(0, -1), `${last}.`];
}

export function endsClause(word: string): boolean {
  const core = word.replace(CLOSERS, '');
  return CLAUSE_END.test(core) || DASH.test(core);
}

/**
 * Words as phrases: clauses that end at a clause boundary and hold at least `MIN_PHRASE_WORDS`
 * words. A shorter clause ("Well,") joins the one after it, or, at the end, the one before.
 */
export function phrasesOf(words: readonly string[]): string[] {
  const phrases: string[][] = [];
  let phrase: string[] = [];
  for (const word of words) {
    phrase.push(word);
    if (endsClause(word) && countWords(phrase) >= MIN_PHRASE_WORDS) {
      phrases.push(phrase);
      phrase = [];
    }
  }
  const last = phrases.at(-1);
  if (phrase.length > 0 && last !== undefined && countWords(phrase) < MIN_PHRASE_WORDS) last.push(...phrase);
  else if (phrase.length > 0) phrases.push(phrase);
  return phrases.map((p) => p.join(' '));
}

export function isWordLike(text: string): boolean {
  return WORD_CHARACTER.test(text);
}

export function countWords(words: readonly string[]): number {
  return words.filter(isWordLike).length;
}
