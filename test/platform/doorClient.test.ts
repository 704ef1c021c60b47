import { describe, expect, it } from 'vitest';
import { AnswerError, streamAnswer } from '../../src/platform/doorClient';
import type { AnswerItem } from '../../src/platform/doorClient';

const encoder = new TextEncoder();
const chunk = (content: string) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;

/** A fetch answering with an SSE body sent in the given raw pieces; records the request and whether the body was cancelled. */
function sse(pieces: string[], status = 200) {
  const seen: { init?: RequestInit; cancelled: boolean; pulls: number } = { cancelled: false, pulls: 0 };
  const fetcher = ((_input: unknown, init?: RequestInit) => {
    seen.init = init;
    let i = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        seen.pulls += 1;
        const piece = pieces[i++];
        if (piece === undefined) controller.close();
        else controller.enqueue(encoder.encode(piece));
      },
      cancel() {
        seen.cancelled = true;
      },
    });
    return Promise.resolve(new Response(body, { status, headers: { 'content-type': 'text/event-stream' } }));
  }) as typeof fetch;
  return { fetcher, seen };
}

/** The text items of an answer, as strings. */
async function collect(iterable: AsyncIterable<AnswerItem>): Promise<string[]> {
  const out: string[] = [];
  for await (const item of iterable) if (item.type === 'text') out.push(item.text);
  return out;
}

async function items(iterable: AsyncIterable<AnswerItem>): Promise<AnswerItem[]> {
  const out: AnswerItem[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const named = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const pending = { id: 'act-1', verb: 'lists.clear', question: 'Clear your shopping list? Say yes or no.', expiresAtMs: 1_700_000_060_000 };

describe('the door client', () => {
  it('asks with the grant for a stream and yields each token as it lands, events split anywhere', async () => {
    const whole = chunk('Hello') + ': keep-alive\n\n' + chunk(' there.') + 'data: [DONE]\n\n';
    const { fetcher, seen } = sse([whole.slice(0, 7), whole.slice(7, 40), whole.slice(40, 41), whole.slice(41)]);
    const messages = [{ role: 'user' as const, content: 'hi' }];
    const texts = await collect(streamAnswer({ grant: 'g.1', messages, signal: new AbortController().signal }, fetcher));
    expect(texts).toEqual(['Hello', ' there.']);
    expect(new Headers(seen.init?.headers).get('authorization')).toBe('Bearer g.1');
    expect(JSON.parse(seen.init?.body as string)).toMatchObject({ stream: true, messages });
  });

  it('cancels the body when aborted, and throws the abort rather than an answer error', async () => {
    const { fetcher, seen } = sse([chunk('One.'), chunk(' Two.'), chunk(' Three.'), 'data: [DONE]\n\n']);
    const controller = new AbortController();
    const texts: string[] = [];
    const reason = new Error('barge-in');
    await expect(
      (async () => {
        for await (const item of streamAnswer({ grant: 'g', messages: [], signal: controller.signal }, fetcher)) {
          if (item.type === 'text') texts.push(item.text);
          controller.abort(reason);
        }
      })(),
    ).rejects.toBe(reason);
    expect(texts).toEqual(['One.']);
    expect(seen.cancelled).toBe(true);
  });

  it('calls a stream that ends without [DONE] broken, and a garbled event too', async () => {
    await expect(collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, sse([chunk('Half')]).fetcher))).rejects.toMatchObject({ failure: 'broken' });
    await expect(collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, sse(['data: {nope\n\n']).fetcher))).rejects.toBeInstanceOf(AnswerError);
  });

  it('tells an expired grant from a refusal and from an unreachable server', async () => {
    const answering = (status: number, body: unknown) => (() => Promise.resolve(new Response(JSON.stringify(body), { status }))) as typeof fetch;
    const ask = (fetcher: typeof fetch) => collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, fetcher));
    await expect(ask(answering(401, { error: { message: 'bad grant' } }))).rejects.toMatchObject({ failure: 'expired' });
    await expect(ask(answering(400, { error: { message: 'messages must be an array.' } }))).rejects.toMatchObject({ failure: 'refused', message: expect.stringContaining('messages must be an array.') as unknown });
    await expect(ask(answering(502, {}))).rejects.toMatchObject({ failure: 'unreachable' });
    await expect(ask((() => Promise.reject(new TypeError('network'))))).rejects.toMatchObject({ failure: 'unreachable' });
  });

  it('says a failure the door sent in the stream as the same failure answered over HTTP, whatever came before it', async () => {
    const failing = (error: unknown, before: string[] = []) =>
      collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, sse([...before, `data: ${JSON.stringify({ error })}\n\n`]).fetcher));
    const noProvider = { message: 'No provider answered: "alpha" answered 429.', type: 'api_error', param: null, code: 'no_provider_answered' };
    await expect(failing(noProvider)).rejects.toMatchObject({
      failure: 'unreachable',
      message: 'No answer could be had just now: No provider answered: "alpha" answered 429. Say it again in a moment.',
    });
    await expect(failing({ message: 'Something went wrong on the server.', type: 'server_error' }, [chunk('Half an')])).rejects.toMatchObject({ failure: 'unreachable' });
    await expect(failing({ message: 'The grant was refused.', type: 'authentication_error' })).rejects.toMatchObject({ failure: 'expired' });
    await expect(failing({ message: 'Not this.', type: 'invalid_request_error' })).rejects.toMatchObject({ failure: 'refused', message: 'Not this.' });
  });

  it('sends the conversation’s key and the person’s time zone, and neither when it has none', async () => {
    const { fetcher, seen } = sse(['data: [DONE]\n\n']);
    await collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal, conversationKey: 'thread:t-1', timeZone: 'Europe/Paris' }, fetcher));
    const headers = new Headers(seen.init?.headers);
    expect(headers.get('x-confab-conversation')).toBe('thread:t-1');
    expect(headers.get('x-confab-time-zone')).toBe('Europe/Paris');
    const bare = sse(['data: [DONE]\n\n']);
    await collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, bare.fetcher));
    expect(new Headers(bare.seen.init?.headers).has('x-confab-conversation')).toBe(false);
    expect(new Headers(bare.seen.init?.headers).has('x-confab-time-zone')).toBe(false);
  });

  it('sends the turn’s id as x-confab-turn, and none when it has none', async () => {
    const { fetcher, seen } = sse(['data: [DONE]\n\n']);
    await collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal, turn: '6f1c2a4e-0d2b-4c6e-9a51-3b7d8e9f0a1b' }, fetcher));
    expect(new Headers(seen.init?.headers).get('x-confab-turn')).toBe('6f1c2a4e-0d2b-4c6e-9a51-3b7d8e9f0a1b');
    const bare = sse(['data: [DONE]\n\n']);
    await collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, bare.fetcher));
    expect(new Headers(bare.seen.init?.headers).has('x-confab-turn')).toBe(false);
  });

  it('sends the reader’s language as x-confab-language, and none when it has none', async () => {
    const { fetcher, seen } = sse(['data: [DONE]\n\n']);
    await collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal, language: 'es' }, fetcher));
    expect(new Headers(seen.init?.headers).get('x-confab-language')).toBe('es');
    const bare = sse(['data: [DONE]\n\n']);
    await collect(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, bare.fetcher));
    expect(new Headers(bare.seen.init?.headers).has('x-confab-language')).toBe(false);
  });

  it('yields the door’s verb and confirm events in stream order with the text, each split across reads', async () => {
    const whole =
      chunk('Sure. ') +
      named('confab.verb', { verb: 'lists.add', ok: true }) +
      named('confab.verb', { verb: 'lists.remove', ok: false, code: 'invalid_input' }) +
      named('confab.confirm', pending) +
      chunk(pending.question) +
      'data: [DONE]\n\n';
    // Cut every few characters, so event names, data lines and the blank line between land apart.
    const pieces: string[] = [];
    for (let at = 0; at < whole.length; at += 5) pieces.push(whole.slice(at, at + 5));
    const got = await items(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, sse(pieces).fetcher));
    expect(got).toEqual([
      { type: 'text', text: 'Sure. ' },
      { type: 'verb', event: { verb: 'lists.add', ok: true } },
      { type: 'verb', event: { verb: 'lists.remove', ok: false, code: 'invalid_input' } },
      { type: 'confirm', action: pending },
      { type: 'text', text: pending.question },
    ]);
  });

  it('passes over events of names it does not know, and a named event with CRLF line ends is still read', async () => {
    const whole =
      named('confab.presence', { who: 'elsewhere' }) +
      'event: message\ndata: ' + JSON.stringify({ choices: [{ delta: { content: 'Hi.' } }] }) + '\n\n' +
      `event: confab.confirm\r\ndata: ${JSON.stringify(pending)}\r\n\r\n` +
      'data: [DONE]\n\n';
    const got = await items(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, sse([whole]).fetcher));
    expect(got).toEqual([{ type: 'text', text: 'Hi.' }, { type: 'confirm', action: pending }]);
  });

  it('calls a known event of the wrong shape broken', async () => {
    const whole = named('confab.confirm', { id: 'a' }) + 'data: [DONE]\n\n';
    await expect(items(streamAnswer({ grant: 'g', messages: [], signal: new AbortController().signal }, sse([whole]).fetcher))).rejects.toMatchObject({ failure: 'broken' });
  });
});
