/**
 * What an answer costs: tokens times the configured price of the model that answered (not the
 * one that was asked for). Providers report usage in their last stream chunk; when one does not,
 * tokens are estimated at four characters each, which is the usual rule of thumb for English.
 */

/** One model's price, in USD per million tokens. */
export interface ModelPrice {
  promptUsdPerMillion: number;
  completionUsdPerMillion: number;
}

/**
 * Prices by model name as the provider spells it. A `*` entry prices any model not named; a model
 * with neither is counted at zero and reported as unpriced, since a spend ceiling cannot hold for it.
 */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/** Characters per token when a provider reports no usage. */
const CHARS_PER_TOKEN = 4;

/** Estimated tokens in `chars` characters of text: a quarter, rounded up. */
export function estimateTokens(chars: number): number {
  return Math.ceil(Math.max(0, chars) / CHARS_PER_TOKEN);
}

/**
 * The price of `model`: its own entry; else its family's, the longest entry it extends at a `-`
 * (`claude-sonnet-4-20250514` is priced as `claude-sonnet-4`); else the `*` entry; undefined when
 * the table has none of them.
 */
export function priceOf(prices: PriceTable, model: string): ModelPrice | undefined {
  if (Object.hasOwn(prices, model)) return prices[model];
  const family = Object.keys(prices)
    .filter((name) => name !== '*' && model.startsWith(`${name}-`))
    .sort((a, b) => b.length - a.length)[0];
  if (family !== undefined) return prices[family];
  return Object.hasOwn(prices, '*') ? prices['*'] : undefined;
}

/** USD for `usage` at `price`; zero without a price. */
export function costUsd(price: ModelPrice | undefined, usage: TokenUsage): number {
  if (price === undefined) return 0;
  return (usage.promptTokens * price.promptUsdPerMillion + usage.completionTokens * price.completionUsdPerMillion) / 1_000_000;
}
