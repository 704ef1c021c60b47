/**
 * A turn's words: the language the person is speaking — the page's setting, sent with every turn as
 * `x-confab-language` — if the bot speaks it, else the bot's own `voice.language`; then that
 * language's words (the site's over the defaults, `loadWords.ts`) with the bot's `words:` over both.
 */
import type { WordBook } from './loadWords';
import { layered } from './words';
import type { SomeWords, Words } from './words';

/** The header the page names its language in. */
export const LANGUAGE_HEADER = 'x-confab-language';
/** A well-formed language tag: `es`, `pt-BR`. */
export const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})?$/;

/** What a bot file says of its languages and its own words. */
export interface WordyBot {
  voice: { language: string };
  languages: readonly string[];
  /** The bot's own words by language (its file's `words:`). */
  words?: Readonly<Record<string, SomeWords>>;
}

/**
 * The language a turn is in: the page's (`header`), when it is a well-formed tag the bot speaks
 * (or whose base language it speaks: `es-MX` for `es`), else the bot's voice language.
 */
export function turnLanguage(bot: WordyBot, header: string | undefined): string {
  if (header === undefined || !LANGUAGE_TAG.test(header)) return bot.voice.language;
  if (bot.languages.includes(header)) return header;
  const base = header.split('-')[0] ?? '';
  return bot.languages.includes(base) ? base : bot.voice.language;
}

/** The words `bot` says in `language`. */
export function botWords(book: WordBook, bot: WordyBot, language: string): Words {
  return layered(book.wordsIn(language), bot.words?.[language]);
}
