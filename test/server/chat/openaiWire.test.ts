/** OpenAI's chat completions as a wire: the request the door posts, and the answer read back as the door's events. */
import { describe, expect, it } from 'vitest';
import { UpstreamStreamError } from '../../../server/chat/errors';
import { completionsUrl, openaiWire } from '../../../server/chat/openaiWire';
import type { Provider, UpstreamEvent, UpstreamTool } from '../../../server/chat/providerWire';

const openAi: Provider = { name: 'openai', baseUrl: 'https://api.example.com/v1/', apiKey: 'sk-k', model: 'gpt-4o-mini' };
const tool: UpstreamTool = { type: 'function', function: { name: 'pantry-add', description: 'Adds.', parameters: { type: 'object' } } };

const stream = (...events: string[]) => new Response(events.map((data) => `data: ${data}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } });

async function read(response: Response): Promise<UpstreamEvent[]> {
  const events: UpstreamEvent[] = [];
  for await (const event of openaiWire.eventsOf(response)) events.push(event);
  return events;
}

describe('the completions URL', () => {
  it('adds /chat/completions to a base, and keeps a URL that already is the path', () => {
    expect(completionsUrl('https://api.example.com/v1')).toBe('https://api.example.com/v1/chat/completions');
    expect(completionsUrl('https://api.example.com/v1/')).toBe('https://api.example.com/v1/chat/completions');
    expect(completionsUrl('https://api.example.com/v1/chat/completions')).toBe('https://api.example.com/v1/chat/completions');
  });
});

describe('a question as an OpenAI request', () => {
  it('streams with usage under a bearer key, and sends tools only when there are some', () => {
    const request = openaiWire.requestOf(openAi, { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi.' }], answerTokens: 100 });
    expect(request.url).toBe('https://api.example.com/v1/chat/completions');
    expect(request.headers).toMatchObject({ authorization: 'Bearer sk-k', accept: 'text/event-stream' });
    expect(JSON.parse(request.body)).toEqual({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hi.' }],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 100,
    });
    const withTools = JSON.parse(openaiWire.requestOf(openAi, { model: 'gpt-4o', messages: [], tools: [tool], answerTokens: 100 }).body) as Record<string, unknown>;
    expect(withTools).toMatchObject({ tools: [tool], parallel_tool_calls: true });
  });

  it('sends the ceiling under the provider’s tokensField', () => {
    const body = JSON.parse(openaiWire.requestOf({ ...openAi, tokensField: 'max_tokens' }, { model: 'm', messages: [], answerTokens: 64 }).body) as Record<string, unknown>;
    expect(body.max_tokens).toBe(64);
    expect(body).not.toHaveProperty('max_completion_tokens');
  });
});

describe('OpenAI’s chunks as the door’s events', () => {
  it('reads text, tool-call pieces (placed by position without an index, object arguments as JSON), the finish and usage, and stops at [DONE]', async () => {
    const events = await read(
      stream(
        '{"choices":[{"delta":{"role":"assistant","content":"Adding."}}]}',
        '{"choices":[{"delta":{"tool_calls":[{"id":"c1","function":{"name":"pantry-add","arguments":{"item":"rice"}}}]}}]}',
        '{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}',
        '{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5}}',
        '[DONE]',
        '{"choices":[{"delta":{"content":"never read"}}]}',
      ),
    );
    expect(events).toEqual([
      { type: 'delta', text: 'Adding.' },
      { type: 'tool-call', piece: { index: 0, id: 'c1', name: 'pantry-add', arguments: '{"item":"rice"}' } },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'usage', usage: { promptTokens: 12, completionTokens: 5 } },
    ]);
  });

  it('reads one whole completion from a provider that ignored stream', async () => {
    const whole = Response.json({ choices: [{ message: { role: 'assistant', content: 'Hello.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2 } });
    expect(await read(whole)).toEqual([
      { type: 'delta', text: 'Hello.' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 2 } },
    ]);
  });

  it('throws on an error chunk, naming its code but not its message, and on an event that is not JSON', async () => {
    const failed = read(stream('{"error":{"code":"server_error","message":"key sk-secret"}}'));
    await expect(failed).rejects.toThrow(UpstreamStreamError);
    await expect(read(stream('{"error":{"code":"server_error","message":"key sk-secret"}}'))).rejects.toThrow(/\(server_error\)\.$/);
    await expect(read(stream('not json'))).rejects.toThrow(/not JSON/);
    await expect(read(new Response(null))).rejects.toThrow(/empty response/);
  });
});
