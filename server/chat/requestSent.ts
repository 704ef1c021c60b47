/**
 * When a request to a provider has left this process: its body written to the socket, as
 * `providerFetch` tells through `onSent`, or as the global `fetch` (undici) reports on the
 * `undici:request:bodySent` diagnostics channel. The door uses it to queue work that would hold this
 * thread — an embedded database's statements run on it — behind the question, not in front of it.
 *
 * Requests are told apart by `x-client-request-id`, the header OpenAI's API takes for a caller's
 * own id of a request (and other OpenAI-shaped servers ignore): the door gives each one a fresh id.
 */
import { randomUUID } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import type { ProviderInit } from './providerFetch';

export const REQUEST_ID_HEADER = 'x-client-request-id';

const waiting = new Map<string, () => void>();
let listening = false;

/** The id in undici's request headers: a flat [name, value, …] list, or one string of lines. */
function requestIdOf(headers: unknown): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === REQUEST_ID_HEADER) return String(headers[i + 1]);
    }
    return undefined;
  }
  if (typeof headers === 'string') {
    const line = headers.split('\r\n').find((l) => l.toLowerCase().startsWith(`${REQUEST_ID_HEADER}:`));
    return line?.slice(REQUEST_ID_HEADER.length + 1).trim();
  }
  return undefined;
}

function listen(): void {
  if (listening) return;
  listening = true;
  subscribe('undici:request:bodySent', (message) => {
    const id = requestIdOf((message as { request?: { headers?: unknown } }).request?.headers);
    if (id === undefined) return;
    const sent = waiting.get(id);
    waiting.delete(id);
    sent?.();
  });
}

/**
 * `fetch`, giving each request its own id and calling `onSent` once when it has left — or, with a
 * `fetch` that reports neither way, once it has been answered or has failed.
 */
export function fetchTellingSent(fetcher: typeof fetch, onSent: () => void): typeof fetch {
  listen();
  return (input, init) => {
    const id = randomUUID();
    const headers = new Headers(init?.headers);
    headers.set(REQUEST_ID_HEADER, id);
    let told = false;
    const tell = () => {
      waiting.delete(id);
      if (told) return;
      told = true;
      onSent();
    };
    waiting.set(id, tell);
    const response = fetcher(input, { ...init, headers, onSent: tell } as ProviderInit);
    response.then(tell, tell);
    return response;
  };
}
