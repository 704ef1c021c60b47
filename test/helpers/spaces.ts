/**
 * A body of spaces streamed to a request until the server answers: what the body door's tests and
 * `bench bad-input` send past a route's cap. Writes honour back-pressure, and stop the moment
 * `answered()` says the server has spoken (it may close the connection on the rest).
 */
import type { ClientRequest } from 'node:http';

/** The piece the body is sent in: 16 KiB of spaces. */
export const SPACES = Buffer.alloc(16 * 1024, ' ');

/** Writes up to `totalBytes` of spaces (whole pieces) to `req`, then ends it, unless answered first. */
export function streamSpaces(req: ClientRequest, totalBytes: number, answered: () => boolean): void {
  let sent = 0;
  const more = (): void => {
    while (!answered() && sent < totalBytes) {
      sent += SPACES.length;
      if (!req.write(SPACES)) {
        req.once('drain', more);
        return;
      }
    }
    if (!answered()) req.end();
  };
  more();
}
