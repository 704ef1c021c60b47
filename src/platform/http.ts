/**
 * The page's one HTTP client for its own server's routes: a call under the page's credentials with
 * a timeout, answered as JSON, or failed as one `HttpError` that carries the status and the
 * server's own sentence. Each client over it says, in its own words, what went wrong (`Say`).
 */
import { isRecord } from '../../common/isRecord';
import { sayWord } from './words';

/** How long one call may take before it counts as the server being unreachable, in ms. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Why a call failed: `unreachable` (no answer, a 5xx, 408 or 429) is worth trying again later;
 * `refused` (any other 4xx, an answer the page cannot read) will fail the same way every time.
 */
export type HttpFailure = 'unreachable' | 'refused';

/** A call to the page's server failed; the message is a sentence the person can be shown. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly failure: HttpFailure;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** The server's own sentence (`{ "error": "…" }` or OpenAI's `{ "error": { "message": "…" } }`), when it sent one. */
  readonly said: string | undefined;

  constructor(message: string, details: { failure: HttpFailure; status?: number; said?: string; cause?: unknown }) {
    super(message, 'cause' in details ? { cause: details.cause } : undefined);
    this.failure = details.failure;
    this.status = details.status;
    this.said = details.said;
  }
}

/** Whether a failure is worth retrying later (the server was unreachable or overloaded). */
export function retryable(error: unknown): boolean {
  return error instanceof HttpError && error.failure === 'unreachable';
}

/** How an answer of `status` failed: the server's own trouble (5xx), a timeout or too many requests are passing. */
export function failureOf(status: number): HttpFailure {
  return status >= 500 || status === 408 || status === 429 ? 'unreachable' : 'refused';
}

/** What went wrong with a call, for its client to say. */
export type Trouble =
  | { kind: 'unreachable' }
  | { kind: 'answered'; status: number; said: string | undefined; failure: HttpFailure }
  | { kind: 'not-json'; status: number }
  | { kind: 'misshapen' };

/** A client's sentence for `trouble` when it asked to do `what` ("save a line", in the person's language: `page-server`'s words). */
export type Say = (what: string, trouble: Trouble) => string;

/**
 * The sentence for an answer the page cannot read (`not-json`, `misshapen`) when it asked to do
 * `what`: most likely the server is newer than the page, so reloading brings the matching one.
 */
export function unreadableAnswer(what: string, kind: 'not-json' | 'misshapen'): string {
  return sayWord(kind === 'not-json' ? 'page-server.not-json' : 'page-server.misshapen', { what });
}

interface HttpCall {
  /** Default GET, or POST when there is a body. */
  method?: 'GET' | 'POST' | 'DELETE';
  /** Sent as JSON. */
  body?: unknown;
  /** The request outlives the page (sent as it closes or reloads). */
  keepalive?: boolean;
  /** Default `application/json`. */
  accept?: string;
  /** Ends the call, in place of the timeout: a stream lives as long as it is read. */
  signal?: AbortSignal;
}

export interface Http {
  /** The server's response to `call`, whatever its status; rejects only when no answer came. */
  send(what: string, path: string, call?: HttpCall): Promise<Response>;
  /** The JSON of a 2xx answer (undefined for a 204); rejects with `HttpError` for anything else. */
  json(what: string, path: string, call?: HttpCall): Promise<unknown>;
  /** The same, checked for the shape the page relies on. */
  json<T>(what: string, path: string, call: HttpCall, shape: (value: unknown) => value is T): Promise<T>;
}

/**
 * The client over `fetcher`: the global fetch, or one that adds the person's access token in
 * Supabase mode (`withAuth`); the person cookie needs nothing.
 */
export function httpClient(say: Say, fetcher: typeof fetch = (input, init) => fetch(input, init)): Http {
  async function send(what: string, path: string, call: HttpCall = {}): Promise<Response> {
    try {
      return await fetcher(path, {
        method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
        headers: { accept: call.accept ?? 'application/json', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
        credentials: 'same-origin',
        // A request that never answers would hold up everything waiting behind it.
        signal: call.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        ...(call.keepalive === true ? { keepalive: true } : {}),
      });
    } catch (cause) {
      throw new HttpError(say(what, { kind: 'unreachable' }), { failure: 'unreachable', cause });
    }
  }

  async function json(what: string, path: string, call: HttpCall = {}, shape?: (value: unknown) => boolean): Promise<unknown> {
    const response = await send(what, path, call);
    let body: unknown;
    if (response.status !== 204) {
      if (!response.ok) {
        const said = await errorSentence(response);
        const failure = failureOf(response.status);
        throw new HttpError(say(what, { kind: 'answered', status: response.status, said, failure }), { failure, status: response.status, ...(said === undefined ? {} : { said }) });
      }
      try {
        body = await response.json();
      } catch (cause) {
        throw new HttpError(say(what, { kind: 'not-json', status: response.status }), { failure: 'refused', status: response.status, cause });
      }
    }
    if (shape !== undefined && !shape(body)) throw new HttpError(say(what, { kind: 'misshapen' }), { failure: 'refused' });
    return body;
  }

  return { send, json };
}

/** The server's own sentence, if it sent one. */
async function errorSentence(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.json();
    if (isRecord(body) && typeof body.error === 'string') return body.error;
    if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  } catch {
    // Not JSON: the status alone is said.
  }
  return undefined;
}
