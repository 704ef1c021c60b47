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

  it('estimates four characters a token, rounded up', () => {
    expect([0, 1, 4, 5, -3].map(estimateTokens)).toEqual([0, 1, 1, 2, 0]);
  });
});
