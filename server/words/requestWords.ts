/**
 * The words a request is answered in when it is refused before any route runs (a body too large, a
 * body that stopped arriving): the page's language (`x-confab-language`) or else the client's
 * `Accept-Language`, the first of them there are words for; with none, the server's own.
 */
import { BASE_LANGUAGE, shippedWords } from './loadWords';
import type { WordBook } from './loadWords';
import { LANGUAGE_HEADER } from './turnWords';
import type { Words } from './words';

/** The language of a request whose headers `header` reads, among `book`'s. */
export function requestLanguage(header: (name: string) => string | undefined, book: WordBook = shippedWords()): string {
  const asked = [header(LANGUAGE_HEADER) ?? '', ...(header('accept-language') ?? '').split(',').map((range) => range.split(';')[0] ?? '')];
  for (const tag of asked.map((each) => each.trim()).filter((each) => each !== '' && each !== '*')) {
    const base = tag.split('-')[0]?.toLowerCase() ?? '';
    if (book.languages.includes(tag)) return tag;
    if (book.languages.includes(base)) return base;
  }
  return BASE_LANGUAGE;
}

/** The words a request whose headers `header` reads is answered in. */
export function requestWords(header: (name: string) => string | undefined, book: WordBook = shippedWords()): Words {
  return book.wordsIn(requestLanguage(header, book));
}
