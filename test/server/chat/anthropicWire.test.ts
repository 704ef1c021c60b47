/** The pure translation between the door's OpenAI-shaped conversation and Anthropic's Messages API, with the awkward cases as inputs. */
import { describe, expect, it } from 'vitest';
import {
  AnthropicStreamReader,
  anthropicRequestOf,
  anthropicToolId,
  anthropicWire,
  eventsOfAnthropicMessage,
  finishReasonOf,
  messagesUrl,
  OPENING_USER_TEXT,
  openAiHistoryOf,
  toolInputOf,
} from '../../../server/chat/anthropicWire';
import { UpstreamStreamError } from '../../../server/chat/errors';
import { failureBodyOf, isProvidersOwn, isTheirsToFix } from '../../../server/chat/providerFailure';
import { ToolCallAccumulator } from '../../../server/chat/toolCalls';
import type { PromptMessage, Provider, UpstreamEvent, UpstreamTool } from '../../../server/chat/providerWire';

const ask = (messages: readonly PromptMessage[], tools?: readonly UpstreamTool[]) => anthropicRequestOf(messages, { model: 'claude-haiku-4-5', maxTokens: 4096, stream: true, tools });

const call = (id: string, name: string, args: string) => ({ id, type: 'function' as const, function: { name, arguments: args } });

describe('an OpenAI-shaped conversation as one Anthropic request', () => {
  it('puts every system message, wherever it stands, in the system field, in order', () => {
    const request = ask([
      { role: 'system', content: 'You are Sage.' },
      { role: 'user', content: 'Hi.' },
      { role: 'system', content: 'Recalled: likes tea.' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Tea?' },
    ]);
    expect(request.system).toBe('You are Sage.\n\nRecalled: likes tea.');
    expect(request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(request).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 4096, stream: true });
    expect(request).not.toHaveProperty('tools');
  });

  it('makes text and tool calls one assistant turn of text and tool_use blocks, and consecutive tool results ONE user turn', () => {
    const request = ask([
      { role: 'user', content: 'Add rice and count.' },
      { role: 'assistant', content: 'On it.', tool_calls: [call('call_a', 'pantry-add', '{"item":"rice"}'), call('call_b', 'pantry-count', '')] },
      { role: 'tool', tool_call_id: 'call_a', content: '{"ok":true}' },
      { role: 'tool', tool_call_id: 'call_b', content: '{"ok":true,"output":{"items":1}}' },
    ]);
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Add rice and count.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'On it.' },
          { type: 'tool_use', id: 'call_a', name: 'pantry-add', input: { item: 'rice' } },
          { type: 'tool_use', id: 'call_b', name: 'pantry-count', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a', content: '{"ok":true}' },
          { type: 'tool_result', tool_use_id: 'call_b', content: '{"ok":true,"output":{"items":1}}' },
        ],
      },
    ]);
  });

  it('merges consecutive turns of one role, since Anthropic requires them to alternate, and drops empty text', () => {
    const request = ask([
      { role: 'user', content: 'One.' },
      { role: 'user', content: 'Two.' },
      { role: 'assistant', content: '' },
      { role: 'assistant', content: null, tool_calls: [call('call_x', 'pantry-count', '{}')] },
      { role: 'tool', tool_call_id: 'call_x', content: '{}' },
      { role: 'user', content: 'And?' },
    ]);
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'One.' }, { type: 'text', text: 'Two.' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'call_x', name: 'pantry-count', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_x', content: '{}' }, { type: 'text', text: 'And?' }] },
    ]);
  });

  it('opens with a user turn when the conversation begins with the assistant', () => {
    const request = ask([
      { role: 'assistant', content: 'Welcome back.' },
      { role: 'user', content: 'Thanks.' },
    ]);
    expect(request.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: OPENING_USER_TEXT }] });
    expect(request.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('sanitises ids Anthropic would refuse the same way on the call and on its result, keeping different ids different', () => {
    const request = ask([
      { role: 'user', content: 'Go.' },
      { role: 'assistant', content: null, tool_calls: [call('call.1:a', 'pantry-count', '{}'), call('call.1/a', 'pantry-count', '{}')] },
      { role: 'tool', tool_call_id: 'call.1:a', content: '1' },
      { role: 'tool', tool_call_id: 'call.1/a', content: '2' },
    ]);
    const [, assistant, results] = request.messages;
    const useIds = assistant?.content.map((block) => (block.type === 'tool_use' ? block.id : ''));
    const resultIds = results?.content.map((block) => (block.type === 'tool_result' ? block.tool_use_id : ''));
    expect(useIds).toEqual(resultIds);
    expect(new Set(useIds).size).toBe(2);
    for (const id of useIds ?? []) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(anthropicToolId('call_abc-1')).toBe('call_abc-1');
    expect(anthropicToolId('call.1:a')).toBe(anthropicToolId('call.1:a'));
  });

  it('takes empty, absent, broken or non-object arguments as {}', () => {
    expect([undefined, '', '  ', '{"a"', '[1]', '"text"', 'null'].map(toolInputOf)).toEqual([{}, {}, {}, {}, {}, {}, {}]);
    expect(toolInputOf('{"item":"rice"}')).toEqual({ item: 'rice' });
  });

  it('sends tools with their JSON Schema as input_schema', () => {
    const tool: UpstreamTool = { type: 'function', function: { name: 'pantry-add', description: 'Adds.', parameters: { type: 'object', properties: { item: { type: 'string' } } } } };
    expect(ask([{ role: 'user', content: 'Hi.' }], [tool]).tools).toEqual([{ name: 'pantry-add', description: 'Adds.', input_schema: { type: 'object', properties: { item: { type: 'string' } } } }]);
  });
});

describe('an Anthropic history in OpenAI’s shape, and back', () => {
  it('gives tool results as tool messages before the words of their turn, and text with tool uses as one assistant message', () => {
    const history = openAiHistoryOf('You are Sage.', [
      { role: 'user', content: [{ type: 'text', text: 'Add rice.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Adding.' }, { type: 'tool_use', id: 'toolu_1', name: 'pantry-add', input: { item: 'rice' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"ok":true}' }, { type: 'text', text: 'Thanks.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
    expect(history).toEqual([
      { role: 'system', content: 'You are Sage.' },
      { role: 'user', content: 'Add rice.' },
      { role: 'assistant', content: 'Adding.', tool_calls: [call('toolu_1', 'pantry-add', '{"item":"rice"}')] },
      { role: 'tool', tool_call_id: 'toolu_1', content: '{"ok":true}' },
      { role: 'user', content: 'Thanks.' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('replays a history that began on OpenAI on Anthropic and back unchanged, ids included', () => {
    const openAi: PromptMessage[] = [
      { role: 'system', content: 'You are Sage.' },
      { role: 'user', content: 'Add rice and beans.' },
      { role: 'assistant', content: null, tool_calls: [call('call_a', 'pantry-add', '{"item":"rice"}'), call('call_b', 'pantry-add', '{"item":"beans"}')] },
      { role: 'tool', tool_call_id: 'call_a', content: '{"ok":true}' },
      { role: 'tool', tool_call_id: 'call_b', content: '{"ok":true}' },
      { role: 'assistant', content: 'Both in.' },
    ];
    const request = ask(openAi);
    expect(openAiHistoryOf(request.system, request.messages)).toEqual(openAi);
  });
});

/** Events read one after another, as a stream delivers them. */
function readAll(events: readonly Record<string, unknown>[]): UpstreamEvent[] {
  const reader = new AnthropicStreamReader();
  return events.flatMap((event) => reader.read(event));
}

describe('Anthropic’s events as the door’s', () => {
  const delta = (index: number, d: Record<string, unknown>) => ({ type: 'content_block_delta', index, delta: d });

  it('reads text, two tool uses with split JSON, usage (cache tokens counted) and the stop reason', () => {
    const events = readAll([
      { type: 'message_start', message: { usage: { input_tokens: 30, cache_read_input_tokens: 12, output_tokens: 1 } } },
      { type: 'ping' },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      delta(0, { type: 'text_delta', text: 'Adding ' }),
      delta(0, { type: 'text_delta', text: 'both.' }),
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_1', name: 'pantry-add', input: {} } },
      delta(1, { type: 'input_json_delta', partial_json: '{"ite' }),
      delta(1, { type: 'input_json_delta', partial_json: 'm":"rice"}' }),
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_2', name: 'pantry-add', input: {} } },
      delta(2, { type: 'input_json_delta', partial_json: '' }),
      delta(2, { type: 'input_json_delta', partial_json: '{"item":"beans"}' }),
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 25 } },
      { type: 'message_stop' },
    ]);
    expect(events.flatMap((e) => (e.type === 'delta' ? [e.text] : []))).toEqual(['Adding ', 'both.']);
    const calls = new ToolCallAccumulator();
    for (const event of events) if (event.type === 'tool-call') calls.push(event.piece);
    expect(calls.calls()).toEqual([
      { id: 'toolu_1', name: 'pantry-add', arguments: '{"item":"rice"}' },
      { id: 'toolu_2', name: 'pantry-add', arguments: '{"item":"beans"}' },
    ]);
    expect(events).toContainEqual({ type: 'usage', usage: { promptTokens: 42, completionTokens: 25 } });
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls' });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['tool_use', 'tool_calls'],
    ['max_tokens', 'length'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'stop'],
  ])('reads the stop reason %s as %s', (reason, finish) => {
    expect(finishReasonOf(reason)).toBe(finish);
  });

  it('throws on an error event, naming its type but not its message', () => {
    expect(() => readAll([{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded sk-ant-secret' } }])).toThrow(UpstreamStreamError);
    expect(() => readAll([{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded sk-ant-secret' } }])).toThrow(/\(overloaded_error\)\.$/);
    expect(() => readAll([{ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded sk-ant-secret' } }])).not.toThrow(/secret/);
  });

  it('ignores thinking, signatures and event types it does not know', () => {
    expect(
      readAll([
        { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
        delta(0, { type: 'thinking_delta', thinking: 'hmm' }),
        delta(0, { type: 'signature_delta', signature: 'x' }),
        { type: 'something_new' },
      ]),
    ).toEqual([]);
  });

  it('reads one whole message as the same events', () => {
    const events = eventsOfAnthropicMessage({
      type: 'message',
      content: [
        { type: 'text', text: 'Sure.' },
        { type: 'tool_use', id: 'toolu_1', name: 'pantry-add', input: { item: 'rice' } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 9, output_tokens: 4 },
    });
    expect(events).toEqual([
      { type: 'delta', text: 'Sure.' },
      { type: 'tool-call', piece: { index: 1, id: 'toolu_1', name: 'pantry-add', arguments: '{"item":"rice"}' } },
      { type: 'usage', usage: { promptTokens: 9, completionTokens: 4 } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });
});

describe('a provider’s failure, read from its body', () => {
  it('takes the sentence out of OpenAI’s JSON, Anthropic’s JSON, or plain text — and takes any key out of it', () => {
    expect(failureBodyOf('{"error":{"message":"Incorrect API key provided: sk-abc123.","type":"invalid_request_error","code":"invalid_api_key"}}', 'sk-abc123')).toEqual({
      code: 'invalid_api_key',
      sentence: 'Incorrect API key provided: [key].',
    });
    expect(failureBodyOf('{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}', 'sk-ant-k')).toEqual({ code: 'authentication_error', sentence: 'invalid x-api-key' });
    expect(failureBodyOf('Too many requests for key sk-proj-XYZ789', 'other')).toEqual({ sentence: 'Too many requests for key [key]' });
    expect(failureBodyOf('<html><body>Bad gateway</body></html>', 'k')).toEqual({});
  });

  it.each([
    [401, 'authentication_error', 'invalid x-api-key', true],
    [403, 'permission_error', 'Your key may not use this model.', true],
    [404, 'not_found_error', 'model: claude-nope', true],
    [429, 'rate_limit_error', 'Rate limited.', true],
    [500, 'api_error', 'Internal error.', true],
    [529, 'overloaded_error', 'Overloaded', true],
    [400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API.', true],
    [400, 'invalid_request_error', 'messages: roles must alternate', false],
  ])('counts Anthropic’s %i %s as the provider’s own: %s → %s', (status, code, sentence, own) => {
    expect(isProvidersOwn(status, code, sentence)).toBe(own);
  });

  it('passes the sentence on for what the site can fix, not for a server down or a bad request', () => {
    expect(isTheirsToFix(400, 'invalid_request_error', 'Your credit balance is too low to access the Anthropic API.')).toBe(true);
    expect(isTheirsToFix(401, 'authentication_error')).toBe(true);
    expect(isTheirsToFix(429, 'rate_limit_error')).toBe(true);
    expect(isTheirsToFix(529, 'overloaded_error')).toBe(false);
    expect(isTheirsToFix(500, 'api_error')).toBe(false);
    expect(isTheirsToFix(400, 'invalid_request_error', 'messages: roles must alternate')).toBe(false);
  });
});

describe('the Messages URL', () => {
  it('adds /v1/messages to a root, /messages to a /v1, and keeps a URL that already is the path', () => {
    expect(messagesUrl('https://api.anthropic.com')).toBe('https://api.anthropic.com/v1/messages');
    expect(messagesUrl('https://api.anthropic.com/')).toBe('https://api.anthropic.com/v1/messages');
    expect(messagesUrl('https://gateway.example/v1')).toBe('https://gateway.example/v1/messages');
    expect(messagesUrl('https://gateway.example/v1/messages')).toBe('https://gateway.example/v1/messages');
  });
});

describe('Anthropic as a wire', () => {
  const claude: Provider = { name: 'anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-ant-k', model: 'claude-haiku-4-5' };

  it('posts a streamed Messages request under x-api-key and the version, its ceiling always max_tokens', () => {
    const request = anthropicWire.requestOf({ ...claude, tokensField: 'max_completion_tokens' }, { model: 'claude-opus-4-5', messages: [{ role: 'user', content: 'Hi.' }], answerTokens: 256 });
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toMatchObject({ 'x-api-key': 'sk-ant-k', 'anthropic-version': '2023-06-01', accept: 'text/event-stream' });
    expect(request.headers).not.toHaveProperty('authorization');
    expect(JSON.parse(request.body)).toEqual({ model: 'claude-opus-4-5', max_tokens: 256, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi.' }] }], stream: true });
  });

  it('reads a response’s event stream, and one whole message, as the door’s events', async () => {
    const read = async (response: Response) => {
      const events: UpstreamEvent[] = [];
      for await (const event of anthropicWire.eventsOf(response)) events.push(event);
      return events;
    };
    const sse = [
      { type: 'message_start', message: { usage: { input_tokens: 7, output_tokens: 1 } } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello.' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
    ].map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    const said = [
      { type: 'delta', text: 'Hello.' },
      { type: 'usage', usage: { promptTokens: 7, completionTokens: 2 } },
      { type: 'finish', reason: 'stop' },
    ];
    expect(await read(new Response(sse.join(''), { headers: { 'content-type': 'text/event-stream' } }))).toEqual(said);
    expect(await read(Response.json({ type: 'message', content: [{ type: 'text', text: 'Hello.' }], stop_reason: 'end_turn', usage: { input_tokens: 7, output_tokens: 2 } }))).toEqual(said);
    await expect(read(new Response('data: {broken\n\n'))).rejects.toThrow(UpstreamStreamError);
  });
});
