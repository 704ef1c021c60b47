/**
 * The words files (`words/<lang>.md`): every shipped language has every word English has, a bad
 * file is refused naming the file and the key, a missing word is said in English, the site's words
 * lie over the defaults and a bot's over both, and a turn's language is the page's when the bot
 * speaks it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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

  it('says the door’s words in the language asked for, and English for one with no file', () => {
    const book = loadWords({ dir: SHIPPED });
    expect(say(book.wordsIn('es'), 'acting.filler')).toBe('Un momento.');
    expect(say(book.wordsIn('fr'), 'acting.confirm')).toBe('Dites oui ou non.');
    expect(say(book.wordsIn('de'), 'acting.filler')).toBe('Einen Moment.');
    expect(say(book.wordsIn('es-MX'), 'acting.confirm')).toBe('Di sí o no.');
    expect(say(book.wordsIn('ja'), 'acting.filler')).toBe('One moment.');
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

  it('falls back to English for a word a language lacks, refuses an English file that lacks one, and lays the site’s words over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'words-'));
    const site = await mkdtemp(join(tmpdir(), 'site-words-'));
    try {
      const english = readFileSync(join(SHIPPED, 'en.md'), 'utf8');
      await writeFile(join(dir, 'en.md'), english);
      await writeFile(join(dir, 'es.md'), '## acting\n- filler: Un segundo.\n');
      await writeFile(join(site, 'es.md'), '## acting\n- confirm: ¿Sí o no?\n');
      const book = loadWords({ dir, siteDir: site });
      expect(say(book.wordsIn('es'), 'acting.filler')).toBe('Un segundo.');
      expect(say(book.wordsIn('es'), 'acting.confirm')).toBe('¿Sí o no?');
      expect(say(book.wordsIn('es'), 'endings.out-of-time')).toBe('I have to stop there, because this answer ran out of time.');

      await writeFile(join(dir, 'en.md'), english.replace(/^- filler:.*$/m, ''));
      expect(() => loadWords({ dir })).toThrow(`${join(dir, 'en.md')}: acting.filler is missing`);
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
