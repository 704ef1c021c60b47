/**
 * Where the spoken sentences and phrases of an answer end, word by word, and what counts as a word.
 */
/**
 * Fewest words a clause needs to be the opening, and fewest that must follow it in its sentence.
 * Three keeps a lead-in like "Well," or "In short," from being spoken alone, and keeps a cut from
 * leaving a word or two dangling after it.
 */
export declare const MIN_PHRASE_WORDS = 3;
export declare const OPENS_SENTENCE: RegExp;
export declare const TRAILING_PUNCTUATION: RegExp;
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
export declare function stopAfter(word: string): 'ends' | 'continues' | 'depends';
/**
 * The sentence with a full stop on its last word, unless it already ends in punctuation: a line
 * that ends without it is spoken as a sentence (a list item, a heading).
 */
export declare function withStop(words: string[]): string[];
export declare function endsClause(word: string): boolean;
/**
 * Words as phrases: clauses that end at a clause boundary and hold at least `MIN_PHRASE_WORDS`
 * words. A shorter clause ("Well,") joins the one after it, or, at the end, the one before.
 */
export declare function phrasesOf(words: readonly string[]): string[];
export declare function isWordLike(text: string): boolean;
export declare function countWords(words: readonly string[]): number;
