/**
 * The stand-in Anthropic endpoint, read by Anthropic's own client: if the SDK reconstructs its
 * text, its tool uses (input JSON split across deltas) and its usage, the door's tests against the
 * stand-in are tests against the real wire format.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { anthropicAnswering, startAnthropicStandIn } from './anthropicStandIn';
import type { ScriptedMessage } from './anthropicStandIn';
import { closedAfterEach } from './door';

const track = closedAfterEach();

const TOOL_TURN: ScriptedMessage = {
  blocks: [
    { text: ['Let me ', 'check.'] },
    { toolUse: { id: 'toolu_01', name: 'pantry-add', json: ['{"it', 'em": "ri', 'ce"}'] } },
    { toolUse: { id: 'toolu_02', name: 'pantry-count', json: [] } },
  ],
  inputTokens: 42,
  outputTokens: 17,
};

const params = { model: 'claude-haiku-4-5', max_tokens: 4096, messages: [{ role: 'user' as const, content: 'Add rice.' }] };

async function clientOf() {
  const standIn = track(await startAnthropicStandIn(anthropicAnswering(TOOL_TURN)));
  return { standIn, client: new Anthropic({ baseURL: standIn.baseUrl, apiKey: 'sk-ant-test', maxRetries: 0 }) };
}

describe('the stand-in Anthropic endpoint, as the official SDK reads it', () => {
  it('streams events the SDK reads in order, with text, split tool input and usage', async () => {
    const { client, standIn } = await clientOf();
    const stream = await client.messages.create({ ...params, stream: true });
    const types: string[] = [];
    let text = '';
    let json = '';
    let outputTokens = 0;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') json += event.delta.partial_json;
      if (event.type === 'message_delta') outputTokens = event.usage.output_tokens;
    }
    expect(types[0]).toBe('message_start');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).toContain('message_delta');
    expect(text).toBe('Let me check.');
    expect(JSON.parse(json)).toEqual({ item: 'rice' });
    expect(outputTokens).toBe(17);
    // SDK 1.x asks as API version 2026-10-21 with a Bearer key; the door asks as 2023-06-01 with
    // x-api-key. Both read the same event stream, and the stand-in serves either.
    const asked = await standIn.next();
    expect(asked.headers['anthropic-version']).toBe('2026-10-21');
    expect(asked.headers.authorization).toBe('Bearer sk-ant-test');
  });

  it('puts the whole message back together through messages.stream(): text, tool uses with parsed input, stop reason and usage', async () => {
    const { client } = await clientOf();
    const message = await client.messages.stream(params).finalMessage();
    expect(message.content).toEqual([
      expect.objectContaining({ type: 'text', text: 'Let me check.' }),
      expect.objectContaining({ type: 'tool_use', id: 'toolu_01', name: 'pantry-add', input: { item: 'rice' } }),
      expect.objectContaining({ type: 'tool_use', id: 'toolu_02', name: 'pantry-count', input: {} }),
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 42, output_tokens: 17 });
  });

  it('answers a request that does not stream with one message', async () => {
    const { client } = await clientOf();
    const message = await client.messages.create(params);
    expect(message.content.map((block) => block.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(message.usage).toMatchObject({ input_tokens: 42, output_tokens: 17 });
  });

  it('fails in Anthropic’s error shape, which the SDK throws as its own error type with the provider’s sentence', async () => {
    const standIn = track(
      await startAnthropicStandIn((reply) => {
        reply.fail(529, 'overloaded_error', 'Overloaded');
      }),
    );
    const client = new Anthropic({ baseURL: standIn.baseUrl, apiKey: 'sk-ant-test', maxRetries: 0 });
    const error = await client.messages.create(params).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((error as InstanceType<typeof Anthropic.APIError>).message).toContain('Overloaded');
  });
});
