import { describe, expect, it } from 'vitest';
import { costUsd, estimateTokens, priceOf } from '../../../server/chat/prices';

describe('what an answer costs', () => {
  const prices = {
    small: { promptUsdPerMillion: 0.15, completionUsdPerMillion: 0.6 },
    '*': { promptUsdPerMillion: 5, completionUsdPerMillion: 15 },
  };

  it('prices tokens per million by the model’s own entry, else the * entry', () => {
    expect(costUsd(priceOf(prices, 'small'), { promptTokens: 2_000_000, completionTokens: 1_000_000 })).toBeCloseTo(0.9, 12);
    expect(costUsd(priceOf(prices, 'other'), { promptTokens: 1000, completionTokens: 1000 })).toBeCloseTo(0.02, 12);
  });

  it('counts a model with no price at all as zero, which the door reports as unpriced', () => {
    expect(priceOf({}, 'small')).toBeUndefined();
    expect(costUsd(undefined, { promptTokens: 10, completionTokens: 10 })).toBe(0);
    expect(priceOf({}, 'toString')).toBeUndefined();
  });

  it('prices a dated model id by its family, the longest name it extends at a dash, as Anthropic’s ids are dated', () => {
    const table = {
      'claude-opus-4': { promptUsdPerMillion: 15, completionUsdPerMillion: 75 },
      'claude-opus-4-5': { promptUsdPerMillion: 5, completionUsdPerMillion: 25 },
      '*': { promptUsdPerMillion: 10, completionUsdPerMillion: 30 },
    };
    expect(priceOf(table, 'claude-opus-4-20250514')?.promptUsdPerMillion).toBe(15);
    expect(priceOf(table, 'claude-opus-4-5-20251101')?.promptUsdPerMillion).toBe(5);
    expect(priceOf(table, 'claude-opus-4-5')?.promptUsdPerMillion).toBe(5);
    // A family is a whole part of the name: claude-opus-40 is not claude-opus-4's.
    expect(priceOf(table, 'claude-opus-40')?.promptUsdPerMillion).toBe(10);
  });

  it('estimates four characters a token, rounded up', () => {
    expect([0, 1, 4, 5, -3].map(estimateTokens)).toEqual([0, 1, 1, 2, 0]);
  });
});
