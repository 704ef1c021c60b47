/**
 * One provider asked for one answer, in its own shape: OpenAI's chat completions, or Anthropic's
 * Messages API (translated both ways by `anthropicWire.ts`). The request always streams (with
 * usage); the answer is "open" once its first token has arrived, because until then a failure
 * that is the provider's own may still be handed to the next provider, and after it the answer is
 * this provider's whatever happens.
 */
import { ANTHROPIC_VERSION, AnthropicStreamReader, anthropicRequestOf, eventsOfAnthropicMessage } from './anthropicWire';
import type { ChatMessage } from './chatRequest';
import { ProviderError, UpstreamStreamError } from './errors';
import { failureOfResponse, isProvidersOwn, isTheirsToFix } from './providerFailure';
import type { ToolCallPiece } from './toolCalls';
import type { TokenUsage } from './prices';
import { readSse } from './sse';
import { isRecord } from '../../core/isRecord';

/** One chat endpoint: OpenAI-shaped chat completions, or Anthropic's Messages API. */
export interface Provider {
  /** A short name for logs, the `x-confab-provider` header and the ledger. Never the key. */
  name: string;
  /** The API it speaks. Default `openai`. */
  kind?: ProviderKind;
  /**
   * Its base URL as its SDK takes it. OpenAI-shaped (`https://api.openai.com/v1`): the door posts to
   * `<baseUrl>/chat/completions`. Anthropic (`https://api.anthropic.com`): to `<baseUrl>/v1/messages`
   * (`/messages` after a base that ends in `/v1`). A URL already ending in that path is used as it is.
   */
  baseUrl: string;
  /**
   * Sent as `Authorization: Bearer <apiKey>` (OpenAI-shaped) or `x-api-key` (Anthropic); never
   * logged, never returned, taken out of any provider sentence passed on.
   */
  apiKey: string;
  /** The model to ask it for when the bot names no model for it. */
  model: string;
  /**
   * The name the answer's token ceiling is sent under: `max_completion_tokens` (the default; newer
   * OpenAI models refuse the old name) or `max_tokens`, for providers that know only the old one.
   * OpenAI-shaped providers only: Anthropic's is always `max_tokens`, which it requires.
   */
  tokensField?: TokensField;
}

/** The API a provider speaks. */
export type ProviderKind = 'openai' | 'anthropic';
export const PROVIDER_KINDS: readonly ProviderKind[] = ['openai', 'anthropic'];

export type TokensField = 'max_completion_tokens' | 'max_tokens';
export const TOKENS_FIELDS: readonly TokensField[] = ['max_completion_tokens', 'max_tokens'];

/** One provider to ask, with the model to ask it for. */
export interface Attempt {
  provider: Provider;
  model: string;
}

/** What a bot says about providers: see `Bot.provider` and `Bot.model`. */
export interface ProviderChoice {
  provider?: string;
  model?: string;
}

/**
 * The order to ask providers in for `bot`. The provider the bot names goes first, with the bot's
 * model; the others follow in their configured order, each with its own model, since a model name
 * belongs to the provider it was written for and sending it elsewhere is a second failure, not a
 * fallback. A bot that names a model but no provider means the first configured one. A bot that
 * names a provider that is not configured has its model sent nowhere.
 */
export function providerOrder(providers: readonly Provider[], bot: ProviderChoice): Attempt[] {
  const preferred = bot.provider === undefined ? providers[0] : providers.find((provider) => provider.name === bot.provider);
  const ordered = preferred === undefined ? [...providers] : [preferred, ...providers.filter((provider) => provider !== preferred)];
  return ordered.map((provider) => ({
    provider,
    model: provider === preferred && bot.model !== undefined ? bot.model : provider.model,
  }));
}

/** `<baseUrl>/chat/completions`, or `baseUrl` itself when it already is that path. */
export function completionsUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  return base.endsWith('/chat/completions') ? base : `${base}/chat/completions`;
}

/** `<baseUrl>/v1/messages` (or `/messages` after a `/v1`), or `baseUrl` itself when it already is that path. */
export function messagesUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, '');
  if (base.endsWith('/messages')) return base;
  return base.endsWith('/v1') ? `${base}/messages` : `${base}/v1/messages`;
}

/**
 * A message as the door sends it upstream: the prompt and conversation, and within a turn that
 * calls verbs, the assistant's calls and the answer to each.
 */
export type PromptMessage =
  | ChatMessage
  | { role: 'assistant'; content: string | null; tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** An OpenAI function tool, as sent upstream. */
export interface UpstreamTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** What an upstream stream says, in the door's words. */
export type UpstreamEvent =
  | { type: 'delta'; text: string }
  | { type: 'tool-call'; piece: ToolCallPiece }
  | { type: 'usage'; usage: TokenUsage }
  | { type: 'finish'; reason: string };

/** An answer whose first token has arrived. */
export interface OpenUpstream extends Attempt {
  /** Every event from the first token on. Throws when the stream breaks; stopping early cancels it. */
  events: AsyncGenerator<UpstreamEvent, void, undefined>;
}

export interface OpenOptions {
  /** Aborts the whole answer: the client left, or a per-answer limit ran out. */
  signal: AbortSignal;
  fetch: typeof fetch;
  /** How long to wait for the first token before asking the next provider, in ms. */
  firstTokenMs: number;
  /** The verbs in scope, as OpenAI tools; none: the request carries no `tools`. */
  tools?: readonly UpstreamTool[];
  /** Most tokens one call may answer with, sent as the provider's `tokensField`, so no answer runs away. Default `ANSWER_TOKENS`. */
  answerTokens?: number;
}

/** The answer ceiling a bot gets unless told otherwise: an answer-sized reply, in tokens. */
export const ANSWER_TOKENS = 4096;

/**
 * Asks `attempt` for an answer to `messages` and waits for its first token (text, or the first
 * piece of a tool call). Rejects with a
 * `ProviderError` when it fails before then (its `fallover` says whether to ask the next), or with
 * `signal.reason` once `signal` has aborted.
 */
export async function openUpstream(attempt: Attempt, messages: readonly PromptMessage[], options: OpenOptions): Promise<OpenUpstream> {
  const { provider, model } = attempt;
  const timeout = new AbortController();
  const timer = setTimeout(() => {
    timeout.abort(new Error('no first token in time'));
  }, options.firstTokenMs);
  const signal = AbortSignal.any([options.signal, timeout.signal]);
  const failed = (failure: 'unreachable' | 'stream', cause: unknown): unknown => {
    if (options.signal.aborted) return options.signal.reason;
    return new ProviderError(provider.name, timeout.signal.aborted ? 'timeout' : failure, true, undefined, undefined, { cause });
  };

  try {
    let response: Response;
    try {
      response = await options.fetch(requestUrl(provider), { method: 'POST', ...requestOf(attempt, messages, options), signal });
    } catch (error) {
      throw failed('unreachable', error);
    }
    if (!response.ok) {
      const { code, sentence } = await failureOfResponse(response, provider.apiKey).catch(() => ({ code: undefined, sentence: undefined }));
      if (options.signal.aborted) throw options.signal.reason;
      const theirs = isTheirsToFix(response.status, code, sentence);
      throw new ProviderError(provider.name, 'status', isProvidersOwn(response.status, code, sentence), response.status, code, theirs ? { sentence } : undefined);
    }
    const events = provider.kind === 'anthropic' ? anthropicEventsOf(response) : eventsOf(response);
    const early: UpstreamEvent[] = [];
    try {
      for (;;) {
        const next = await events.next();
        if (next.done) break;
        early.push(next.value);
        if (next.value.type === 'delta' || next.value.type === 'tool-call') break;
      }
    } catch (error) {
      await events.return();
      throw failed('stream', error);
    }
    return { provider, model, events: replay(early, events) };
  } finally {
    clearTimeout(timer);
  }
}

function requestUrl(provider: Provider): string {
  return provider.kind === 'anthropic' ? messagesUrl(provider.baseUrl) : completionsUrl(provider.baseUrl);
}

/** The headers and body of `attempt`'s request, in the shape its provider speaks. */
function requestOf(attempt: Attempt, messages: readonly PromptMessage[], options: OpenOptions): { headers: Record<string, string>; body: string } {
  const { provider, model } = attempt;
  const answerTokens = options.answerTokens ?? ANSWER_TOKENS;
  if (provider.kind === 'anthropic') {
    return {
      headers: { 'x-api-key': provider.apiKey, 'anthropic-version': ANTHROPIC_VERSION, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(anthropicRequestOf(messages, { model, maxTokens: answerTokens, stream: true, tools: options.tools })),
    };
  }
  return {
    headers: { authorization: `Bearer ${provider.apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      [provider.tokensField ?? 'max_completion_tokens']: answerTokens,
      ...(options.tools !== undefined && options.tools.length > 0 ? { tools: options.tools, parallel_tool_calls: true } : {}),
    }),
  };
}

async function* replay(early: readonly UpstreamEvent[], rest: AsyncGenerator<UpstreamEvent, void, undefined>): AsyncGenerator<UpstreamEvent, void, undefined> {
  yield* early;
  yield* rest;
}

/** The events of a 2xx response: its SSE stream, or a provider that ignored `stream` and sent one JSON completion. */
async function* eventsOf(response: Response): AsyncGenerator<UpstreamEvent, void, undefined> {
  if (response.body === null) throw new UpstreamStreamError('The provider sent an empty response.');
  if ((response.headers.get('content-type') ?? '').includes('application/json')) {
    yield* eventsOfChunk(await response.json());
    return;
  }
  for await (const data of readSse(response.body as ReadableStream<Uint8Array>)) {
    if (data === '[DONE]') return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch (error) {
      throw new UpstreamStreamError('The provider sent an event that is not JSON.', { cause: error });
    }
    yield* eventsOfChunk(chunk);
  }
}

/** The events of an Anthropic 2xx response: its event stream (every event's `data` names its type), or one whole message. */
async function* anthropicEventsOf(response: Response): AsyncGenerator<UpstreamEvent, void, undefined> {
  if (response.body === null) throw new UpstreamStreamError('The provider sent an empty response.');
  if ((response.headers.get('content-type') ?? '').includes('application/json')) {
    yield* eventsOfAnthropicMessage(await response.json());
    return;
  }
  const reader = new AnthropicStreamReader();
  for await (const data of readSse(response.body as ReadableStream<Uint8Array>)) {
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch (error) {
      throw new UpstreamStreamError('The provider sent an event that is not JSON.', { cause: error });
    }
    yield* reader.read(event);
  }
}

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
