import { describe, expect, it } from 'vitest';
import { readSse } from '../../../server/chat/sse';

/** A body that delivers `parts` as separate reads. */
function body(parts: readonly string[]): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  const encoder = new TextEncoder();
  let index = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[index++];
      if (part === undefined) controller.close();
      else controller.enqueue(encoder.encode(part));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

async function all(parts: readonly string[]): Promise<string[]> {
  const events: string[] = [];
  for await (const data of readSse(body(parts).stream)) events.push(data);
  return events;
}

describe('reading server-sent events', () => {
  it('yields each event’s data, whatever the read boundaries', async () => {
    expect(await all(['data: {"a":1}\n\ndata: {"b":', '2}\n', '\ndata: [DONE]\n\n'])).toEqual(['{"a":1}', '{"b":2}', '[DONE]']);
  });

  it('takes CRLF and CR line ends, including a CRLF split across reads', async () => {
    expect(await all(['data: one\r', '\n\r\ndata: two\r\rdata:three\n\n'])).toEqual(['one', 'two', 'three']);
  });

  it('skips comments and other fields, and joins several data lines with a line feed', async () => {
    expect(await all([': keep-alive\n\nevent: message\nid: 7\ndata: first\ndata: second\n\n'])).toEqual(['first\nsecond']);
  });

  it('dispatches a last event that has no blank line after it', async () => {
    expect(await all(['data: a\n\ndata: tail'])).toEqual(['a', 'tail']);
  });

  it('decodes a character split across reads', async () => {
    const bytes = new TextEncoder().encode('data: café\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 10));
        controller.enqueue(bytes.slice(10));
        controller.close();
      },
    });
    const events: string[] = [];
    for await (const data of readSse(stream)) events.push(data);
    expect(events).toEqual(['café']);
  });

  it('cancels the body when the reader stops early', async () => {
    const source = body(['data: a\n\n', 'data: b\n\n', 'data: c\n\n']);
    for await (const data of readSse(source.stream)) {
      if (data === 'a') break;
    }
    expect(source.cancelled()).toBe(true);
  });
});
