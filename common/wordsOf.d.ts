/**
 * The one tokeniser: what a "word" is wherever Confab matches words — a yes or a no, a short turn,
 * what a person had a bot forget, the lexical embedder's features. Callers that fold more (accents,
 * "n't", a possessive "'s") do it before or after, never with a rule of their own for apostrophes.
 */
/**
 * The words of `text`, lower-cased: runs of letters and digits of any script ("café", "straße",
 * "año", "2024"), an apostrophe inside a word kept ("don't", "l'eau") with ’ written as '.
 * Anything else — spaces, punctuation, an apostrophe at a word's edge — is a break. Composed first
 * (NFC), so an "é" typed as "e" and an accent is one letter; a mark NFC cannot compose with its
 * letter is a break, as it has been for every phrase `memory.forget` has kept.
 */
export declare function wordsOf(text: string): string[];
/** `text` with its accents taken off ("Crème" is "Creme"; "ß" has none to take), for matching that ignores them. */
export declare function withoutAccents(text: string): string;
