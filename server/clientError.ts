/**
 * What a client that breaks HTTP itself hears: Node answers a request it cannot parse (a body with
 * no length on a DELETE, a header line too long, garbage) before any route runs, with a bare status
 * and a reset while the client may still be sending. Here it gets a status and a sentence in the
 * API's `{error}` shape, and the connection is closed once that is written.
 */
import type { Socket } from 'node:net';

/** Node's `clientError` codes with a status of their own; anything else is a 400. */
const STATUS_OF: Readonly<Record<string, { status: number; reason: string; sentence: string }>> = Object.freeze({
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    sentence: 'The request headers are too large; send fewer or shorter headers.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    sentence: 'The request took too long to arrive; send it again.',
  },
});

const MALFORMED = {
  status: 400,
  reason: 'Bad Request',
  sentence: 'The request is not well-formed HTTP (a body needs a Content-Length or chunked encoding); send it again as an HTTP client would.',
};

/** The raw response for `error`, as bytes ready for the socket. */
export function brokenRequestAnswer(error: Error & { code?: string }): string {
  const { status, reason, sentence } = STATUS_OF[error.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ error: sentence });
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
