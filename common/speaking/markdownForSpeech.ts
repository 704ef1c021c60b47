/**
 * What of an answer's markdown is spoken: the markers and markup the chunker drops from a token
 * before its words are read.
 */

/**
 * A fenced code block (``` or ~~~, to its closing fence or the end of the answer) is skipped whole.
 * A fence's info string cannot hold a backtick, so "```ls```" opening a line is inline code.
 */
export const FENCE_OPEN = /^(`{3,}|~{3,})[^`]*$/u;
/** With a `startsWith` on the opening run: a closing fence is at least as long, and nothing else. */
export const ONE_CHARACTER_REPEATED = /^(.)\1*$/u;
/** Heading, quote, bullet and list-number markers, dropped at the start of a line. */
export const BLOCK_MARKER = /^(?:#{1,6}|>+|[-*+•]|\d{1,3}[.)])$/u;

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

/**
 * The words a token is spoken as: none for markup, a URL or emoji; an em dash stands apart.
 * Emphasis (`*`, `_`, `~~`) and backticks are stripped and their words kept; a link `[text](url)`
 * becomes its text. Bare URLs (`https://…`, `www.…`) are dropped: a URL is read, not heard, and the
 * written answer still shows it. Emoji go with their skin tones, joiners and variation selectors.
 */
export function cleanToken(token: string): string[] {
  return token
    .replace(LINK_TARGET, '')
    .replace(BARE_URL, '')
    .replace(EMPTY_BRACKETS, '')
    .replace(MARKUP, '')
    .replace(PICTOGRAPH, '')
    .split(EM_DASH)
    .filter((word) => word !== '');
}
