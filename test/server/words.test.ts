/**
 * The words files (`words/<lang>.md`, and each app's): every shipped language has every word
 * English has, a bad file is refused naming the file and the key, no language borrows another's
 * words (one with no file says nothing), the site's words lie over the defaults and a bot's over
 * both, and a turn's language is the page's when the bot speaks it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAppWords } from '../../server/apps/appWords';
import { BotFileError, parseBotFile } from '../../server/bots';
import { defaultWordsDir, loadWords } from '../../server/words/loadWords';
import { botWords, turnLanguage } from '../../server/words/turnWords';
import { ALL_WORD_KEYS, parseWordsFile, say, WordsFileError } from '../../server/words/words';

const SHIPPED = defaultWordsDir();

describe('the shipped words', () => {
  it.each(['en', 'es', 'fr', 'de'])('%s.md has every word, and no other', (language) => {
    const file = join(SHIPPED, `${language}.md`);
    const words = parseWordsFile(file, readFileSync(file, 'utf8'));
    expect(Object.keys(words).sort()).toEqual([...ALL_WORD_KEYS].sort());
    for (const key of ALL_WORD_KEYS) expect(words[key]?.trim()).not.toBe('');
  });

  const appsDir = join(SHIPPED, '..', 'server', 'apps');
  const speaking = readdirSync(appsDir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && readdirSync(join(appsDir, entry.name)).includes('words'));
  it.each(speaking.flatMap((app) => ['es', 'fr', 'de'].map((language) => [app.name, language])))('the %s app’s %s.md has every word its en.md has, and no other', (app, language) => {
    const read = (lang: string) => {
      const file = join(appsDir, app, 'words', `${lang}.md`);
      return parseAppWords(file, readFileSync(file, 'utf8'));
    };
    const english = read('en');
    const words = read(language);
    expect([...words.keys()].sort()).toEqual([...english.keys()].sort());
    for (const text of words.values()) expect(text.trim()).not.toBe('');
  });

  it('says the door’s words in the language asked for, and nothing in one with no file', () => {
    const book = loadWords({ dir: SHIPPED });
    expect(say(book.wordsIn('es'), 'acting.filler')).toBe('Un momento.');
    expect(say(book.wordsIn('fr'), 'acting.confirm')).toBe('Dites oui ou non.');
    expect(say(book.wordsIn('de'), 'acting.filler')).toBe('Einen Moment.');
    expect(say(book.wordsIn('es-MX'), 'acting.confirm')).toBe('Di sí o no.');
    expect(say(book.wordsIn('ja'), 'acting.filler')).toBe('');
    expect(say(book.wordsIn('es'), 'stand-in.heard', { words: 'hola' })).toBe('Te he oído decir: «hola».');
  });
});

describe('words files', () => {
  it('refuses an unknown key, an unknown section and a key given twice, naming the file and the key', () => {
    expect(() => parseWordsFile('words/es.md', '## endings\n- out-of-tea: x')).toThrow('words/es.md: endings.out-of-tea is not a word Confab says');
    expect(() => parseWordsFile('words/es.md', '## goodbyes\n- bye: x')).toThrow('words/es.md: section "goodbyes" is not a section of words');
    expect(() => parseWordsFile('words/es.md', '## acting\n- filler: a\n- filler: b')).toThrow('words/es.md: acting.filler is given twice');
    expect(() => parseWordsFile('words/es.md', '## acting\nfiller = a')).toThrow(WordsFileError);
  });

  it('refuses a default file that lacks a word, and lays the site’s words over the defaults', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'words-'));
    const site = await mkdtemp(join(tmpdir(), 'site-words-'));
    try {
      const english = readFileSync(join(SHIPPED, 'en.md'), 'utf8');
      const spanish = readFileSync(join(SHIPPED, 'es.md'), 'utf8');
      await writeFile(join(dir, 'en.md'), english);
      await writeFile(join(dir, 'es.md'), spanish.replace(/^- filler:.*$/m, '- filler: Un segundo.'));
      await writeFile(join(site, 'es.md'), '## acting\n- confirm: ¿Sí o no?\n');
      const book = loadWords({ dir, siteDir: site });
      expect(say(book.wordsIn('es'), 'acting.filler')).toBe('Un segundo.');
      expect(say(book.wordsIn('es'), 'acting.confirm')).toBe('¿Sí o no?');
      expect(say(book.wordsIn('es'), 'endings.out-of-time')).toBe('Tengo que parar aquí, porque se acabó el tiempo para esta respuesta.');

      // A site's file in a language with no defaults stands alone, so it must be whole too.
      await writeFile(join(site, 'pt.md'), '## acting\n- filler: Um momento.\n');
      expect(() => loadWords({ dir, siteDir: site })).toThrow(new RegExp(`${join(site, 'pt.md')}: \\S+ is missing`));

      await writeFile(join(dir, 'es.md'), spanish.replace(/^- filler:.*$/m, ''));
      expect(() => loadWords({ dir })).toThrow(`${join(dir, 'es.md')}: acting.filler is missing`);
    } finally {
      await rm(dir, { recursive: true });
      await rm(site, { recursive: true });
    }
  });
});

describe('a turn’s words', () => {
  const book = loadWords({ dir: SHIPPED });
  const bot = parseBotFile(
    'bots/test.md',
    `---\nname: Test\nvoice: { language: en }\nlanguages: [en, es]\nwords:\n  es:\n    acting: { filler: "Déjame ver." }\n---\nYou are a test bot.`,
  );

  it('is in the page’s language when the bot speaks it, else in the bot’s own', () => {
    expect(turnLanguage(bot, 'es')).toBe('es');
    expect(turnLanguage(bot, 'es-AR')).toBe('es');
    expect(turnLanguage(bot, 'fr')).toBe('en');
    expect(turnLanguage(bot, 'not a language')).toBe('en');
    expect(turnLanguage(bot, undefined)).toBe('en');
  });

  it('takes the bot’s own words over the defaults, in that language only', () => {
    expect(say(botWords(book, bot, 'es'), 'acting.filler')).toBe('Déjame ver.');
    expect(say(botWords(book, bot, 'es'), 'acting.confirm')).toBe('Di sí o no.');
    expect(say(botWords(book, bot, 'en'), 'acting.filler')).toBe('One moment.');
  });

  it('refuses a bot’s words for a language it does not speak, or an unknown key, naming the file and the key', () => {
    const file = (words: string) => `---\nname: Test\nlanguages: [en, es]\nwords: ${words}\n---\nYou are a test bot.`;
    expect(() => parseBotFile('bots/test.md', file('{ fr: { acting: { filler: Un instant. } } }'))).toThrow('bots/test.md: words.fr is not a language this bot speaks; it speaks en, es.');
    expect(() => parseBotFile('bots/test.md', file('{ es: { acting: { fill: x } } }'))).toThrow(BotFileError);
    expect(() => parseBotFile('bots/test.md', file('{ es: { acting: { fill: x } } }'))).toThrow('bots/test.md: words.es.acting.fill is not a word Confab says');
  });
});
