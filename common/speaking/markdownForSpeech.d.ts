/**
 * What of an answer's markdown is spoken: the markers and markup the chunker drops from a token
 * before its words are read.
 */
/**
 * A fenced code block (``` or ~~~, to its closing fence or the end of the answer) is skipped whole.
 * A fence's info string cannot hold a backtick, so "```ls```" opening a line is inline code.
 */
export declare const FENCE_OPEN: RegExp;
/** With a `startsWith` on the opening run: a closing fence is at least as long, and nothing else. */
export declare const ONE_CHARACTER_REPEATED: RegExp;
/** Heading, quote, bullet and list-number markers, dropped at the start of a line. */
export declare const BLOCK_MARKER: RegExp;
/**
 * The words a token is spoken as: none for markup, a URL or emoji; an em dash stands apart.
 * Emphasis (`*`, `_`, `~~`) and backticks are stripped and their words kept; a link `[text](url)`
 * becomes its text. Bare URLs (`https://…`, `www.…`) are dropped: a URL is read, not heard, and the
 * written answer still shows it. Emoji go with their skin tones, joiners and variation selectors.
 */
export declare function cleanToken(token: string): string[];
