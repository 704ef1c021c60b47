/**
 * Cuts an answer into the pieces its voice speaks, while the answer is still streaming in.
 *
 * Only the opening piece is ever waited for, so it is cut for a fast start and leaves the moment
 * its end is certain; every later piece is cut so that it is ready before the one before it has
 * played out. The chunker folds over
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
 * - Complete sentences after the opening are held, and a later piece is cut from the front of
 *   them: whole sentences greedily up to its limit, `pieceChars` characters or the budget given for
 *   it when that is smaller (what this device can make before the audio queued ahead of it has
 *   played out, see `pace.ts`). A sentence that fits in no piece at that limit is taken phrase by
 *   phrase instead (clauses of at least three words, `MIN_PHRASE_WORDS`), so a small budget gives
 *   more, smaller pieces, never a cut mid-phrase; a phrase longer than its budget is spoken whole.
 *   Only past `pieceChars` does a phrase break, at the last space before it (at the limit itself
 *   in a run with no space). The opening keeps to `pieceChars` and takes no budget: it is the one
 *   piece everybody waits for, and nothing plays before it.
 * - When later pieces leave is the caller's: packed (the default), each leaves as soon as nothing
 *   more can join it — the next sentence would not fit, or it is full — or at the end of the answer;
 *   held (`{ hold: true }`), they wait until the caller cuts one with `cutPiece`, when its voice
 *   is ready for the next piece, to the budget of that moment.
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
  /** Complete sentences after the opening (or what is left of one) not yet cut into a piece. */
  readonly held: readonly string[];
}

/**
 * For `chunkAll`: the most characters the next later piece may have, given the pieces cut before it
 * (the opening first): the caller projects those onto what it knows of the voice's queue. Any
 * number; `Infinity` (the default) leaves `pieceChars` as the only limit.
 */
export type PieceBudget = (cut: readonly string[]) => number;

const NO_BUDGET: PieceBudget = () => Number.POSITIVE_INFINITY;

/** How later pieces leave a call. */
export interface Cutting {
  /**
   * Keep complete sentences after the opening in the state, for `cutPiece`, instead of packing
   * them into pieces of up to `pieceChars` as they come. Default false.
   */
  hold?: boolean;
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
    held: [],
  };
}

/** Reads the next delta of the answer, of any length, cut anywhere. */
export function pushText(state: ChunkerState, delta: string, cutting: Cutting = {}): Chunked {
  const work = workOn(state);
  const pieces: string[] = [];
  const text = state.tail + delta;
  work.tail = '';
  for (const { 0: chunk, index } of text.matchAll(TOKEN_OR_BREAK)) {
    if (chunk === '\n' || chunk === '\r') endLine(work, pieces);
    else if (index + chunk.length < text.length) readToken(work, chunk, pieces);
    else work.tail = chunk;
  }
  if (cutting.hold !== true) packFull(work, pieces, false);
  return { state: work, pieces: pieces };
}

/**
 * Ends the answer, returning what is left to speak and a state for the next answer; holding, what
 * is left stays held in that state for `cutPiece`.
 */
export function endText(state: ChunkerState, cutting: Cutting = {}): Chunked {
  const work = workOn(state);
  const pieces: string[] = [];
  if (work.tail !== '') readToken(work, work.tail, pieces);
  endLine(work, pieces);
  if (cutting.hold !== true) packFull(work, pieces, true);
  return { state: { ...startChunking({ words: state.words, pieceChars: state.pieceChars }), held: work.held }, pieces: pieces };
}

/**
 * Cuts the next later piece from the sentences held, to `budgetChars` (or `pieceChars`, when that
 * is smaller); the piece is null when nothing is held.
 */
export function cutPiece(state: ChunkerState, budgetChars: number = Number.POSITIVE_INFINITY): { state: ChunkerState; piece: string | null } {
  const { piece, rest } = cut(state.held, limitOf(state, budgetChars), state.pieceChars);
  return { state: { ...state, held: rest }, piece };
}

/** The state without the sentences it held: nothing more of this answer is to be spoken. */
export function dropHeld(state: ChunkerState): ChunkerState {
  return { ...state, held: [] };
}

/** Every piece of a whole answer, as the streaming functions would cut it, each to `budget`. */
export function chunkAll(text: string, options?: ChunkOptions, budget: PieceBudget = NO_BUDGET): string[] {
  const pushed = pushText(startChunking(options), text, { hold: true });
  const ended = endText(pushed.state, { hold: true });
  const pieces = [...pushed.pieces, ...ended.pieces];
  for (let next = cutPiece(ended.state, budget(pieces)); next.piece !== null; next = cutPiece(next.state, budget(pieces))) {
    pieces.push(next.piece);
  }
  return pieces;
}

/**
 * A private, mutable copy of a state: the helpers below advance it in place while one delta is
 * read, and it is handed back as the new state, so no state a caller holds ever changes.
 */
type Work = Omit<Mutable<ChunkerState>, 'sentence' | 'held'> & { sentence: string[]; held: string[] };
type Mutable<T> = { -readonly [K in keyof T]: T[K] };


function workOn(state: ChunkerState): Work {
  return { ...state, sentence: [...state.sentence], held: [...state.held] };
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
  const rest = openingFrom(work, words, true, pieces);
  if (rest.some(isWordLike)) work.held.push(rest.join(' '));
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
  work.held.push(...rest);
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

/** A piece's limit: `pieceChars`, or the budget when that is smaller (a budget of NaN is none). */
function limitOf(state: Pick<ChunkerState, 'pieceChars'>, budgetChars: number): number {
  return Number.isNaN(budgetChars) ? state.pieceChars : Math.min(state.pieceChars, Math.max(0, Math.floor(budgetChars)));
}

/**
 * Packs the held sentences into pieces that leave as soon as nothing more can join them (the next
 * sentence does not fit, or a unit and its space would not), and at the `end` whatever is left.
 */
function packFull(work: Work, pieces: string[], end: boolean): void {
  while (work.held.length > 0) {
    const limit = work.pieceChars;
    const { piece, rest } = cut(work.held, limit, work.pieceChars);
    if (piece === null) {
      work.held = rest;
      continue;
    }
    if (!end && rest.length === 0 && piece.length + 2 <= limit) return;
    pieces.push(piece);
    work.held = rest;
  }
}

/**
 * The next piece from the front of `held`, no longer than `limit` unless its first unit alone is:
 * whole sentences while they fit; then, for a sentence longer than any piece at this limit, as
 * many of its phrases as fit (at least one in an empty piece), leaving the rest of it held. A
 * sentence that fits a piece of its own waits for the next one.
 */
function cut(held: readonly string[], limit: number, pieceChars: number): { piece: string | null; rest: string[] } {
  const rest = [...held];
  let piece = '';
  const room = () => (piece === '' ? limit : limit - piece.length - 1);
  const take = (text: string) => {
    piece = piece === '' ? text : `${piece} ${text}`;
  };
  for (let sentence = rest[0]; sentence !== undefined; sentence = rest[0]) {
    if (sentence.length <= room()) {
      take(sentence);
      rest.shift();
      continue;
    }
    if (piece !== '' && sentence.length <= limit) break;
    const units = phrasesOf(sentence.split(' '))
      .flatMap((phrase) => breakToFit(phrase, pieceChars))
      .filter(isWordLike);
    let taken = 0;
    for (const unit of units) {
      if (piece !== '' && unit.length > room()) break;
      take(unit);
      taken += 1;
    }
    const left = units.slice(taken).join(' ');
    if (left === '') rest.shift();
    else rest[0] = left;
    break;
  }
  return { piece: piece === '' ? null : piece, rest };
}

/**
 * Text (the opening, on its own) as units no longer than `limit` characters: itself, or its
 * phrases when it is longer, each broken further only if it alone is still too long.
 */
function unitsOf(words: readonly string[], limit: number): string[] {
  const text = words.join(' ');
  if (text.length <= limit) return isWordLike(text) ? [text] : [];
  return phrasesOf(words)
    .flatMap((phrase) => breakToFit(phrase, limit))
    .filter(isWordLike);
}

/**
 * Words as phrases: clauses that end at a clause boundary and hold at least `MIN_PHRASE_WORDS`
 * words. A shorter clause ("Well,") joins the one after it, or, at the end, the one before.
 */
function phrasesOf(words: readonly string[]): string[] {
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
