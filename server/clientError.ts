/**
 * What a client that breaks HTTP itself hears: Node answers a request it cannot parse (a body with
 * no length on a DELETE, a header line too long, garbage) before any route runs, with a bare status
 * and a reset while the client may still be sending. Here it gets a status and a sentence in the
 * API's `{error}` shape, and the connection is closed once that is written. A request that broke
 * HTTP has no headers to read a language from (and comes from a program, not a page), so the
 * sentence is in the server's own language, from its words files (`## requests`).
 */
import type { Socket } from 'node:net';
import { BASE_LANGUAGE, shippedWords } from './words/loadWords';
import { say } from './words/words';
import type { WordKey } from './words/words';

/** Node's `clientError` codes with a status of their own; anything else is a 400. */
const STATUS_OF: Readonly<Record<string, { status: number; reason: string; word: WordKey }>> = Object.freeze({
  HPE_HEADER_OVERFLOW: { status: 431, reason: 'Request Header Fields Too Large', word: 'requests.headers-too-large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', word: 'requests.too-slow' },
});

const MALFORMED = { status: 400, reason: 'Bad Request', word: 'requests.malformed' } as const;

/** The raw response for `error`, as bytes ready for the socket. */
function brokenRequestAnswer(error: Error & { code?: string }): string {
  const { status, reason, word } = STATUS_OF[error.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ error: say(shippedWords().wordsIn(BASE_LANGUAGE), word) });
  return [
    `HTTP/1.1 ${status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    'X-Content-Type-Options: nosniff',
    '',
    body,
  ].join('\r\n');
}

/** A `clientError` listener for Node's HTTP server: answer in words, then close. */
export function answerBrokenRequest(error: Error & { code?: string }, socket: Socket): void {
  // A connection the client already dropped has nothing left to hear; one with a response in flight
  // (Node's `_httpMessage`) would get two answers interleaved, so it is closed unanswered.
  if (error.code === 'ECONNRESET' || !socket.writable || (socket as Socket & { _httpMessage?: object | null })._httpMessage != null) {
    socket.destroy();
    return;
  }
  socket.end(brokenRequestAnswer(error));
}
