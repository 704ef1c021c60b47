import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appWords, parseAppWords } from '../../../server/apps/appWords';
import { WordsFileError } from '../../../server/words/words';

/** An app folder holding `words/<file>` with each text. */
function appFolder(files: Readonly<Record<string, string>>): string {
  const folder = mkdtempSync(join(tmpdir(), 'confab-app-words-'));
  mkdirSync(join(folder, 'words'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, 'words', name), text);
  return folder;
}

const EN = '# Things — what it says\n\nA note for whoever edits it.\n\n- count-one: That is 1 thing on {list}.\n- count: That is {n} things on {list}.\n- said: Reminder: {reminder}.\n';

describe('app words', () => {
  it('says a key in the language asked for or its base language, English where none is given, filling each blank', () => {
    const ES = '- count-one: Hay 1 cosa en {list}.\n- count: Hay {n} cosas en {list}.\n- said: Recordatorio: {reminder}.\n';
    const PT = '- count-one: É 1 coisa.\n- count: São {n} coisas.\n- said: Lembrete: {reminder}.\n';
    const words = appWords(appFolder({ 'en.md': EN, 'es.md': ES, 'pt-BR.md': PT }));
    expect(words.languages).toEqual(['en', 'es', 'pt-BR']);
    expect(words.count('es', 'count', 3, { list: 'tu lista' })).toBe('Hay 3 cosas en tu lista.');
    expect(words.count('es-MX', 'count', 3, { list: 'tu lista' })).toBe('Hay 3 cosas en tu lista.');
    expect(words.count('es', 'count', 1, { list: 'tu lista' })).toBe('Hay 1 cosa en tu lista.');
    expect(words.count('pt-BR', 'count', 2)).toBe('São 2 coisas.');
    expect(words.count(undefined, 'count', 0, { list: 'your list' })).toBe('That is 0 things on your list.');
    // A language with no file is not answered in English: nothing is said.
    expect(words.count('ja', 'count', 2, { list: 'your list' })).toBe('');
    // A blank nobody filled is dropped, not said as braces.
    expect(words.say('en', 'said')).toBe('Reminder: .');
  });

  it('finds what filled a blank in a sentence said in any of its languages, and nothing in another sentence', () => {
    const words = appWords(appFolder({ 'en.md': EN, 'fr.md': '- count-one: 1 chose.\n- count: {n} choses.\n- said: Rappel : {reminder}.\n' }));
    expect(words.filling('said', 'reminder', 'Reminder: take the tea out.')).toBe('take the tea out');
    expect(words.filling('said', 'reminder', 'Rappel : sortir le thé.')).toBe('sortir le thé');
    expect(words.filling('said', 'reminder', 'Reminder: .')).toBeUndefined();
    expect(words.filling('said', 'reminder', 'Something else.')).toBeUndefined();
    expect(words.filling('count', 'list', 'That is 3 things on my list.')).toBeUndefined();
  });

  it.each([
    [{ 'es.md': '- count: Hay {n}.\n' }, 'en.md: file is missing'],
    [{ 'en.md': EN, 'es.md': '- total: {n}.\n' }, 'es.md: total is not a word this app says; en.md has count-one, count, said.'],
    [{ 'en.md': EN, 'es.md': '- count: Hay {n}.\n' }, 'es.md: count-one is missing; every language holds every word'],
    [{ 'en.md': `${EN}- said: Again.\n` }, 'en.md: said is given twice; keep one.'],
    [{ 'en.md': `${EN}A line that is not an item.\n` }, 'en.md: line 8 is "A line that is not an item."'],
    [{ 'en.md': EN, 'spanish.md': '- count: {n}.\n' }, 'spanish.md: file name is not a language'],
  ])('refuses a bad words file, naming the file and the key (%j)', (files, sentence) => {
    const folder = appFolder(files);
    expect(() => appWords(folder)).toThrow(WordsFileError);
    expect(() => appWords(folder)).toThrow(sentence);
  });

  it('refuses an app with no words folder, and a line that looks like an item but is not one', () => {
    const folder = mkdtempSync(join(tmpdir(), 'confab-app-words-'));
    expect(() => appWords(folder)).toThrow('cannot be found');
    expect(() => parseAppWords('en.md', '- count-one That is one.\n')).toThrow('en.md: line 1 is "- count-one That is one."');
  });

  it.each(['lists', 'reminders', 'memory'])('ships the %s app’s words whole in every language it has', (app) => {
    const folder = fileURLToPath(new URL(`../../../server/apps/${app}`, import.meta.url));
    const english = [...parseAppWords('en.md', readWords(folder, 'en')).keys()];
    const languages = readdirSync(join(folder, 'words')).map((name) => name.replace(/\.md$/, ''));
    expect(languages.sort()).toEqual(['de', 'en', 'es', 'fr']);
    for (const language of languages) expect([...parseAppWords(`${language}.md`, readWords(folder, language)).keys()]).toEqual(english);
    expect(appWords(folder).languages).toEqual(['en', 'de', 'es', 'fr']);
  });
});

function readWords(folder: string, language: string): string {
  return readFileSync(join(folder, 'words', `${language}.md`), 'utf8');
}
