/**
 * Cuts an answer into the pieces its voice speaks, while the answer is still streaming in.
 *
 * Only the opening piece is ever waited for, so it is cut for a fast start and leaves the moment
 * its end is certain; every later piece is packed for an even delivery. The chunker folds over
 * whole tokens (the text between whitespace), never over deltas, so an answer yields the same
 * pieces however it arrives: in one delta, a character at a time, or split mid-word.
 *
 * The rules, in the order the text meets them:
 *
 * - Cleaning for the ear. A fenced code block (``` or ~~~, to its closing fence or the end of the
 *   answer) is skipped whole. Heading, quote, bullet and list-number markers at the start of a line
 *   are dropped. Emphasis (`*`, `_`, `~~`) and backticks are stripped and their words kept; a link
 *   `[text](url)` becomes its text. Bare URLs (`https://…`, `www.…`) are dropped: a URL is read,
 *   not heard, and the written answer still shows it. Emoji are dropped with their skin tones,
 *   joiners and variation selectors. Whitespace collapses to single spaces.
 * - Sentences end at `!`, `?` or `.` followed by whitespace, with any closing quotes and brackets
 *   kept on the sentence they close, and at every line break. A line that ends without punctuation
 *   gets a full stop, so a list item or a heading is spoken as a sentence. A full stop ends nothing
 *   after an initial ("J. R. R. Tolkien") or a title or Latin abbreviation ("Dr.", "e.g.", "vs."),
 *   and a stop inside a token ("3.14", "example.com") is no boundary at all. After an ellipsis, a
 *   dotted abbreviation ("p.m.", "U.S.") or an abbreviation that may close a sentence ("etc.",
 *   "Jr.", "No."), the sentence ends only if the next word opens with a capital letter.
 * - The opening piece is the first sentence, unless that sentence runs past `words` words. Then it
 *   is the sentence up to its first clause boundary (`,` `;` `:` an ellipsis or a dash) with at
 *   least three words before it, provided three more follow it in the sentence (`MIN_PHRASE_WORDS`);
 *   with no such boundary the whole sentence is the opening, a slower start rather than a cut
 *   mid-phrase. It leaves as soon as that is certain: at the whitespace after the sentence's last
 *   token, or, for a clause, once the sentence has passed `words` words and enough have followed
 *   the boundary.
 * - Later pieces pack whole sentences greedily up to `pieceChars` characters; each leaves when the
 *   next sentence would not fit, or at the end of the answer. A sentence longer than `pieceChars`
 *   is packed clause by clause instead, and a clause longer than that breaks at the last space
 *   before the limit (at the limit itself in a run with no space). The opening keeps to the same
 *   limit.
 * - No piece is empty or punctuation alone: a sentence with no letter or digit is never spoken.
 *
 * Pure: the state is immutable, serialisable plain data, so a machine can keep it in its context.
 */
import { resolveTalk } from './talk';
import type { Talk } from './talk';

/** The talk settings that shape the pieces; any left out take their `TALK` defaults. */
export type ChunkOptions = Partial<Pick<Talk, 'words' | 'pieceChars'>>;

/** Where a chunker is between deltas. Opaque to callers; nothing here mutates one it is given. */
export interface ChunkerState {
  /** Longest first sentence spoken whole as the opening, in words (`Talk.words`). */
  readonly words: number;
  /** Longest piece, in characters (`Talk.pieceChars`). */
  readonly pieceChars: number;
  /** Raw text after the last whitespace: a token that may still be growing. */
  readonly tail: string;
  /** Whether the next token begins a line, the only place block markers and fences count. */
  readonly lineStart: boolean;
  /** The run of ``` or ~~~ that opened the code block being skipped; '' outside code. */
  readonly fence: string;
  /** The cleaned words of the sentence being read. */
  readonly sentence: readonly string[];
  /** Whether the sentence's last word ends it only if the next word opens with a capital. */
  readonly undecided: boolean;
  /** Whether the opening piece has left. */
  readonly opened: boolean;
  /** The later piece being packed, or '': it leaves once the next sentence will not fit. */
  readonly packed: string;
}

/** One step of the fold: the state to keep, and the pieces ready to speak, in order (often none). */
export interface Chunked {
  readonly state: ChunkerState;
  readonly pieces: string[];
}

/**
 * Fewest words a clause needs to be the opening, and fewest that must follow it in its sentence.
 * Three keeps a lead-in like "Well," or "In short," from being spoken alone, and keeps a cut from
 * leaving a word or two dangling after it.
 */
const MIN_PHRASE_WORDS = 3;

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

const TOKEN_OR_BREAK = /\S+|[\n\r]/gu;
/** A fence's info string cannot hold a backtick, so "```ls```" opening a line is inline code. */
const FENCE_OPEN = /^(`{3,}|~{3,})[^`]*$/u;
/** With a `startsWith` on the opening run: a closing fence is at least as long, and nothing else. */
const ONE_CHARACTER_REPEATED = /^(.)\1*$/u;
const BLOCK_MARKER = /^(?:#{1,6}|>+|[-*+•]|\d{1,3}[.)])$/u;

/** The `](url)` of a link, allowing one level of brackets inside the URL, as Wikipedia's have. */
const LINK_TARGET = /\]\((?:[^()\s]|\([^()\s]*\))*\)/gu;
/** Stops short of the punctuation that ends the token, which still belongs to the sentence. */
const BARE_URL = /(?:https?:\/\/|www\.)\S*?(?=[.,;:!?)\]}>"'’”»]*$)/giu;
const EMPTY_BRACKETS = /\(\)|\[\]|<>/gu;
const MARKUP = /!?\[|\]|[*`]|~~|(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu;
/** Emoji and everything that joins or modifies them; the tag range spells subdivision flags. */
const PICTOGRAPH =
  /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\p{Variation_Selector}|\u200d|\u20e3|[\u{e0020}-\u{e007f}]/gu;
const EM_DASH = /(—)/u;

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const OPENS_SENTENCE = /^[^\p{L}\p{N}]*(?!\p{Ll})\p{L}/u;
const TRAILING_PUNCTUATION = /^[.,;:!?…)\]}’”»%]+$/u;
const OPENERS = /^[([{"'‘“«¿¡]+/u;
const CLOSERS = /[)\]}"'’”»]+$/u;
const ELLIPSIS = /(?:\.\.\.|…)$/u;
const INITIAL = /^\p{Lu}$/u;
const DOTTED_ABBREVIATION = /^(?:\p{L}{1,2}\.)+\p{L}{1,2}$/u;
const CLAUSE_END = /(?:[,;:…]|\.\.\.)$/u;
const DASH = /^[-–—]+$/u;
const STOPPED = /[.!?…,;:\-–—]$/u;

/**
 * A fresh chunker for one answer. Throws `TalkSettingError` for a `words` or `pieceChars` out of
 * range, naming the setting and what it accepts.
 */
export function startChunking(options: ChunkOptions = {}): ChunkerState {
  const { words, pieceChars } = resolveTalk(options);
  return {
    words,
    pieceChars,
    tail: '',
    lineStart: true,
    fence: '',
    sentence: [],
    undecided: false,
    opened: false,
    packed: '',
  };
}

/** Reads the next delta of the answer, of any length, cut anywhere. */
export function pushText(state: ChunkerState, delta: string): Chunked {
  const work = workOn(state);
  const pieces: string[] = [];
  const text = state.tail + delta;
  work.tail = '';
  for (const { 0: chunk, index } of text.matchAll(TOKEN_OR_BREAK)) {
    if (chunk === '\n' || chunk === '\r') endLine(work, pieces);
    else if (index + chunk.length < text.length) readToken(work, chunk, pieces);
    else work.tail = chunk;
  }
  return { state: work, pieces };
}

/** Ends the answer, returning whatever is left to speak and a fresh state for the next answer. */
export function endText(state: ChunkerState): Chunked {
  const work = workOn(state);
  const pieces: string[] = [];
  if (work.tail !== '') readToken(work, work.tail, pieces);
  endLine(work, pieces);
  if (work.packed !== '') pieces.push(work.packed);
  return { state: startChunking({ words: state.words, pieceChars: state.pieceChars }), pieces };
}

/** Every piece of a whole answer, as the streaming functions would cut it. */
export function chunkAll(text: string, options?: ChunkOptions): string[] {
  const pushed = pushText(startChunking(options), text);
  return [...pushed.pieces, ...endText(pushed.state).pieces];
}

/**
 * A private, mutable copy of a state: the helpers below advance it in place while one delta is
 * read, and it is handed back as the new state, so no state a caller holds ever changes.
 */
type Work = Omit<Mutable<ChunkerState>, 'sentence'> & { sentence: string[] };
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function workOn(state: ChunkerState): Work {
  return { ...state, sentence: [...state.sentence] };
}

function readToken(work: Work, token: string, pieces: string[]): void {
  if (work.fence !== '') {
    if (work.lineStart && token.startsWith(work.fence) && ONE_CHARACTER_REPEATED.test(token)) work.fence = '';
    work.lineStart = false;
    return;
  }
  const fence = work.lineStart ? FENCE_OPEN.exec(token)?.[1] : undefined;
  if (fence !== undefined) {
    work.fence = fence;
    work.lineStart = false;
    return;
  }
  const words = cleanToken(token);
  // A marker leaves the line open, so "> - item" and "- 1. item" lose both of theirs.
  if (work.lineStart && (BLOCK_MARKER.test(token) || BLOCK_MARKER.test(words.join(' ')))) return;
  work.lineStart = false;
  for (const word of words) readWord(work, word, pieces);
}

/** The words a token is spoken as: none for markup, a URL or emoji; an em dash stands apart. */
function cleanToken(token: string): string[] {
  return token
    .replace(LINK_TARGET, '')
    .replace(BARE_URL, '')
    .replace(EMPTY_BRACKETS, '')
    .replace(MARKUP, '')
    .replace(PICTOGRAPH, '')
    .split(EM_DASH)
    .filter((word) => word !== '');
}

function readWord(work: Work, word: string, pieces: string[]): void {
  const last = work.sentence.at(-1);
  let current = word;
  if (last !== undefined && TRAILING_PUNCTUATION.test(word)) {
    // Punctuation left alone by a dropped emoji or URL ("done 🎉!") belongs to the word before.
    current = last + word;
    work.sentence.pop();
  } else if (work.undecided && OPENS_SENTENCE.test(word)) {
    finishSentence(work, pieces);
  }
  work.sentence.push(current);
  const stop = stopAfter(current);
  work.undecided = stop === 'depends';
  if (stop === 'ends') finishSentence(work, pieces);
  else work.sentence = openingFrom(work, work.sentence, false, pieces);
}

/** Whether a sentence ends after `word`, or whether that depends on how the next word opens. */
function stopAfter(word: string): 'ends' | 'continues' | 'depends' {
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

function endLine(work: Work, pieces: string[]): void {
  if (work.fence === '' && work.sentence.length > 0) {
    work.sentence = withStop(work.sentence);
    finishSentence(work, pieces);
  }
  work.lineStart = true;
}

/** The sentence with a full stop on its last word, unless it already ends in punctuation. */
function withStop(words: string[]): string[] {
  const last = words.at(-1);
  if (last === undefined || STOPPED.test(last.replace(CLOSERS, ''))) return words;
  return [...words.slice(0, -1), `${last}.`];
}

function finishSentence(work: Work, pieces: string[]): void {
  const words = work.sentence;
  work.sentence = [];
  work.undecided = false;
  if (!words.some(isWordLike)) return;
  for (const unit of unitsOf(openingFrom(work, words, true, pieces), work.pieceChars)) {
    addUnit(work, unit, pieces);
  }
}

/**
 * Emits the opening from the front of `words` once it is decided — always when the sentence is
 * `complete` — and returns the words left for later pieces; before the opening is decided, or
 * after it has left, returns `words` untouched.
 */
function openingFrom(work: Work, words: string[], complete: boolean, pieces: string[]): string[] {
  if (work.opened) return words;
  const clauseEnd = openingClauseEnd(words, work.words);
  if (clauseEnd < 0 && !complete) return words;
  const cut = clauseEnd < 0 ? words.length : clauseEnd + 1;
  const [opening, ...rest] = unitsOf(words.slice(0, cut), work.pieceChars);
  work.opened = true;
  if (opening !== undefined) pieces.push(opening);
  for (const unit of rest) addUnit(work, unit, pieces);
  return words.slice(cut);
}

/**
 * The index of the word ending the opening clause of a sentence that runs past `limit` words, or
 * -1 when the sentence is spoken whole. Only the first boundary with enough words before it is a
 * candidate: any later one would leave even fewer words after it.
 */
function openingClauseEnd(words: readonly string[], limit: number): number {
  if (countWords(words) <= limit) return -1;
  let before = 0;
  for (const [index, word] of words.entries()) {
    if (isWordLike(word)) before += 1;
    if (before >= MIN_PHRASE_WORDS && endsClause(word)) {
      return countWords(words.slice(index + 1)) >= MIN_PHRASE_WORDS ? index : -1;
    }
  }
  return -1;
}

function endsClause(word: string): boolean {
  const core = word.replace(CLOSERS, '');
  return CLAUSE_END.test(core) || DASH.test(core);
}

/** Adds a unit to the later piece being packed, sending that piece off first if it would overflow. */
function addUnit(work: Work, unit: string, pieces: string[]): void {
  if (work.packed === '') {
    work.packed = unit;
  } else if (work.packed.length + 1 + unit.length <= work.pieceChars) {
    work.packed = `${work.packed} ${unit}`;
  } else {
    pieces.push(work.packed);
    work.packed = unit;
  }
}

/**
 * A sentence (or the part of one) as units no longer than `limit` characters: itself, or its
 * clauses when it is longer, each broken further only if it alone is still too long. Units without
 * a letter or digit are left out.
 */
function unitsOf(words: readonly string[], limit: number): string[] {
  const text = words.join(' ');
  if (text.length <= limit) return isWordLike(text) ? [text] : [];
  return clausesOf(words)
    .flatMap((clause) => breakToFit(clause, limit))
    .filter(isWordLike);
}

function clausesOf(words: readonly string[]): string[] {
  const clauses: string[] = [];
  let clause: string[] = [];
  for (const word of words) {
    clause.push(word);
    if (endsClause(word)) {
      clauses.push(clause.join(' '));
      clause = [];
    }
  }
  return clause.length > 0 ? [...clauses, clause.join(' ')] : clauses;
}

/** Breaks text at the last space before `limit`, or at `limit` with no space, never inside a code point. */
function breakToFit(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const space = rest.lastIndexOf(' ', limit);
    const cut = space > 0 ? space : limit - (isHighSurrogate(rest.charCodeAt(limit - 1)) ? 1 : 0);
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).trimStart();
  }
  return [...parts, rest];
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isWordLike(text: string): boolean {
  return WORD_CHARACTER.test(text);
}

function countWords(words: readonly string[]): number {
  return words.filter(isWordLike).length;
}
