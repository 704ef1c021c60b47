export interface Talk {
    /**
     * Flow-matching solver steps for every piece after the opening. Cost is very nearly linear in
     * steps, and 8 is the quality the free voice is judged by. Default 8.
     */
    steps: number;
    /**
     * Solver steps for the opening piece, the only piece anybody waits for. Fewer steps start sooner
     * but change how the voice sounds, so it defaults to `steps`; a bot that wants speed sets 3.
     */
    opening: number;
    /**
     * The fewest solver steps a later piece may be made with when, at `steps`, it would be ready only
     * after the audio before it has played out. A piece that sounds a little rougher is better than a
     * silence that sounds as though the bot has stopped; the opening is never hurried (nothing plays
     * before it). From 1 to `steps`; default half of `steps`, rounded up (4 at 8 steps: about half
     * the time, cost being nearly linear in steps). `floor = steps` never hurries.
     */
    floor: number;
    /**
     * How short the opening piece tries to be, in words: a first sentence longer than this is cut at
     * its first clause boundary past which the rest is still a phrase — never mid-phrase. Default 12:
     * a dozen words is little to make before the first sound (its time is in docs/performance.md).
     */
    words: number;
    /**
     * Silence between pieces, in milliseconds. A chapter's 450 ms is a drawl in a conversation;
     * 120 ms reads as a breath. Default 120.
     */
    gapMs: number;
    /**
     * Largest piece after the opening, in characters: sentences are packed greedily up to this.
     * 300 is where the audiobook engine's per-piece overhead stops mattering. Default 300.
     */
    pieceChars: number;
}
/**
 * The defaults. The opening is cut short for a fast first sound rather than made with fewer steps:
 * fewer steps would start sooner still but change how the voice sounds — hence `opening = steps`.
 */
export declare const TALK: Readonly<Talk>;
/**
 * Merges a partial talk block over the defaults. `opening` follows `steps` unless it is given, and
 * `floor` is half of `steps` (rounded up) unless it is given. Throws `OptionError` naming the field
 * (`voice.<field>`, as a bot file spells it), the value and the allowed range.
 */
export declare function resolveTalk(partial?: Partial<Talk>): Talk;
