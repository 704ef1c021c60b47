/**
 * Cuts an answer into the pieces its voice speaks, while the answer is still streaming in.
 *
 * Only the opening piece is ever waited for, so it is cut for a fast start and leaves the moment
 * its end is certain; every later piece is cut so that it is ready before the one before it has
 * played out (`pieceCutting.ts`). The chunker folds over whole tokens (the text between
 * whitespace, which collapses to single spaces), never over deltas, so an answer yields the same
 * pieces however it arrives: in one delta, a character at a time, or split mid-word. What of the
 * markdown is spoken is `markdownForSpeech.ts`; where sentences end, `sentences.ts`. No piece is
 * empty or punctuation alone: a sentence with no letter or digit is never spoken.
 *
 * Pure: the state is immutable, serialisable plain data, so a machine can keep it in its context.
 */
import { resolveTalk } from '../talk';
import type { Talk } from '../talk';
import { BLOCK_MARKER, cleanToken, FENCE_OPEN, ONE_CHARACTER_REPEATED } from './markdownForSpeech';
import { cut, unitsOf } from './pieceCutting';
import { countWords, endsClause, isWordLike, MIN_PHRASE_WORDS, OPENS_SENTENCE, stopAfter, TRAILING_PUNCTUATION, withStop } from './sentences';

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
  readonly kept: readonly string[];
}

/**
 * For `chunkAll`: the most characters the next later piece may have, given the pieces cut before it
 * (the opening first): the caller projects those onto what it knows of the voice's queue. Any
 * number; `Infinity` (the default) leaves `pieceChars` as the only limit.
 */
export type PieceBudget = (cut: readonly string[]) => number;

const NO_BUDGET: PieceBudget = () => Number.POSITIVE_INFINITY;

/**
 * How later pieces leave a call. Packed (the default), each leaves as soon as nothing more can join
 * it — the next sentence would not fit, or it is full — or at the end of the answer; kept
 * (`{ keep: true }`), they wait until the caller cuts one with `cutPiece`, when its voice is ready
 * for the next piece, to the budget of that moment.
 */
export interface Cutting {
  /**
   * Keep complete sentences after the opening in the state, for `cutPiece`, instead of packing
   * them into pieces of up to `pieceChars` as they come. Default false.
   */
  keep?: boolean;
}

/** One step of the fold: the state to keep, and the pieces ready to speak, in order (often none). */
export interface Chunked {
  readonly state: ChunkerState;
  readonly pieces: string[];
}

const TOKEN_OR_BREAK = /\S+|[\n\r]/gu;

/**
 * A fresh chunker for one answer. Throws `OptionError` for a `words` or `pieceChars` out of
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
    kept: [],
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
  if (cutting.keep !== true) packFull(work, pieces, false);
  return { state: work, pieces: pieces };
}

/**
 * Ends the answer, returning what is left to speak and a state for the next answer; keeping, what
 * is left stays kept in that state for `cutPiece`.
 */
export function endText(state: ChunkerState, cutting: Cutting = {}): Chunked {
  const work = workOn(state);
  const pieces: string[] = [];
  if (work.tail !== '') readToken(work, work.tail, pieces);
  endLine(work, pieces);
  if (cutting.keep !== true) packFull(work, pieces, true);
  return { state: { ...startChunking({ words: state.words, pieceChars: state.pieceChars }), kept: work.kept }, pieces: pieces };
}

/**
 * Cuts the next later piece from the sentences kept, to `budgetChars` (or `pieceChars`, when that
 * is smaller); the piece is null when nothing is kept.
 */
export function cutPiece(state: ChunkerState, budgetChars: number = Number.POSITIVE_INFINITY): { state: ChunkerState; piece: string | null } {
  const { piece, rest } = cut(state.kept, limitOf(state, budgetChars), state.pieceChars);
  return { state: { ...state, kept: rest }, piece };
}

/** The state without the sentences it kept: nothing more of this answer is to be spoken. */
export function dropKept(state: ChunkerState): ChunkerState {
  return { ...state, kept: [] };
}

/** Every piece of a whole answer, as the streaming functions would cut it, each to `budget`. */
export function chunkAll(text: string, options?: ChunkOptions, budget: PieceBudget = NO_BUDGET): string[] {
  const pushed = pushText(startChunking(options), text, { keep: true });
  const ended = endText(pushed.state, { keep: true });
  const pieces = [...pushed.pieces, ...ended.pieces];
  for (let next = cutPiece(ended.state, budget(pieces)); next.piece !== null; next = cutPiece(next.state, budget(pieces))) {
    pieces.push(next.piece);
  }
  return pieces;
}

/**
 * A private, mutable copy of a state: the helpers below advance it in place while one delta is
 * read, and it is handed back as the new state, so no state a caller has ever changes.
 */
type Work = Omit<Mutable<ChunkerState>, 'sentence' | 'kept'> & { sentence: string[]; kept: string[] };
type Mutable<T> = { -readonly [K in keyof T]: T[K] };


function workOn(state: ChunkerState): Work {
  return { ...state, sentence: [...state.sentence], kept: [...state.kept] };
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

function endLine(work: Work, pieces: string[]): void {
  if (work.fence === '' && work.sentence.length > 0) {
    work.sentence = withStop(work.sentence);
    finishSentence(work, pieces);
  }
  work.lineStart = true;
}

function finishSentence(work: Work, pieces: string[]): void {
  const words = work.sentence;
  work.sentence = [];
  work.undecided = false;
  if (!words.some(isWordLike)) return;
  const rest = openingFrom(work, words, true, pieces);
  if (rest.some(isWordLike)) work.kept.push(rest.join(' '));
}

/**
 * Emits the opening from the front of `words` once it is decided — always when the sentence is
 * `complete` — and returns the words left for later pieces; before the opening is decided, or
 * after it has left, returns `words` untouched.
 *
 * The opening is the first sentence, unless that sentence runs past `words` words. Then it is the
 * sentence up to its first clause boundary (`,` `;` `:` an ellipsis or a dash) with at least three
 * words before it, provided three more follow it in the sentence (`MIN_PHRASE_WORDS`); with no such
 * boundary the whole sentence is the opening, a slower start rather than a cut mid-phrase. It
 * leaves as soon as that is certain: at the whitespace after the sentence's last token, or, for a
 * clause, once the sentence has passed `words` words and enough have followed the boundary. It
 * keeps to `pieceChars` and takes no budget: it is the one piece everybody waits for, and nothing
 * plays before it.
 */
function openingFrom(work: Work, words: string[], complete: boolean, pieces: string[]): string[] {
  if (work.opened) return words;
  const clauseEnd = openingClauseEnd(words, work.words);
  if (clauseEnd < 0 && !complete) return words;
  const cut = clauseEnd < 0 ? words.length : clauseEnd + 1;
  const [opening, ...rest] = unitsOf(words.slice(0, cut), work.pieceChars);
  work.opened = true;
  if (opening !== undefined) pieces.push(opening);
  work.kept.push(...rest);
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

/** A piece's limit: `pieceChars`, or the budget when that is smaller (a budget of NaN is none). */
function limitOf(state: Pick<ChunkerState, 'pieceChars'>, budgetChars: number): number {
  return Number.isNaN(budgetChars) ? state.pieceChars : Math.min(state.pieceChars, Math.max(0, Math.floor(budgetChars)));
}

/**
 * Packs the kept sentences into pieces that leave as soon as nothing more can join them (the next
 * sentence does not fit, or a unit and its space would not), and at the `end` whatever is left.
 */
function packFull(work: Work, pieces: string[], end: boolean): void {
  while (work.kept.length > 0) {
    const limit = work.pieceChars;
    const { piece, rest } = cut(work.kept, limit, work.pieceChars);
    if (piece === null) {
      work.kept = rest;
      continue;
    }
    if (!end && rest.length === 0 && piece.length + 2 <= limit) return;
    pieces.push(piece);
    work.kept = rest;
  }
}
