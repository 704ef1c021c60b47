import { describe, expect, it } from 'vitest';
import { pieceToSayAgain } from '../../../src/core/speaking/sayAgain';

const piece = (key: string, endedAtMs: number, saidAgain = false) => ({ key, endedAtMs, saidAgain });

describe('what the voice says again after a duck', () => {
  it('the sentence whose end the duck ran past, when more of the answer is to come', () => {
    expect(pieceToSayAgain([piece('first', 1200)], 1000, 1500, true)).toBe('first');
  });

  it('nothing when the duck ended before the sentence did: its end was heard at full level', () => {
    expect(pieceToSayAgain([piece('first', 1200)], 1300, 1500, true)).toBeNull();
    expect(pieceToSayAgain([], 1000, 1500, true)).toBeNull();
  });

  it('the first of two sentences that both ended under one long duck (what follows it follows again)', () => {
    expect(pieceToSayAgain([piece('short', 1100), piece('next', 1400)], 1000, 1500, true)).toBe('short');
  });

  it('a sentence once only: ducked over again, it is not said a third time', () => {
    expect(pieceToSayAgain([piece('first', 3200, true)], 3000, 3500, true)).toBeNull();
    expect(pieceToSayAgain([piece('first', 3200, true), piece('second', 3400)], 3000, 3500, true)).toBe('second');
  });

  it('nothing when the duck ran past the end of the last piece: the answer has ended', () => {
    expect(pieceToSayAgain([piece('last', 1200)], 1000, 1500, false)).toBeNull();
  });
});
