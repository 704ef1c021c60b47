import { describe, expect, it } from 'vitest';
import { phraseWords } from '../../../src/core/conversation/phrases';
import { answerOf } from '../../../src/core/conversation/yesNo';
import type { YesNo } from '../../../src/core/conversation/yesNo';

const cases: Record<string, [said: string, heard: YesNo][]> = {
  en: [
    ['Yes', 'yes'],
    ['yeah', 'yes'],
    ['Yep.', 'yes'],
    ['sure', 'yes'],
    ['OK', 'yes'],
    ['okay then', 'yes'],
    ['Do it.', 'yes'],
    ['go ahead', 'yes'],
    ['please do', 'yes'],
    ['Yes please!', 'yes'],
    ['yeah, just do it, thanks', 'yes'],
    ['No.', 'no'],
    ['nope', 'no'],
    ['Stop!', 'no'],
    ['cancel', 'no'],
    ["don't", 'no'],
    ["Don't do it", 'no'],
    ['do not', 'no'],
    ['never mind', 'no'],
    ['yes, no wait', 'no'],
    ["yes — actually, I can't", 'no'],
    ['okay, hold on', 'no'],
    ['yes but first read it to me', 'other'],
    ['what is on the list?', 'other'],
    ['maybe', 'other'],
    ['please', 'other'],
    ['', 'other'],
    ['   ', 'other'],
  ],
  es: [
    ['Sí', 'yes'],
    ['si, claro', 'yes'],
    ['vale', 'yes'],
    ['Sí, por favor', 'yes'],
    ['claro que sí', 'yes'],
    ['hazlo', 'yes'],
    ['No', 'no'],
    ['no, espera', 'no'],
    ['sí... no, cancela', 'no'],
    ['¿qué hay en la lista?', 'other'],
    ['okay', 'yes'],
  ],
  fr: [
    ['Oui', 'yes'],
    ["d'accord", 'yes'],
    ['Vas-y', 'yes'],
    ['oui, vas-y, merci', 'yes'],
    ['bien sûr', 'yes'],
    ['Non', 'no'],
    ['annule', 'no'],
    ["non, n'annule rien", 'no'],
    ['oui... non, attends', 'no'],
    ['pas maintenant', 'no'],
    ["qu'est-ce qu'il y a dedans ?", 'other'],
  ],
  de: [
    ['Ja', 'yes'],
    ['klar', 'yes'],
    ['Mach das', 'yes'],
    ['ja, mach das bitte', 'yes'],
    ['in Ordnung', 'yes'],
    ['natürlich', 'yes'],
    ['Nein', 'no'],
    ['stopp', 'no'],
    ['abbrechen', 'no'],
    ['ja, nein, warte', 'no'],
    ['nicht löschen', 'no'],
    ['was steht auf der Liste?', 'other'],
  ],
};

describe('a yes or a no', () => {
  for (const [language, table] of Object.entries(cases)) {
    it.each(table)(`hears “%s” in ${language} as %s`, (said, heard) => {
      expect(answerOf(said, language)).toBe(heard);
    });
  }

  it('hears a regional tag by its language, and an unknown language as English', () => {
    expect(answerOf('claro', 'es-MX')).toBe('yes');
    expect(answerOf('jawohl', 'de_AT')).toBe('yes');
    expect(answerOf('yes', 'ja-JP')).toBe('yes');
    expect(answerOf('はい', 'ja-JP')).toBe('other');
  });

  it('never takes another language’s yes as a yes where it is not spoken', () => {
    expect(answerOf('ja', 'en')).toBe('other');
    expect(answerOf('oui', 'de')).toBe('other');
  });

  it('understands English anywhere', () => {
    expect(answerOf('okay', 'fr')).toBe('yes');
    expect(answerOf('stop', 'es')).toBe('no');
    expect(answerOf("don't", 'de')).toBe('no');
  });

  it('folds case, accents and punctuation, keeps an apostrophe inside a word, and reads “n’t” and “n’” as a negation', () => {
    expect(phraseWords('Sí, ¡CLARO!')).toEqual(['si', 'claro']);
    expect(phraseWords('Don’t')).toEqual(['do', 'not']);
    expect(phraseWords("d'accord, c’est ça")).toEqual(["d'accord", "c'est", 'ca']);
    expect(phraseWords("N'annule rien")).toEqual(['ne', 'annule', 'rien']);
    expect(answerOf("n'annule rien", 'fr')).toBe('no');
    expect(answerOf('That’s right', 'en')).toBe('yes');
    expect(answerOf("Mach's", 'de')).toBe('yes');
  });
});
