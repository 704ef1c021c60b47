/**
 * From a piece of text to the ids Supertonic reads. The model has no phonemiser: it reads code
 * points through a 65,536-entry table (`unicode_indexer.json`, -1 = unknown), wrapped in language
 * tags that are themselves ordinary characters. The table has decomposed letters only ("é" is
 * "e" + U+0301), which is why normalisation is NFKD.
 */
/** The languages Supertonic 3 reads, as the tags it expects. */
export declare const LANGUAGES_V3: readonly ["en", "ko", "ja", "ar", "bg", "cs", "da", "de", "el", "es", "et", "fi", "fr", "hi", "hr", "hu", "id", "it", "lt", "lv", "nl", "pl", "pt", "ro", "ru", "sk", "sl", "sv", "tr", "uk", "vi"];
/** The languages Supertonic 2 reads. */
export declare const LANGUAGES_V2: readonly ["en", "ko", "es", "pt", "fr"];
export type Language = (typeof LANGUAGES_V3)[number];
export type ModelVersion = 'supertonic-3' | 'supertonic-2';
export declare function languagesOf(version: ModelVersion): readonly Language[];
/** A language the model cannot read; says which model reads what. */
export declare class LanguageError extends Error {
    readonly name = "LanguageError";
}
/**
 * Normalises text the way the model was trained to read it: NFKD; emoji dropped; dashes to `-`;
 * curly quotes straight; `_ [ ] | / #` and arrows to spaces; `♥☆♡©\` removed; `@` read as "at";
 * no space before `, . ! ? ; : '`; whitespace collapsed; a final `.` when the text does not end in
 * closing punctuation (an unfinished sentence is otherwise spoken with a rising, cut-off tail).
 */
export declare function normaliseForSpeech(text: string): string;
export interface TextIds {
    /** One id per known code point of `<lang>text</lang>`. */
    ids: number[];
    /** Characters the table does not know, in order of first appearance; they are skipped, not spoken. */
    unknown: string[];
}
/**
 * Ids for one piece of text in one language. `indexer` is the version's `unicode_indexer.json`.
 * Throws `LanguageError` for a language the version does not read.
 */
export declare function textToIds(text: string, lang: string, indexer: ArrayLike<number>, version: ModelVersion): TextIds;
