import { describe, expect, it } from 'vitest';
import { withoutAccents, wordsOf } from '../../common/wordsOf';

describe('the words of a text', () => {
  it('lower-cases, and breaks at spaces and punctuation', () => {
    expect(wordsOf('  Hello, WORLD! It is 2024… (really)  ')).toEqual(['hello', 'world', 'it', 'is', '2024', 'really']);
    expect(wordsOf(' … !? ')).toEqual([]);
  });

  it('keeps an apostrophe inside a word, the typed one and the curly one alike', () => {
    expect(wordsOf("Don't")).toEqual(["don't"]);
    expect(wordsOf('Don’t')).toEqual(["don't"]);
    expect(wordsOf("l'eau, d’accord, O'Brien's")).toEqual(["l'eau", "d'accord", "o'brien's"]);
  });

  it('breaks at an apostrophe at the edge of a word, as at a quote mark', () => {
    expect(wordsOf("'quoted' words' ends")).toEqual(['quoted', 'words', 'ends']);
    expect(wordsOf('‘Hi’ there')).toEqual(['hi', 'there']);
  });

  it('keeps letters of other languages whole: é, ß, ñ and the rest', () => {
    expect(wordsOf('Café crème, Straße, AÑO, señor')).toEqual(['café', 'crème', 'straße', 'año', 'señor']);
    expect(wordsOf('Ελλάδα и Москва')).toEqual(['ελλάδα', 'и', 'москва']);
  });

  it('takes an accent typed as a separate mark as part of its letter', () => {
    expect(wordsOf('Cafe\u0301')).toEqual(['café']);
  });

  it('takes accents off for matching that ignores them, leaving ß as it is', () => {
    expect(wordsOf(withoutAccents('Café crème, Straße, año'))).toEqual(['cafe', 'creme', 'straße', 'ano']);
  });
});
