/**
 * The page's side of the chat door: `POST /v1/chat/completions` with the conversation grant,
 * streamed, read as server-sent events over fetch. Tokens are yielded the moment they land, so the
 * chunker can hand the first sentence to the voice before the answer has ended. Aborting the signal
 * (a barge-in) cancels the request, and the server aborts its upstream in turn.
 */
import type { ChatMessage } from '../core/conversation/events';

/** Why an answer could not be had; `expired` means a new grant would help. */
export type AnswerFailure = 'expired' | 'refused' | 'unreachable' | 'broken';

export class AnswerError extends Error {
  override readonly name = 'AnswerError';
  constructor(
    message: string,
    readonly failure: AnswerFailure,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface AnswerRequest {
  grant: string;
  messages: readonly ChatMessage[];
  signal: AbortSignal;
}

/**
 * The answer's text as it streams, piece by piece. Ends at `[DONE]`; throws `AnswerError` for a
 * refusal or a broken stream, and the signal's reason when aborted.
 */
export async function* streamAnswer(request: AnswerRequest, fetcher: typeof fetch = (input, init) => fetch(input, init)): AsyncGenerator<string, void> {
  let response: Response;
  try {
    response = await fetcher('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${request.grant}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ model: 'bot', stream: true, messages: request.messages }),
      signal: request.signal,
    });
  } catch (cause) {
    if (request.signal.aborted) throw request.signal.reason;
    throw new AnswerError('The answer could not be asked for: Confab’s server is unreachable. Check the connection and say it again.', 'unreachable', undefined, { cause });
  }
  if (!response.ok) throw await failureOf(response);
  const body = response.body;
  if (body === null) throw new AnswerError('The answer arrived empty. Say it again.', 'broken', response.status);

  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const onAbort = () => void reader.cancel().catch(() => undefined);
  request.signal.addEventListener('abort', onAbort, { once: true });
  let buffered = '';
  let done = false;
  try {
    while (!done) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (cause) {
        if (request.signal.aborted) throw request.signal.reason;
        throw new AnswerError('The answer broke off: the connection dropped. Say it again.', 'broken', response.status, { cause });
      }
      if (request.signal.aborted) throw request.signal.reason;
      if (chunk.done) break;
      buffered += chunk.value;
      const events = buffered.split(/\r?\n\r?\n/);
      buffered = events.pop() ?? '';
      for (const event of events) {
        const data = dataOf(event);
        if (data === undefined) continue;
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const text = contentOf(data);
        if (text !== '') yield text;
      }
    }
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    if (!done) void reader.cancel().catch(() => undefined);
  }
  if (!done) throw new AnswerError('The answer broke off before it ended. Say it again.', 'broken', response.status);
}

/** The `data:` lines of one event, joined, or undefined for a comment or a keep-alive. */
function dataOf(event: string): string | undefined {
  const lines = event.split(/\r?\n/).filter((line) => line.startsWith('data:'));
  if (lines.length === 0) return undefined;
  return lines.map((line) => line.slice(5).replace(/^ /, '')).join('\n');
}

/** The text a `chat.completion.chunk` adds; a chunk that is not one is a broken stream. */
function contentOf(data: string): string {
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch (cause) {
    throw new AnswerError('The answer arrived garbled. Say it again.', 'broken', undefined, { cause });
  }
  if (typeof chunk !== 'object' || chunk === null) throw new AnswerError('The answer arrived garbled. Say it again.', 'broken');
  const choices = (chunk as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return '';
  let text = '';
  for (const choice of choices as unknown[]) {
    const content = (choice as { delta?: { content?: unknown } } | null)?.delta?.content;
    if (typeof content === 'string') text += content;
  }
  return text;
}

async function failureOf(response: Response): Promise<AnswerError> {
  let said: string | undefined;
  try {
    const body = (await response.json()) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') said = body.error.message;
  } catch {
    // The status alone is said.
  }
  if (response.status === 401) return new AnswerError('The conversation’s grant ran out; a new one is being fetched.', 'expired', 401);
  if (response.status >= 500 || response.status === 429) {
    return new AnswerError(`No answer could be had just now${said === undefined ? '' : `: ${said}`}. Say it again in a moment.`, 'unreachable', response.status);
  }
  return new AnswerError(`The answer was refused: ${said ?? `the server said ${response.status}`}.`, 'refused', response.status);
}
