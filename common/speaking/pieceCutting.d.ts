/**
 * The next piece from the front of `kept`, no longer than `limit` unless its first unit alone is:
 * whole sentences while they fit; then, for a sentence longer than any piece at this limit, as
 * many of its phrases as fit (at least one in an empty piece), leaving the rest of it kept. A
 * sentence that fits a piece of its own waits for the next one.
 *
 * The limit is `pieceChars`, or the budget given for the piece when that is smaller (what this
 * device can make before the audio queued ahead of it has played out, see `pace.ts`), so a small
 * budget gives more, smaller pieces, never a cut mid-phrase (phrases have at least
 * `MIN_PHRASE_WORDS`); a phrase longer than its budget is spoken whole. Only past `pieceChars` does
 * a phrase break, at the last space before it (at the limit itself in a run with no space).
 */
export declare function cut(kept: readonly string[], limit: number, pieceChars: number): {
    piece: string | null;
    rest: string[];
};
/**
 * Text (the opening, on its own) as units no longer than `limit` characters: itself, or its
 * phrases when it is longer, each broken further only if it alone is still too long.
 */
export declare function unitsOf(words: readonly string[], limit: number): string[];
