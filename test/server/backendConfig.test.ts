import { describe, expect, it } from 'vitest';
import { readBackendConfig, SITE_LIMITS_DEFAULT } from '../../server/backendConfig';
import { ConfigError } from '../../server/config';

const read = (env: Record<string, string>) => readBackendConfig(env, '/tmp');

describe('the money settings', () => {
  it('reads CONFAB_SITE_LIMITS in a bot’s window grammar, with $20 a day when unset', () => {
    expect(read({}).siteLimits).toEqual(SITE_LIMITS_DEFAULT);
    expect(SITE_LIMITS_DEFAULT).toEqual({ perDay: { spend: 20 } });
    expect(read({ CONFAB_SITE_LIMITS: '{"perMinute":{"answers":60},"perDay":{"spend":5}}' }).siteLimits).toEqual({ perMinute: { answers: 60 }, perDay: { spend: 5 } });
  });

  it('refuses site limits no turn could be counted against, naming what to fix', () => {
    const refused: [string, RegExp][] = [
      ['{perMinute}', /CONFAB_SITE_LIMITS is not valid JSON/],
      ['[1]', /CONFAB_SITE_LIMITS must be JSON in the window grammar/],
      ['{"perFortnight":{"answers":1}}', /CONFAB_SITE_LIMITS.perFortnight is not a window/],
      ['{"perDay":{"spend":-1}}', /CONFAB_SITE_LIMITS: perDay.spend is -1; give US dollars/],
      ['{"perMinute":{"answers":1.5}}', /CONFAB_SITE_LIMITS: perMinute.answers is 1.5; give a whole number/],
    ];
    for (const [value, message] of refused) {
      expect(() => read({ CONFAB_SITE_LIMITS: value })).toThrow(ConfigError);
      expect(() => read({ CONFAB_SITE_LIMITS: value })).toThrow(message);
    }
  });

  it('reads the answer ceiling, the paid voice’s price and a provider’s name for the ceiling', () => {
    expect(read({}).answerTokens).toBe(4096);
    expect(read({ CONFAB_ANSWER_TOKENS: '1000' }).answerTokens).toBe(1000);
    expect(() => read({ CONFAB_ANSWER_TOKENS: '0' })).toThrow(/CONFAB_ANSWER_TOKENS is "0"/);
    expect(read({}).speechUsdPerMillionChars).toBe(15);
    expect(read({ COPILOT_TTS_PRICE: '30' }).speechUsdPerMillionChars).toBe(30);
    expect(() => read({ COPILOT_TTS_PRICE: 'cheap' })).toThrow(/COPILOT_TTS_PRICE is "cheap"/);
    const providers = (entry: Record<string, string>) =>
      read({ KEY: 'k', CONFAB_PROVIDERS: JSON.stringify([{ name: 'old', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', keyEnv: 'KEY', ...entry }]) }).providers;
    expect(providers({ tokensField: 'max_tokens' })[0]?.tokensField).toBe('max_tokens');
    expect(providers({})[0]).not.toHaveProperty('tokensField');
    expect(() => providers({ tokensField: 'maxTokens' })).toThrow(/tokensField is "maxTokens"/);
  });
});

describe('the providers', () => {
  it('configures Anthropic from ANTHROPIC_API_KEY alone, after OpenAI when both keys are set, with its base URL and model overridable', () => {
    expect(read({ ANTHROPIC_API_KEY: 'sk-ant-k' }).providers).toEqual([
      { name: 'anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', model: 'claude-haiku-4-5', apiKey: 'sk-ant-k' },
    ]);
    expect(read({ OPENAI_API_KEY: 'sk-o', ANTHROPIC_API_KEY: 'sk-ant-k' }).providers.map((p) => p.name)).toEqual(['openai', 'anthropic']);
    expect(read({ ANTHROPIC_API_KEY: 'sk-ant-k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_MODEL: 'claude-sonnet-4-5' }).providers[0]).toMatchObject({
      baseUrl: 'http://127.0.0.1:9',
      model: 'claude-sonnet-4-5',
    });
    expect(() => read({ ANTHROPIC_API_KEY: 'sk-ant-k', ANTHROPIC_BASE_URL: 'api.anthropic.com' })).toThrow(/ANTHROPIC_BASE_URL must be an http\(s\) URL/);
  });

  it('reads a CONFAB_PROVIDERS entry’s kind, refusing one it does not speak and a tokensField on an Anthropic one', () => {
    const providers = (entry: Record<string, string>) =>
      read({ KEY: 'k', CONFAB_PROVIDERS: JSON.stringify([{ name: 'claude', baseUrl: 'https://api.anthropic.com', model: 'claude-sonnet-4-5', keyEnv: 'KEY', ...entry }]) }).providers;
    expect(providers({ kind: 'anthropic' })[0]?.kind).toBe('anthropic');
    expect(providers({})[0]).not.toHaveProperty('kind');
    expect(() => providers({ kind: 'gemini' })).toThrow(/kind is "gemini"; give "openai".*or "anthropic"/);
    expect(() => providers({ kind: 'anthropic', tokensField: 'max_tokens' })).toThrow(/always takes max_tokens; remove its tokensField/);
  });

  it('prices Anthropic’s models by family out of the box', () => {
    const { prices } = read({});
    expect(prices['claude-sonnet-4']).toEqual({ promptUsdPerMillion: 3, completionUsdPerMillion: 15 });
    expect(prices['claude-3-5-haiku']).toEqual({ promptUsdPerMillion: 0.8, completionUsdPerMillion: 4 });
    expect(prices['claude-opus-4']).toEqual({ promptUsdPerMillion: 15, completionUsdPerMillion: 75 });
  });
});
