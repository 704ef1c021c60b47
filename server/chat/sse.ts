/**
 * Server-sent events as they arrive: the `data` of each event from a byte stream, following the
 * WHATWG event-stream rules that matter to the providers — lines end in LF, CRLF or CR,
 * `:` lines are comments (some providers send them as keep-alives), several `data:` lines join
 * with a line feed, and an event is dispatched at a blank line (or at the end of the stream).
 */

/** Yields each event's data as soon as its blank line has arrived. Stopping early cancels the body. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<string, void, undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  // A CR at the very end of a read may be the first half of a CRLF split across reads.
  let pendingCr = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (pendingCr && buffer.startsWith('\n')) buffer = buffer.slice(1);
      pendingCr = false;
      let match: RegExpExecArray | null;
      while ((match = /\r\n|\r|\n/.exec(buffer)) !== null) {
        if (match[0] === '\r' && match.index === buffer.length - 1 && !done) {
          pendingCr = true;
        }
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
        }
        // Comments and the event/id/retry fields carry nothing a provider's stream needs: Anthropic's data names its own type.
      }
      if (done) {
        if (buffer.startsWith('data:')) data.push(buffer.slice(buffer.startsWith('data: ') ? 6 : 5));
        if (data.length > 0) yield data.join('\n');
        return;
      }
    }
  } finally {
    // Runs when the consumer stops early too: the rest of the body is not wanted.
    await reader.cancel().catch(() => undefined);
  }
}
