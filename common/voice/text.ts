/**
 * From a piece of text to the ids Supertonic reads. The model has no phonemiser: it reads code
 * points through a 65,536-entry table (`unicode_indexer.json`, -1 = unknown), wrapped in language
 * tags that are themselves ordinary characters. The table has decomposed letters only ("é" is
 * "e" + U+0301), which is why normalisation is NFKD.
 */

/** The languages Supertonic 3 reads, as the tags it expects. */
export const LANGUAGES_V3 = [
  'en', 'ko', 'ja', 'ar', 'bg', 'cs', 'da', 'de', 'el', 'es', 'et', 'fi', 'fr', 'hi', 'hr', 'hu',
  'id', 'it', 'lt', 'lv', 'nl', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sv', 'tr', 'uk', 'vi',
] as const;

/** The languages Supertonic 2 reads. */
export const LANGUAGES_V2 = ['en', 'ko', 'es', 'pt', 'fr'] as const;

export type Language = (typeof LANGUAGES_V3)[number];

export type ModelVersion = 'supertonic-3' | 'supertonic-2';

export function languagesOf(version: ModelVersion): readonly Language[] {
  return version === 'supertonic-3' ? LANGUAGES_V3 : LANGUAGES_V2;
}

/** A language the model cannot read; says which model reads what. */
export class LanguageError extends Error {
  override readonly name = 'LanguageError';
}

const EMOJI = /\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\u{fe0e}|\u{fe0f}|\u{200d}|\u{20e3}/gu;
const DASHES = /[\u2010-\u2015\u2212\u2e3a\u2e3b\ufe58\ufe63\uff0d]/gu;
const SINGLE_QUOTES = /[\u2018\u2019\u201a\u201b\u2032\u2035]/gu;
const DOUBLE_QUOTES = /[\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb]/gu;
const SPACED_OUT = /[_[\]|/#\u2190-\u21ff\u27f0-\u27ff\u2900-\u297f]/gu;
const REMOVED = /[♥☆♡©\\]/gu;
const SPACE_BEFORE_PUNCTUATION = /\s+([,.!?;:'])/gu;
const CLOSING = /[.!?…。！？"')\]]$/u;

/**
 * Normalises text the way the model was trained to read it: NFKD; emoji dropped; dashes to `-`;
 * curly quotes straight; `_ [ ] | / #` and arrows to spaces; `♥☆♡©\` removed; `@` read as "at";
 * no space before `, . ! ? ; : '`; whitespace collapsed; a final `.` when the text does not end in
 * closing punctuation (an unfinished sentence is otherwise spoken with a rising, cut-off tail).
 */
export function normaliseForSpeech(text: string): string {
  const cleaned = text
    .normalize('NFKD')
    .replace(EMOJI, '')
    .replace(DASHES, '-')
    .replace(SINGLE_QUOTES, "'")
    .replace(DOUBLE_QUOTES, '"')
    .replace(SPACED_OUT, ' ')
    .replace(REMOVED, '')
    .replace(/@/gu, ' at ')
    .replace(SPACE_BEFORE_PUNCTUATION, '$1')
    .replace(/\s+/gu, ' ')
    .trim();
  if (cleaned === '') return '';
  return CLOSING.test(cleaned) ? cleaned : `${cleaned}.`;
}

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
export function textToIds(text: string, lang: string, indexer: ArrayLike<number>, version: ModelVersion): TextIds {
  const languages: readonly string[] = languagesOf(version);
  if (!languages.includes(lang)) {
    throw new LanguageError(`${version} does not read "${lang}"; it reads ${languages.join(', ')}.`);
  }
  const ids: number[] = [];
  const unknown: string[] = [];
  for (const char of `<${lang}>${normaliseForSpeech(text)}</${lang}>`) {
    const point = char.codePointAt(0) ?? -1;
    const id = point < indexer.length ? (indexer[point] ?? -1) : -1;
    if (id >= 0) ids.push(id);
    else if (!unknown.includes(char)) unknown.push(char);
  }
  return { ids, unknown };
}
