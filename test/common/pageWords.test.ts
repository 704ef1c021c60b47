/**
 * The page's words: every shipped language has each of them with English's blanks, the page reads
 * its own sections of a words file and passes over the server's, and a language short of a file
 * is said in its base language, then English, with the site's words over all.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_PAGE_WORD_KEYS, pageWordsIn, parsePageWords, sayer } from '../../common/pageWords';
import { PLACEHOLDER, WordsFileError } from '../../common/words';

const WORDS = join(import.meta.dirname, '..', '..', 'words');
const shippedIn = (language: string) => parsePageWords(`${language}.md`, readFileSync(join(WORDS, `${language}.md`), 'utf8'));
const blanks = (text: string | undefined) => [...(text ?? '').matchAll(PLACEHOLDER)].map((match) => match[1]).sort();

describe('the page’s shipped words', () => {
  const english = shippedIn('en');

  it.each(['en', 'es', 'fr', 'de'])('%s.md has every word the page says, with English’s blanks', (language) => {
    const words = shippedIn(language);
    expect(Object.keys(words).sort()).toEqual([...ALL_PAGE_WORD_KEYS].sort());
    for (const key of ALL_PAGE_WORD_KEYS) expect(blanks(words[key]), key).toEqual(blanks(english[key]));
  });
});

describe('reading a words file for the page', () => {
  it('reads its own sections and passes over the server’s, whatever they hold', () => {
    const words = parsePageWords('es.md', '# Title\n\n## endings\n- anything: at all\n\n## page-controls\n- send: Mandar\n');
    expect(words).toEqual({ 'page-controls.send': 'Mandar' });
  });

  it('refuses a word of its own sections that it does not say, naming the file and the key', () => {
    expect(() => parsePageWords('words/es.md', '## page-controls\n- sned: Mandar')).toThrow(WordsFileError);
    expect(() => parsePageWords('words/es.md', '## page-controls\n- sned: Mandar')).toThrow('words/es.md: page-controls.sned is not a word Confab says');
  });
});

describe('the page’s words in a language', () => {
  const shipped = new Map([
    ['en', { 'page-controls.send': 'Send', 'page-controls.yes': 'Yes', 'page-lines.waiting': '{n} lines waiting to be saved' }],
    ['es', { 'page-controls.send': 'Enviar' }],
  ]);

  it('are the base language’s for a regional one, English for a word or a language with no file, and the site’s over all', () => {
    expect(pageWordsIn(shipped, 'es-MX')['page-controls.send']).toBe('Enviar');
    expect(pageWordsIn(shipped, 'es')['page-controls.yes']).toBe('Yes');
    expect(pageWordsIn(shipped, 'ja')['page-controls.send']).toBe('Send');
    expect(pageWordsIn(shipped, 'es', { 'page-controls.send': 'Mandar' })['page-controls.send']).toBe('Mandar');
  });

  it('are said with their blanks filled, a number as its digits', () => {
    expect(sayer(pageWordsIn(shipped, 'en'))('page-lines.waiting', { n: 3 })).toBe('3 lines waiting to be saved');
  });
});
