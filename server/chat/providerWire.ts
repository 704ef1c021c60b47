/**
 * What every provider's API is to the door: a `ProviderWire`. The door speaks one language — an
 * OpenAI-shaped conversation and tools going out, `UpstreamEvent`s coming back — and each wire
 * (`openaiWire.ts`, `anthropicWire.ts`) translates it to and from its API: where a question is
 * posted, with which headers and body, and how its answer's events and in-stream errors read.
 * `upstream.ts` picks the wire a provider's `kind` names and knows nothing of any API's shapes.
 *
 * An HTTP failure's body is not a wire's: both APIs nest `error: { type, message }`, gateways in
 * front of either pass the other's shape or plain text, so `providerFailure.ts` reads them all.
 */
import type { ChatMessage } from './chatRequest';
import { UpstreamStreamError } from './errors';
import type { TokenUsage } from './prices';
import { readSse } from './sse';
import type { ToolCallPiece } from './toolCalls';

/** One chat endpoint and the API it speaks. */
export interface Provider {
  /** A short name for logs, the `x-confab-provider` header and the ledger. Never the key. */
  name: string;
  /** The API it speaks, so the wire it is asked through. Default `openai`. */
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

/** The API a provider speaks: one wire each. */
export type ProviderKind = 'openai' | 'anthropic';
export const PROVIDER_KINDS: readonly ProviderKind[] = ['openai', 'anthropic'];

export type TokensField = 'max_completion_tokens' | 'max_tokens';
export const TOKENS_FIELDS: readonly TokensField[] = ['max_completion_tokens', 'max_tokens'];

/**
 * A message as the door sends it upstream: the prompt and conversation, and within a turn that
 * calls verbs, the assistant's calls and the answer to each.
 */
export type PromptMessage =
  | ChatMessage
  | { role: 'assistant'; content: string | null; tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** An OpenAI function tool, as the door names a verb to a model. */
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

/** One question, whatever API it goes to. */
export interface Question {
  model: string;
  messages: readonly PromptMessage[];
  /** The verbs in scope; none or empty: the request carries no tools. */
  tools?: readonly UpstreamTool[] | undefined;
  /** Most tokens the answer may have. */
  answerTokens: number;
}

/** A request ready to post. */
export interface WireRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** One provider API, both ways. */
export interface ProviderWire {
  /** `question` as `provider`'s request: always streamed, with usage. */
  requestOf(provider: Provider, question: Question): WireRequest;
  /**
   * The events of a 2xx response: its event stream, or the one whole answer of a provider that
   * ignored `stream`. Throws `UpstreamStreamError` for an error the stream reports or a shape it
   * cannot read; stopping early cancels the body.
   */
  eventsOf(response: Response): AsyncGenerator<UpstreamEvent, void, undefined>;
}

/** What every wire's answer is read from: a whole JSON answer, or the `data` of each event of its stream. */
export type AnswerBody = { whole: unknown } | { stream: AsyncGenerator<string, void, undefined> };

/** `response`'s body as a whole answer (a provider that ignored `stream`) or as its event stream. */
export async function answerBodyOf(response: Response): Promise<AnswerBody> {
  if (response.body === null) throw new UpstreamStreamError('The provider sent an empty response.');
  if ((response.headers.get('content-type') ?? '').includes('application/json')) return { whole: await response.json() };
  return { stream: readSse(response.body as ReadableStream<Uint8Array>) };
}

/** One event's `data`, parsed. */
export function eventJsonOf(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch (error) {
    throw new UpstreamStreamError('The provider sent an event that is not JSON.', { cause: error });
  }
}
