/**
 * `fetch` for the requests the server makes of providers, over Node's own HTTP client.
 *
 * The global `fetch` (undici) builds a spec-complete Request, turns even a string body into a
 * stream it writes chunk by chunk, and hands the answer back through the same machinery. Side by
 * side against a local provider on the 2-core machine the benchmarks run on, a question reached it
 * ~0.55 ms sooner and its first chunk came back ~0.9 ms sooner over `node:http`; through the door,
 * the first token came 0.2–0.4 ms sooner (A/B in two runs of the door benchmark's turns). A voice
 * answer waits for that first chunk, so every question the server asks a provider goes this way.
 *
 * It takes what the server sends — a string or bytes as the body, headers, a signal — and answers as
 * `fetch` does: a `Response` whose body streams as it arrives; a request that cannot be made
 * rejects with `TypeError('fetch failed')` (the cause attached), one aborted rejects with the
 * signal's reason, and a body cut by the signal or by the connection errors its stream likewise.
 * Anything else (a streamed or form body, a `Request` object) is handed to the global `fetch`.
 * Redirects are not followed (no provider redirects a question; the answer is the 3xx), and no
 * compression is asked for, so none has to be undone.
 *
 * One more thing than `fetch`: `onSent` in the init is called once the request, body and all, has
 * been handed to the operating system — when the provider has the question and this thread is free
 * to do work that must not hold it up.
 *
 * A connection kept alive that the provider closed while it sat idle fails the next request before
 * a byte of answer; that request is sent once more on a new connection, as Node's documentation
 * advises, since the provider never saw it. Idle connections are closed after 4 s, or sooner when
 * the provider's `Keep-Alive` header says it will close them.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** `fetch`'s init, and when the request has left. */
export type ProviderInit = RequestInit & { onSent?: () => void };

const IDLE_CONNECTION_MS = 4_000;
const agents = {
  'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' }),
  'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' }),
};

/** Statuses whose response has no body, by the HTTP rules `Response` enforces. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

export const providerFetch = ((input: string | URL | Request, init?: ProviderInit): Promise<Response> => {
  const body = init?.body;
  const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
  const bytes = body === undefined || body === null ? undefined : typeof body === 'string' ? Buffer.from(body) : ArrayBuffer.isView(body) ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : body instanceof ArrayBuffer ? Buffer.from(body) : null;
  if (url === undefined || bytes === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const sent = init?.onSent;
    const answered = fetch(input, init);
    if (sent !== undefined) answered.then(sent, sent);
    return answered;
  }
  const signal = init?.signal ?? undefined;
  if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
  const headers = headersOf(init?.headers, typeof body === 'string', bytes);
  const method = (init?.method ?? 'GET').toUpperCase();
  const onSent = init?.onSent;
  let told = false;
  const tell = onSent === undefined ? undefined : () => {
    if (told) return;
    told = true;
    onSent();
  };
  return send(url, { method, headers, agent: agents[url.protocol] }, bytes, signal, tell, true);
}) as typeof fetch;

function headersOf(given: RequestInit['headers'], text: boolean, bytes: Buffer | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(given).forEach((value, name) => {
    headers[name] = value;
  });
  if (bytes !== undefined) {
    headers['content-length'] = String(bytes.byteLength);
    if (text && headers['content-type'] === undefined) headers['content-type'] = 'text/plain;charset=UTF-8';
  }
  return headers;
}

function send(url: URL, options: RequestOptions, bytes: Buffer | undefined, signal: AbortSignal | undefined, onSent: (() => void) | undefined, mayRetry: boolean): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const request: ClientRequest = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options);
    let answered = false;
    const onAbort = () => {
      request.destroy();
      if (!answered) reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const unlisten = () => signal?.removeEventListener('abort', onAbort);

    // Listened to for good, not once: an error after the first must not go unheard.
    let failed = false;
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (answered || failed || signal?.aborted === true) return;
      failed = true;
      unlisten();
      // A kept-alive connection the provider had closed: it never saw this request.
      if (mayRetry && request.reusedSocket && error.code === 'ECONNRESET') {
        send(url, options, bytes, signal, onSent, false).then(resolve, reject);
        return;
      }
      reject(new TypeError('fetch failed', { cause: error }));
    });
    if (onSent !== undefined) request.once('finish', onSent);
    request.once('response', (incoming: IncomingMessage) => {
      answered = true;
      try {
        resolve(responseOf(incoming, options.method === 'HEAD', signal, unlisten));
      } catch (error) {
        unlisten();
        incoming.destroy();
        reject(new TypeError('fetch failed', { cause: error }));
      }
    });
    request.end(bytes);
  });
}

function responseOf(incoming: IncomingMessage, head: boolean, signal: AbortSignal | undefined, done: () => void): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i] ?? '', incoming.rawHeaders[i + 1] ?? '');
  const status = incoming.statusCode ?? 0;
  if (head || NO_BODY.has(status)) {
    incoming.resume();
    done();
    return new Response(null, { status, statusText: incoming.statusMessage ?? '', headers });
  }
  let ended = false;
  let onAbort: (() => void) | undefined;
  const end = () => {
    ended = true;
    done();
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (reason: unknown) => {
        if (ended) return;
        end();
        controller.error(reason);
      };
      incoming.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        // Read no faster than the reader: the socket waits while the queue is full.
        if ((controller.desiredSize ?? 1) <= 0) incoming.pause();
      });
      incoming.once('end', () => {
        if (ended) return;
        end();
        controller.close();
      });
      incoming.on('error', (error) => {
        fail(signal?.aborted === true ? signal.reason : new TypeError('terminated', { cause: error }));
      });
      incoming.once('close', () => {
        // Closed before its end: the connection broke, or the signal cut it.
        if (!incoming.complete) fail(signal?.aborted === true ? signal.reason : new TypeError('terminated'));
      });
      onAbort = () => {
        fail(signal?.reason);
        incoming.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      end();
      incoming.destroy();
    },
  });
  return new Response(body, { status, statusText: incoming.statusMessage ?? '', headers });
}
