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
