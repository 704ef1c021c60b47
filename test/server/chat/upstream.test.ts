import { describe, expect, it } from 'vitest';
import { isProvidersOwn } from '../../../server/chat/providerFailure';
import { providerOrder } from '../../../server/chat/upstream';
import { provider } from './door';

const alpha = provider('alpha', 'http://a/v1', 'a-own');
const beta = provider('beta', 'http://b/v1', 'b-own');
const gamma = provider('gamma', 'http://c/v1', 'c-own');

describe('which provider is asked, with which model', () => {
  it('asks in the configured order with their own models when the bot names neither', () => {
    expect(providerOrder([alpha, beta], {}).map(({ provider: p, model }) => [p.name, model])).toEqual([['alpha', 'a-own'], ['beta', 'b-own']]);
  });

  it("asks the bot's provider first with the bot's model, the rest with their own", () => {
    expect(providerOrder([alpha, beta, gamma], { provider: 'beta', model: 'special' }).map(({ provider: p, model }) => [p.name, model])).toEqual([
      ['beta', 'special'],
      ['alpha', 'a-own'],
      ['gamma', 'c-own'],
    ]);
  });

  it('gives a model named without a provider to the first provider only', () => {
    expect(providerOrder([alpha, beta], { model: 'special' }).map(({ model }) => model)).toEqual(['special', 'b-own']);
  });

  it('sends a model for a provider that is not configured nowhere', () => {
    expect(providerOrder([alpha, beta], { provider: 'elsewhere', model: 'special' }).map(({ model }) => model)).toEqual(['a-own', 'b-own']);
  });
});

describe("what counts as a provider's own failure", () => {
  it.each([401, 402, 403, 404, 408, 429, 500, 502, 503, 529])('%i is the provider’s own', (status) => {
    expect(isProvidersOwn(status)).toBe(true);
  });

  it.each([400, 409, 413, 422])('%i is the request’s fault', (status) => {
    expect(isProvidersOwn(status)).toBe(false);
  });

  it('takes a 400 that says the model is missing as the provider’s own', () => {
    expect(isProvidersOwn(400, 'model_not_found')).toBe(true);
    expect(isProvidersOwn(400, 'context_length_exceeded')).toBe(false);
  });
});
