/**
 * Responding: an answer sent as the client asked — streamed as server-sent events, or one whole
 * completion — and every failure in OpenAI's error shape, as an HTTP status before a response has
 * begun and as one event in a stream under way.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { streamSSE } from 'hono/streaming';
import type { SSEStreamingApi } from 'hono/streaming';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { finishReason } from './answer';
import type { AnswerResult } from './answer';
import type { ChatRequest } from './chatRequest';
import type { Answer, DoorLogLine, Sending } from './doorTypes';
import { ChatRequestError, nameOf, NoProviderAnswered, ProviderError } from './errors';
import type { TokenUsage } from './prices';
import { chunkOf, completionOf, errorOf, usageChunkOf } from './wire';
import type { AnswerHeader, OpenAiError } from './wire';
import { requestWordsOf } from '../words/requestWords';
import { say } from '../words/words';
import type { Words } from '../words/words';

/** Settling an answer nothing was reserved for. */
const settledFree = (): Promise<TokenUsage> => Promise.resolve({ promptTokens: 0, completionTokens: 0 });

export interface ResponderDeps {
  clock: () => number;
  log: (line: DoorLogLine) => void;
}

/** Sends answers and failures, stamped by `deps.clock`, logging what is nobody's fault by name. */
export function responder(deps: ResponderDeps) {
  /**
   * Sends what `sending` resolves to as the client asked. A stream's headers go out at once, while
   * the provider is still being asked, so that the first token is one write on a response the
   * client already holds; what fails before it is said in the stream, as an error in OpenAI's shape
   * (`failureOf`), and the provider that answered is named in every chunk. One completion waits
   * for the whole answer and is an HTTP error when it fails. `settle` runs once the answer has
   * ended and before `[DONE]`; `after` once it has been sent.
   */
  async function respond(c: Context, request: ChatRequest, sending: Promise<Sending | null>, onClientGone: () => void = () => undefined): Promise<Response> {
    if (!request.stream) {
      const sent = await sending;
      if (sent === null) return new Response(null, { status: 499 });
      const { answer, settle = settledFree, after } = sent;
      const header = answerHeader(answer);
      c.header('x-confab-provider', header.provider);
      let text = '';
      const settling = settlingOnce(answer, settle, onClientGone);
      try {
        let next = await answer.pieces.next();
        while (!next.done) {
          // A whole completion has no place for the door's own events; its text is all.
          if (typeof next.value === 'string') text += next.value;
          next = await answer.pieces.next();
        }
        const usage = await settling.once(next.value);
        after?.(next.value, text);
        return c.json(completionOf(header, text, finishReason(next.value.ended), usage));
      } finally {
        await settling.ifNot(text);
      }
    }

    return streamSSE(c, async (stream) => {
      stream.onAbort(onClientGone);
      let sent: Sending | null;
      try {
        sent = await sending;
      } catch (error) {
        await sayFailure(stream, error, requestWordsOf(c));
        return;
      }
      if (sent === null) return;
      const { answer, settle = settledFree, after } = sent;
      const header = answerHeader(answer);
      let text = '';
      const settling = settlingOnce(answer, settle, onClientGone);
      try {
        let next = await answer.pieces.next();
        let role = true;
        while (!next.done) {
          const piece = next.value;
          if (typeof piece === 'string') {
            text += piece;
            await stream.writeSSE({ data: chunkOf(header, role ? { role: 'assistant', content: piece } : { content: piece }, null) });
            role = false;
          } else {
            await stream.writeSSE({ event: piece.event, data: JSON.stringify(piece.data) });
          }
          next = await answer.pieces.next();
        }
        const result = next.value;
        await stream.writeSSE({ data: chunkOf(header, role ? { role: 'assistant', content: '' } : {}, finishReason(result.ended)) });
        const usage = await settling.once(result);
        if (request.includeUsage) await stream.writeSSE({ data: usageChunkOf(header, usage) });
        await stream.writeSSE({ data: '[DONE]' });
        await stream.close();
        after?.(result, text);
      } catch (error) {
        await sayFailure(stream, error, requestWordsOf(c));
      } finally {
        await settling.ifNot(text);
      }
    });
  }

  /** What every chunk or completion of `answer` shares. */
  function answerHeader(answer: Answer): AnswerHeader {
    return { id: `chatcmpl-${randomUUID().replaceAll('-', '')}`, created: Math.floor(deps.clock() / 1000), model: answer.model, provider: answer.provider ?? 'none' };
  }

  /**
   * `settle`, run once: by `once` when the answer ends, or by `ifNot` however else it ends — a
   * client gone mid-write, a broken piece, a thrown error — so its hold is never left standing for
   * the rest of the window.
   */
  function settlingOnce(answer: Answer, settle: (result: AnswerResult) => Promise<TokenUsage>, onClientGone: () => void) {
    let settled = false;
    return {
      once(result: AnswerResult): Promise<TokenUsage> {
        settled = true;
        return settle(result);
      },
      async ifNot(text: string): Promise<void> {
        if (settled) return;
        settled = true;
        onClientGone();
        await answer.pieces.return({ ended: 'aborted', modelChars: text.length }).catch(() => undefined);
        await settle({ ended: 'aborted', modelChars: text.length }).catch(() => undefined);
      },
    };
  }

  /**
   * An error as the door answers it, in OpenAI's shape: its HTTP status for a response not yet
   * begun, and the body, which a stream already under way sends as an event; what the door adds
   * is said in `words`, the request's. What is not the request's fault nor a provider's is logged
   * by name and said only as a server error.
   */
  function failureOf(error: unknown, words: Words): { status: ContentfulStatusCode; body: OpenAiError } {
    if (error instanceof ChatRequestError) {
      return { status: error.status, body: errorOf(error.message, 'invalid_request_error', error.param, error.status === 413 ? 'request_too_large' : null) };
    }
    if (error instanceof HTTPException) {
      const status = error.status;
      if (status === 401) return { status, body: errorOf(error.message || say(words, 'requests.grant-refused'), 'authentication_error', null, 'invalid_grant') };
      if (status === 404) return { status, body: errorOf(error.message, 'not_found_error', null, 'bot_not_found') };
      return { status, body: errorOf(error.message, status < 500 ? 'invalid_request_error' : 'server_error') };
    }
    if (error instanceof ProviderError) {
      return {
        status: 502,
        body: errorOf(say(words, 'requests.provider-not-retried', { failure: error.forPerson(words) }), 'api_error', null, 'provider_refused_request'),
      };
    }
    if (error instanceof NoProviderAnswered) return { status: 502, body: errorOf(error.forPerson(words), 'api_error', null, 'no_provider_answered') };
    deps.log({ event: 'door.failed', error: nameOf(error) });
    return { status: 500, body: errorOf(say(words, 'requests.server-failed'), 'server_error') };
  }

  /** `error` as one event of a stream under way, when the client is still there to read it; no `[DONE]` follows. */
  function sayFailure(stream: SSEStreamingApi, error: unknown, words: Words): Promise<void> {
    return stream.writeSSE({ data: JSON.stringify(failureOf(error, words).body) });
  }

  return { respond, failureOf };
}
