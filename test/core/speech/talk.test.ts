import { describe, expect, it } from 'vitest';
import { resolveTalk, TALK, TalkSettingError } from '../../../src/core/speech/talk';

describe('talk defaults', () => {
  it('speaks at 8 steps, opens at the same, aims for a 12-word opening and pauses 120 ms between pieces', () => {
    expect(TALK).toEqual({ steps: 8, opening: 8, words: 12, gapMs: 120, pieceChars: 300 });
    expect(resolveTalk()).toEqual(TALK);
  });

  it('lets the opening follow steps unless it is set itself', () => {
    expect(resolveTalk({ steps: 5 })).toMatchObject({ steps: 5, opening: 5 });
    expect(resolveTalk({ steps: 8, opening: 3 })).toMatchObject({ steps: 8, opening: 3 });
  });

  it('refuses a setting out of range, naming the field and what it accepts', () => {
    expect(() => resolveTalk({ steps: 0 })).toThrow(TalkSettingError);
    expect(() => resolveTalk({ steps: 2.5 })).toThrow('voice.steps is 2.5; it must be a whole number from 1 to 64.');
    expect(() => resolveTalk({ gapMs: -1 })).toThrow('voice.gapMs is -1; it must be a number from 0 to 2000.');
    expect(() => resolveTalk({ words: Number.NaN })).toThrow(/voice.words is NaN/);
  });

  it('accepts a fractional gap', () => {
    expect(resolveTalk({ gapMs: 87.5 }).gapMs).toBe(87.5);
  });
});
