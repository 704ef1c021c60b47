import { describe, expect, it } from 'vitest';
import { validateLimits } from '../../../server/db/limits';
import { refusalSentence, waitWords } from '../../../server/words/refusalWords';
import type { PersonLimits } from '../../../server/db/limits';

describe('limits', () => {
  it("accepts a bot file's limits as they are, ignoring its per-answer ceilings", () => {
    const botLimits = { steps: 4, spend: 0.05, minutes: 2, perMinute: { answers: 10 }, perDay: { spend: 1 } };
    expect(() => {
      validateLimits(botLimits, botLimits.spend);
    }).not.toThrow();
  });

  it('names the field a person must fix', () => {
    const bad = (limits: unknown) => () => {
      validateLimits(limits as PersonLimits);
    };
    expect(bad({ perHour: { answers: -1 } })).toThrow('limits.perHour.answers is -1; give a whole number of answers, 0 or more.');
    expect(bad({ perHour: { spend: '1' } })).toThrow('limits.perHour.spend is "1"; give US dollars, 0 or more.');
    expect(bad({ perHour: { tokens: 5 } })).toThrow('limits.perHour.tokens is not a ceiling; use answers or spend.');
    expect(bad({ perHour: 5 })).toThrow('limits.perHour must be { answers?, spend? }.');
    expect(() => {
      validateLimits({}, -0.01);
    }).toThrow('spendHoldUsd is -0.01');
  });

  it('says a wait in the largest unit that reads naturally, rounded up', () => {
    expect(waitWords(0)).toBe('1 second');
    expect(waitWords(40_100)).toBe('41 seconds');
    expect(waitWords(89_000)).toBe('89 seconds');
    expect(waitWords(12 * 60_000 - 5)).toBe('12 minutes');
    expect(waitWords(89 * 60_000)).toBe('89 minutes');
    expect(waitWords(2.2 * 3_600_000)).toBe('3 hours');
    expect(waitWords(1 * 3_600_000 + 29 * 60_000 + 59_000)).toBe('90 minutes');
    expect(waitWords(30 * 86_400_000)).toBe('30 days');
  });

  it('tells a spend ceiling under a cent exactly', () => {
    const sentence = refusalSentence({ window: 'perMinute', kind: 'spend', ceiling: 0.005, freesAt: new Date(30_000) }, new Date(0));
    expect(sentence).toBe('That is all this bot may spend in a minute ($0.005); it frees up in 30 seconds.');
  });
});
