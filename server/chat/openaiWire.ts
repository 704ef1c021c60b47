/**
 * OpenAI's chat completions, and every provider that speaks them: the door's conversation is
 * already in this shape, so a question goes out nearly as it is; the answer's chunks (or one whole
 * completion, from a provider that ignored `stream`) become the door's `UpstreamEvent`s.
 */
import { isRecord } from '../../common/isRecord';
import { UpstreamStreamError } from './errors';
import { answerBodyOf, eventJsonOf } from './providerWire';
import type { Provider, ProviderWire, Question, UpstreamEvent, WireRequest } from './providerWire';
import type { ToolCallPiece } from './toolCalls';

export const openaiWire: ProviderWire = {
  requestOf,
  async *eventsOf(response) {
    const body = await answerBodyOf(response);
    if ('whole' in body) {
      yield* eventsOfChunk(body.whole);
      return;
    }
    for await (const data of body.stream) {
      if (data === '[DONE]') return;
      yield* eventsOfChunk(eventJsonOf(data));
    }
  },
};

/** `<baseUrl>/chat/completions`, or `baseUrl` itself when it already is that path. */
export function completionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith('/chat/completions') ? base : `${base}/chat/completions`;
}

/** The ceiling goes under the provider's `tokensField`; tools are sent only when there are some, to be called in parallel. */
function requestOf(provider: Provider, question: Question): WireRequest {
  const { model, messages, tools, answerTokens } = question;
  return {
    url: completionsUrl(provider.baseUrl),
    headers: { authorization: `Bearer ${provider.apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      [provider.tokensField ?? 'max_completion_tokens']: answerTokens,
      ...(tools !== undefined && tools.length > 0 ? { tools, parallel_tool_calls: true } : {}),
    }),
  };
}

/** The door's events for one chunk, or one whole completion. Throws `UpstreamStreamError` for an error chunk or one that is not an object. */
function* eventsOfChunk(chunk: unknown): Generator<UpstreamEvent, void, undefined> {
  if (!isRecord(chunk)) throw new UpstreamStreamError('The provider sent an event that is not an object.');
  if (chunk.error !== undefined && chunk.error !== null) {
    const code = isRecord(chunk.error) ? chunk.error.code : undefined;
    throw new UpstreamStreamError(`The provider reported an error mid-stream${typeof code === 'string' || typeof code === 'number' ? ` (${String(code)})` : ''}.`);
  }
  const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (isRecord(choice)) {
    // A streamed chunk carries `delta`; a whole completion (a provider that ignored `stream`) carries `message`.
    const part = isRecord(choice.delta) ? choice.delta : isRecord(choice.message) ? choice.message : undefined;
    if (part !== undefined && typeof part.content === 'string' && part.content !== '') yield { type: 'delta', text: part.content };
    if (part !== undefined && Array.isArray(part.tool_calls)) {
      for (const [position, call] of (part.tool_calls as unknown[]).entries()) {
        if (isRecord(call)) yield { type: 'tool-call', piece: pieceOf(call, position) };
      }
    }
    if (typeof choice.finish_reason === 'string') yield { type: 'finish', reason: choice.finish_reason };
  }
  const usage = chunk.usage;
  if (isRecord(usage) && typeof usage.prompt_tokens === 'number' && typeof usage.completion_tokens === 'number') {
    yield { type: 'usage', usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } };
  }
}

/** One streamed tool-call piece; a piece without an index is placed by its position in the chunk. */
function pieceOf(call: Record<string, unknown>, position: number): ToolCallPiece {
  const fn = isRecord(call.function) ? call.function : {};
  const args = fn.arguments;
  return {
    index: typeof call.index === 'number' ? call.index : position,
    ...(typeof call.id === 'string' ? { id: call.id } : {}),
    ...(typeof fn.name === 'string' ? { name: fn.name } : {}),
    // A provider that sends the arguments as an object rather than a JSON string is met halfway.
    ...(typeof args === 'string' ? { arguments: args } : isRecord(args) ? { arguments: JSON.stringify(args) } : {}),
  };
}
