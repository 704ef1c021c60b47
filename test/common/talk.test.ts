import { describe, expect, it } from 'vitest';
import { OptionError } from '../../common/options';
import { resolveTalk, TALK } from '../../common/talk';

describe('talk defaults', () => {
  it('speaks at 8 steps, opens at the same, never hurries a piece below them, aims for a 12-word opening and pauses 120 ms between pieces', () => {
    expect(TALK).toEqual({ steps: 8, opening: 8, floor: 8, words: 12, gapMs: 120, pieceChars: 300 });
    expect(resolveTalk()).toEqual(TALK);
  });

  it('lets the opening follow steps unless it is set itself', () => {
    expect(resolveTalk({ steps: 5 })).toMatchObject({ steps: 5, opening: 5 });
    expect(resolveTalk({ steps: 8, opening: 3 })).toMatchObject({ steps: 8, opening: 3 });
  });

  it('lets the floor follow steps unless it is set itself, so no piece has fewer unless the bot asks', () => {
    expect(resolveTalk({ steps: 5 }).floor).toBe(5);
    expect(resolveTalk({ steps: 1 }).floor).toBe(1);
    expect(resolveTalk({ steps: 8, floor: 2 }).floor).toBe(2);
    expect(resolveTalk({ steps: 8, floor: 8 }).floor).toBe(8);
  });

  it('refuses a floor above the steps, since it is the fewest a piece may have', () => {
    expect(() => resolveTalk({ steps: 4, floor: 5 })).toThrow('voice.floor is 5; it must be at most voice.steps (4).');
    expect(() => resolveTalk({ floor: 0 })).toThrow(/voice.floor is 0/);
  });

  it('refuses a setting out of range, naming the field and what it accepts', () => {
    expect(() => resolveTalk({ steps: 0 })).toThrow(OptionError);
    expect(() => resolveTalk({ steps: 2.5 })).toThrow('voice.steps is 2.5; it must be a whole number from 1 to 64.');
    expect(() => resolveTalk({ gapMs: -1 })).toThrow('voice.gapMs is -1; it must be a number from 0 to 2000.');
    expect(() => resolveTalk({ words: Number.NaN })).toThrow(/voice.words is NaN/);
  });

  it('accepts a fractional gap', () => {
    expect(resolveTalk({ gapMs: 87.5 }).gapMs).toBe(87.5);
  });
});
