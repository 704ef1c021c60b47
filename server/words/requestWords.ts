/**
 * The words a request is answered in when it is refused — before any route runs (a body too large,
 * a wrong origin) or by a route (a bad field, no such bot): the page's language
 * (`x-confab-language`) or else the client's `Accept-Language`, the first of them there are words
 * for; with none, the server's own. The app sets its word book (the site's words over the
 * defaults) on every request; a route mounted without it answers in the shipped words.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { BASE_LANGUAGE, shippedWords } from './loadWords';
import type { WordBook } from './loadWords';
import { LANGUAGE_HEADER } from './turnWords';
import { say } from './words';
import type { WordKey, Words } from './words';

declare module 'hono' {
  interface ContextVariableMap {
    /** The words every refusal of this request is said from (`wordBookFor`); unset: the shipped words. */
    wordBook?: WordBook;
  }
}

/** The language of a request whose headers `header` reads, among `book`'s. */
function requestLanguage(header: (name: string) => string | undefined, book: WordBook = shippedWords()): string {
  const asked = [header(LANGUAGE_HEADER) ?? '', ...(header('accept-language') ?? '').split(',').map((range) => range.split(';')[0] ?? '')];
  for (const tag of asked.map((each) => each.trim()).filter((each) => each !== '' && each !== '*')) {
    const base = tag.split('-')[0]?.toLowerCase() ?? '';
    if (book.languages.includes(tag)) return tag;
    if (book.languages.includes(base)) return base;
  }
  return BASE_LANGUAGE;
}

/** Middleware: every request after it is refused in `book`'s words. */
export function wordBookFor(book: WordBook): MiddlewareHandler {
  return async (c, next) => {
    c.set('wordBook', book);
    await next();
  };
}

/** The language `c`'s request is answered in, among the app's word book's. */
export function languageOf(c: Context): string {
  return requestLanguage((name) => c.req.header(name), c.get('wordBook'));
}

/** The words `c`'s request is answered in, from the app's word book. */
export function requestWordsOf(c: Context): Words {
  return (c.get('wordBook') ?? shippedWords()).wordsIn(languageOf(c));
}

/** `c`'s request refused with `status`, said as `key` (filled from `fill`) in its words; `cause` kept. */
export function refusal(c: Context, status: ContentfulStatusCode, key: WordKey, fill: Readonly<Record<string, string>> = {}, cause?: unknown): HTTPException {
  return new HTTPException(status, { message: say(requestWordsOf(c), key, fill), ...(cause === undefined ? {} : { cause }) });
}
