/**
 * The door's answers in OpenAI's wire shapes: `chat.completion.chunk` events for a stream, one
 * `chat.completion` otherwise, and `{ error: { message, type, param, code } }` for a request that
 * failed (the body of an HTTP error, or an event of a stream whose headers had gone out).
 */
import type { TokenUsage } from './prices';

/** What every chunk and completion of one answer share. */
export interface AnswerHeader {
  /** `chatcmpl-…`, the same on every chunk of one answer. */
  id: string;
  /** Seconds since the epoch. */
  created: number;
  /** The model that answered. */
  model: string;
  /**
   * Who answered: the configured provider's name, `stand-in`, or `none` (a refusal). A field of
   * every chunk and completion, as OpenRouter names its provider, since a stream's headers go out
   * before it is known.
   */
  provider: string;
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
}

export type FinishReason = 'stop' | 'length';

/** What every chunk of one answer begins with. */
function chunkHead(header: AnswerHeader) {
  return { id: header.id, object: 'chat.completion.chunk', created: header.created, model: header.model, provider: header.provider };
}

export function chunkOf(header: AnswerHeader, delta: ChunkDelta, finish: FinishReason | null): string {
  return JSON.stringify({ ...chunkHead(header), choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
}

/** The last chunk of a stream whose client asked for `stream_options.include_usage`. */
export function usageChunkOf(header: AnswerHeader, usage: TokenUsage): string {
  return JSON.stringify({ ...chunkHead(header), choices: [], usage: usageOf(usage) });
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  provider: string;
  choices: [{ index: 0; message: { role: 'assistant'; content: string; refusal: null }; logprobs: null; finish_reason: FinishReason }];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export function completionOf(header: AnswerHeader, content: string, finish: FinishReason, usage: TokenUsage): ChatCompletion {
  return {
    id: header.id,
    object: 'chat.completion',
    created: header.created,
    model: header.model,
    provider: header.provider,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: finish }],
    usage: usageOf(usage),
  };
}

function usageOf(usage: TokenUsage) {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'not_found_error' | 'api_error' | 'server_error';

export interface OpenAiError {
  error: { message: string; type: ErrorType; param: string | null; code: string | null };
}

export function errorOf(message: string, type: ErrorType, param: string | null = null, code: string | null = null): OpenAiError {
  return { error: { message, type, param, code } };
}
