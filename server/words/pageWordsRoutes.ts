/**
 * `GET /api/words/<lang>`: the page's words (the `## page-…` sections) in one language, as this site
 * says them — its own words (`CONFAB_WORDS_DIR`) laid over the shipped ones. Nobody's in particular,
 * so no cookie and no Origin rule; the page keeps the last answer for an offline start.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ALL_PAGE_WORD_KEYS } from '../../common/pageWords';
import type { WordBook } from './loadWords';

const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?$/;

export function pageWordsRoutes(book: WordBook): Hono {
  const routes = new Hono();
  routes.get('/words/:lang', (c) => {
    const language = c.req.param('lang');
    if (!LANGUAGE_TAG.test(language)) throw new HTTPException(400, { message: `"${language.slice(0, 20)}" is not a language tag (e.g. es or pt-BR).` });
    const words = book.wordsIn(language);
    c.header('cache-control', 'no-cache');
    return c.json({ language, words: Object.fromEntries(ALL_PAGE_WORD_KEYS.map((key) => [key, words[key]])) });
  });
  return routes;
}
