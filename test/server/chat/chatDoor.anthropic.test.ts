/**
 * The chat door asking Anthropic (the stand-in Messages endpoint, which the official SDK reads in
 * `anthropicStandIn.test.ts`), alone and beside an OpenAI-shaped provider: the request as Anthropic
 * wants it, the answer as OpenAI's client reads it, falling over both ways, who answered, the cost,
 * and the provider's own sentence for what the site can fix.
 */
import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import type { Provider } from '../../../server/chat/upstream';
import { anthropicAnswering, startAnthropicStandIn } from './anthropicStandIn';
import type { AnthropicScript } from './anthropicStandIn';
import { ask, BOT_PROMPT, closedAfterEach, provider, recalling, startDoor, streamed } from './door';
import { answering, startUpstream } from './localServers';

const track = closedAfterEach();

const anthropic = (baseUrl: string, model = 'claude-haiku-4-5'): Provider => ({ name: 'anthropic', kind: 'anthropic', baseUrl, apiKey: 'sk-ant-secret-key', model });

const PRICES = {
  'claude-haiku-4-5': { promptUsdPerMillion: 1, completionUsdPerMillion: 5 },
  'gpt-4o-mini': { promptUsdPerMillion: 0.15, completionUsdPerMillion: 0.6 },
};

const saying = (...text: string[]) => anthropicAnswering({ blocks: [{ text }], inputTokens: 1000, outputTokens: 200 });

const failingWith = (status: number, type: string, message: string): AnthropicScript => (reply) => {
  reply.fail(status, type, message);
};

describe('the chat door asking Anthropic', () => {
  it('streams Anthropic’s text as OpenAI chunks, naming it, and asks as Anthropic wants: system field, max_tokens, x-api-key, version', async () => {
    const standIn = track(await startAnthropicStandIn(saying('Hello ', 'from ', 'Claude.')));
    const door = track(await startDoor({ providers: [anthropic(standIn.baseUrl)], prices: PRICES, context: recalling('likes tea') }));
    expect(await streamed(door, 'Hi?')).toMatchObject({ text: 'Hello from Claude.', finish: 'stop', provider: 'anthropic' });
    const asked = await standIn.next();
    expect(asked.path).toBe('/v1/messages');
    expect(asked.headers['x-api-key']).toBe('sk-ant-secret-key');
    expect(asked.headers['anthropic-version']).toBe('2023-06-01');
    expect(asked.headers.authorization).toBeUndefined();
    expect(asked.body).toEqual({
      model: 'claude-haiku-4-5',
      max_tokens: 4096,
      system: `${BOT_PROMPT}\n\nRecalled: likes tea`,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi?' }] }],
      stream: true,
    });
    // 1000 in at $1/M, 200 out at $5/M.
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5', promptTokens: 1000, completionTokens: 200, estimated: false, costUsd: 0.002 });
  });

  it('answers a whole completion from Anthropic with x-confab-provider, its usage and the door’s answer ceiling', async () => {
    const standIn = track(await startAnthropicStandIn(saying('Whole.')));
    const door = track(await startDoor({ providers: [anthropic(standIn.baseUrl)], answerTokens: 300 }));
    const { data, response } = await door.client.chat.completions.create(ask('Hi?')).withResponse();
    expect(response.headers.get('x-confab-provider')).toBe('anthropic');
    expect(data.choices[0]?.message.content).toBe('Whole.');
    expect(data.model).toBe('claude-haiku-4-5');
    expect((await standIn.next()).body.max_tokens).toBe(300);
  });

  it('reads an answer cut at max_tokens as a length finish', async () => {
    const standIn = track(await startAnthropicStandIn(anthropicAnswering({ blocks: [{ text: ['Cut'] }], stopReason: 'max_tokens' })));
    const door = track(await startDoor({ providers: [anthropic(standIn.baseUrl)] }));
    expect((await streamed(door, 'Long?')).finish).toBe('length');
  });

  it('falls over from OpenAI (503) to Anthropic with Anthropic’s own model, logs the fallback, and counts the cost against Anthropic', async () => {
    const openAi = track(await startUpstream((reply) => {
      reply.fail(503, 'server_error', 'Down.');
    }));
    const standIn = track(await startAnthropicStandIn(saying('Claude here.')));
    const door = track(
      await startDoor({ providers: [provider('openai', openAi.baseUrl, 'gpt-4o-mini'), anthropic(standIn.baseUrl)], prices: PRICES, bot: { provider: 'openai', model: 'gpt-4.1-mini' } }),
    );
    expect(await streamed(door, 'Anyone?')).toMatchObject({ text: 'Claude here.', provider: 'anthropic' });
    expect((await openAi.next()).body.model).toBe('gpt-4.1-mini');
    expect((await standIn.next()).body.model).toBe('claude-haiku-4-5');
    expect(door.logs).toContainEqual({ event: 'provider.fell-over', provider: 'openai', failure: 'status', status: 503, code: 'server_error' });
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'anthropic', model: 'claude-haiku-4-5', costUsd: 0.002 });
  });

  it.each([
    [529, 'overloaded_error', 'Overloaded'],
    [429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit.'],
    [401, 'authentication_error', 'invalid x-api-key'],
    [404, 'not_found_error', 'model: claude-nope'],
    [400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.'],
  ])('falls over from Anthropic (%i %s) to OpenAI with OpenAI’s own model', async (status, type, message) => {
    const standIn = track(await startAnthropicStandIn(failingWith(status, type, message)));
    const openAi = track(await startUpstream(answering(['From ', 'OpenAI.'])));
    const door = track(await startDoor({ providers: [anthropic(standIn.baseUrl), provider('openai', openAi.baseUrl, 'gpt-4o-mini')], bot: { provider: 'anthropic', model: 'claude-opus-4-5' } }));
    expect(await streamed(door, 'Anyone?')).toMatchObject({ text: 'From OpenAI.', provider: 'openai' });
    expect((await standIn.next()).body.model).toBe('claude-opus-4-5');
    expect((await openAi.next()).body.model).toBe('gpt-4o-mini');
    expect(door.logs).toContainEqual({ event: 'provider.fell-over', provider: 'anthropic', failure: 'status', status, code: type });
    expect((await door.ledger.nextSettle()).provider).toBe('openai');
  });

  it('falls over to OpenAI when Anthropic’s stream opens and then reports overloaded_error before its first token', async () => {
    const standIn = track(
      await startAnthropicStandIn((reply) => {
        reply.open();
        reply.event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
        reply.res.end();
      }),
    );
    const openAi = track(await startUpstream(answering(['Still here.'])));
    const door = track(await startDoor({ providers: [anthropic(standIn.baseUrl), provider('openai', openAi.baseUrl)] }));
    expect(await streamed(door, 'Anyone?')).toMatchObject({ text: 'Still here.', provider: 'openai' });
    expect(door.logs).toContainEqual({ event: 'provider.fell-over', provider: 'anthropic', failure: 'stream' });
  });

  it('does not ask again when Anthropic refuses the request itself (400 invalid_request_error)', async () => {
    const standIn = track(await startAnthropicStandIn(failingWith(400, 'invalid_request_error', 'messages: roles must alternate')));
    const openAi = track(await startUpstream(answering(['Never.'])));
    const door = track(await startDoor({ providers: [anthropic(standIn.baseUrl), provider('openai', openAi.baseUrl)] }));
    const error = await door.client.chat.completions.create(ask('Hello?')).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).code).toBe('provider_refused_request');
    expect((error as APIError).message).toContain('"anthropic" answered 400 (invalid_request_error)');
    expect((error as APIError).message).not.toContain('alternate');
    expect(openAi.received).toHaveLength(0);
  });

  it('tells the person who asked Anthropic’s own sentence when none answered for a reason the site can fix — never the key, and not in the log', async () => {
    const standIn = track(await startAnthropicStandIn(failingWith(400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API.')));
    const openAi = track(await startUpstream((reply) => {
      reply.fail(401, 'invalid_api_key', 'Incorrect API key provided: sk-openai-secret-key. You can find your API key at https://platform.openai.com.');
    }));
    const door = track(await startDoor({ providers: [anthropic(standIn.baseUrl), provider('openai', openAi.baseUrl)] }));
    const stream = await door.client.chat.completions.create({ ...ask('Hello?'), stream: true });
    const error = await (async () => {
      for await (const _chunk of stream) {
        // Nothing comes before the error.
      }
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(APIError);
    const said = (error as APIError).message;
    expect(said).toContain('"anthropic" answered 400 (invalid_request_error). It said: “Your credit balance is too low to access the Anthropic API.”');
    expect(said).toContain('"openai" answered 401 (invalid_api_key). It said: “Incorrect API key provided: [key]. You can find your API key at https://platform.openai.com.”');
    expect(said).not.toContain('secret');
    expect(JSON.stringify(door.logs)).not.toMatch(/credit balance|Incorrect|secret/);
  });

  it('cuts an answer with the closing sentence when Anthropic sends an error event after its first token', async () => {
    const standIn = track(
      await startAnthropicStandIn((reply) => {
        reply.open();
        reply.event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
        reply.event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'The answer is' } });
        reply.event('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
        reply.res.end();
      }),
    );
    const door = track(await startDoor({ providers: [anthropic(standIn.baseUrl)] }));
    const { text, provider: answeredBy } = await streamed(door, 'What is it?');
    expect(text).toMatch(/^The answer is — Sorry/);
    expect(answeredBy).toBe('anthropic');
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'anthropic', ended: 'broke' });
  });
});
