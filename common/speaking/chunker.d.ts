import type { Talk } from '../talk';
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
/**
 * A fresh chunker for one answer. Throws `OptionError` for a `words` or `pieceChars` out of
 * range, naming the setting and what it accepts.
 */
export declare function startChunking(options?: ChunkOptions): ChunkerState;
/** Reads the next delta of the answer, of any length, cut anywhere. */
export declare function pushText(state: ChunkerState, delta: string, cutting?: Cutting): Chunked;
/**
 * Ends the answer, returning what is left to speak and a state for the next answer; keeping, what
 * is left stays kept in that state for `cutPiece`.
 */
export declare function endText(state: ChunkerState, cutting?: Cutting): Chunked;
/**
 * Cuts the next later piece from the sentences kept, to `budgetChars` (or `pieceChars`, when that
 * is smaller); the piece is null when nothing is kept.
 */
export declare function cutPiece(state: ChunkerState, budgetChars?: number): {
    state: ChunkerState;
    piece: string | null;
};
/** The state without the sentences it kept: nothing more of this answer is to be spoken. */
export declare function dropKept(state: ChunkerState): ChunkerState;
/** Every piece of a whole answer, as the streaming functions would cut it, each to `budget`. */
export declare function chunkAll(text: string, options?: ChunkOptions, budget?: PieceBudget): string[];
