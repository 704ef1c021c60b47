import { describe, expect, it } from 'vitest';
import { LanguageError, LANGUAGES_V2, LANGUAGES_V3, languagesOf, normaliseForSpeech, textToIds } from '../../../common/voice/text';
import { indexer } from '../../helpers/supertonicData';

const v3 = indexer('supertonic-3');
const v2 = indexer('supertonic-2');
const idsOf = (table: number[], text: string) => Array.from(text, (c) => table[c.codePointAt(0) ?? 0]);

describe('normalising text for the voice', () => {
  it('decomposes accents so the table’s combining marks are used', () => {
    expect(normaliseForSpeech('café')).toBe('cafe\u0301.');
  });

  it('drops emoji, straightens quotes and dashes, and spaces out symbols', () => {
    expect(normaliseForSpeech('“Hi” — it’s 👋🏽 me_too [x] | a/b #1 → go')).toBe('"Hi" - it\'s me too x a b 1 go.');
  });

  it('reads @ as "at", removes decorations, and keeps no space before punctuation', () => {
    expect(normaliseForSpeech('mail me @ home ♥ , ok ? yes !')).toBe('mail me at home, ok? yes!');
  });

  it('ends an unfinished sentence with a stop but leaves finished ones alone', () => {
    expect(normaliseForSpeech('Hello there')).toBe('Hello there.');
    expect(normaliseForSpeech('Really?')).toBe('Really?');
    expect(normaliseForSpeech('He said "go."')).toBe('He said "go."');
    expect(normaliseForSpeech('  \n ')).toBe('');
  });
});

describe('character ids', () => {
  it('match the Supertonic 3 table for a known string, wrapped in its language tags', () => {
    const { ids, unknown } = textToIds('Hello, world!', 'en', v3, 'supertonic-3');
    expect(ids).toEqual(idsOf(v3, '<en>Hello, world!</en>'));
    expect(ids.slice(0, 4)).toEqual([v3[60], v3[101], v3[110], v3[62]]);
    expect(unknown).toEqual([]);
  });

  it('use the version’s own table: the same text gives other ids in Supertonic 2', () => {
    const three = textToIds('Hola', 'es', v3, 'supertonic-3').ids;
    const two = textToIds('Hola', 'es', v2, 'supertonic-2').ids;
    expect(two).toEqual(idsOf(v2, '<es>Hola.</es>'));
    expect(two).not.toEqual(three);
  });

  it('skip unknown characters and name them once each', () => {
    const { ids, unknown } = textToIds('Straße, Straße 漢', 'de', v3, 'supertonic-3');
    expect(unknown).toEqual([]);
    expect(ids.length).toBeGreaterThan(10);
    const two = textToIds('Straße, Straße 漢', 'en', v2, 'supertonic-2');
    expect(two.unknown).toEqual(['ß', '漢']);
    expect(two.ids).toEqual(idsOf(v2, '<en>Strae, Strae .</en>'));
  });

  it('know every one of Supertonic 3’s 31 language tags as characters of its table', () => {
    expect(LANGUAGES_V3).toHaveLength(31);
    for (const lang of LANGUAGES_V3) {
      const { ids, unknown } = textToIds('Hi.', lang, v3, 'supertonic-3');
      expect(unknown, lang).toEqual([]);
      expect(ids, lang).toEqual(idsOf(v3, `<${lang}>Hi.</${lang}>`));
    }
  });

  it('read speech in the scripts of its languages', () => {
    for (const [lang, text] of [['ko', '안녕하세요'], ['ja', 'こんにちは'], ['ru', 'Привет'], ['ar', 'مرحبا'], ['hi', 'नमस्ते'], ['el', 'Γειά'], ['vi', 'Xin chào']] as const) {
      expect(textToIds(text, lang, v3, 'supertonic-3').unknown, lang).toEqual([]);
    }
  });

  it('refuse a language the version does not read, listing the ones it does', () => {
    expect(languagesOf('supertonic-2')).toEqual(LANGUAGES_V2);
    expect(() => textToIds('こんにちは', 'ja', v2, 'supertonic-2')).toThrow(LanguageError);
    expect(() => textToIds('Hi', 'xx', v3, 'supertonic-3')).toThrow('supertonic-3 does not read "xx"; it reads en, ko, ja');
  });
});
