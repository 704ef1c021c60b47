import { afterEach, describe, expect, it, vi } from 'vitest';
import { presenceClient } from '../../src/platform/presenceClient';
import type { PresenceMessage } from '../../common/presence/protocol';

const me = { page: 'this-page-0001', device: 'laptop-00001' };

/** A stream the test writes to, as the server's would be. */
function sseStream(signal?: AbortSignal | null) {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
  });
  // As fetch does: aborting the request errors its body.
  signal?.addEventListener('abort', () => {
    controller.error(signal.reason);
  });
  return {
    body,
    write: (text: string) => { controller.enqueue(encoder.encode(text)); },
    end: () => { controller.close(); },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the presence client', () => {
  it('reads the stream message by message, passing over what it does not know, and opens it again with the since it has then', async () => {
    vi.useFakeTimers();
    const streams: ReturnType<typeof sseStream>[] = [];
    const asked: string[] = [];
    const fetcher = ((url: string) => {
      asked.push(url);
      const stream = sseStream();
      streams.push(stream);
      return Promise.resolve(new Response(stream.body, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
    }) as typeof fetch;
    const messages: PresenceMessage[] = [];
    const states: string[] = [];
    let since: number | null = null;
    const handle = presenceClient(fetcher).open({ bot: 'demo', me, since: () => since, onMessage: (m) => messages.push(m), onState: (s) => states.push(s) });
    await vi.advanceTimersByTimeAsync(0);
    expect(asked[0]).toBe('/api/presence?bot=demo&page=this-page-0001&device=laptop-00001');
    const first = streams[0];
    if (first === undefined) throw new Error('no stream');
    first.write('event: hello\ndata: {"seat":{"role":"active","term":1,"active":null},"latestSeq":0,"owed":"nothing","conversation":null,"you":"00112233445566778899aabb"}\n\n: ping\n\n');
    first.write('event: event\ndata: {"sequenced":{"seq":5,"atMs":1,"event":{"kind":"notice","text":"Hi."}}}\n\nevent: mystery\ndata: {}\n\nevent: event\ndata: not json\n\n');
    await vi.advanceTimersByTimeAsync(0);
    expect(messages.map((m) => m.type)).toEqual(['hello', 'event']);
    expect(states).toEqual(['connecting', 'open']);
    since = 5;
    first.end();
    await vi.advanceTimersByTimeAsync(250);
    expect(states.at(-2)).toBe('down');
    expect(asked[1]).toBe('/api/presence?bot=demo&page=this-page-0001&device=laptop-00001&since=5');
    handle.close();
  });

  it('takes a silent stream for dead and opens another', async () => {
    vi.useFakeTimers();
    let opened = 0;
    const fetcher = ((_url: string, init?: RequestInit) => {
      opened += 1;
      return Promise.resolve(new Response(sseStream(init?.signal).body, { status: 200 }));
    }) as typeof fetch;
    const handle = presenceClient(fetcher).open({ bot: 'demo', me, since: () => null, onMessage: () => undefined, silentMs: 1_000 });
    await vi.advanceTimersByTimeAsync(0);
    expect(opened).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000 + 250);
    expect(opened).toBe(2);
    handle.close();
  });

  it('claims to be the active page and publishes, saying plainly when the server cannot be reached', async () => {
    const bodies: unknown[] = [];
    const fetcher = ((url: string, init?: RequestInit) => {
      bodies.push({ url, body: JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as unknown });
      if (url.endsWith('/active')) return Promise.resolve(Response.json({ seat: { role: 'active', term: 3, active: me } }));
      return Promise.resolve(Response.json({ seqs: [7, 8], seat: { role: 'active', term: 3, active: me } }));
    }) as typeof fetch;
    const client = presenceClient(fetcher);
    expect(await client.claim('demo', me)).toEqual({ role: 'active', term: 3, active: me });
    expect(await client.publish({ bot: 'demo', page: me.page, events: [], live: null })).toEqual({ seqs: [7, 8], seat: { role: 'active', term: 3, active: me } });
    expect(bodies[0]).toEqual({ url: '/api/presence/active', body: { bot: 'demo', ...me } });
    const offline = presenceClient((() => Promise.reject(new TypeError('Failed to fetch'))));
    await expect(offline.claim('demo', me)).rejects.toThrow('Confab’s server could not be reached to make this page the active one.');
    const refusing = presenceClient((() => Promise.resolve(new Response('{}', { status: 400 }))));
    await expect(refusing.publish({ bot: 'demo', page: me.page, events: [], live: null })).rejects.toThrow('(400)');
  });
});
