import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { providerFetch } from '../../../server/chat/providerFetch';
import type { ProviderInit } from '../../../server/chat/providerFetch';
import { deferred, listen } from './localServers';
import type { Listening } from './localServers';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Listening | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that reads each request's body before handing it to `handler`. */
async function serving(handler: Handler): Promise<string> {
  server = await listen((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      handler(request, Buffer.concat(parts).toString('utf8'), response);
    });
  });
  return server.url;
}

const ask = (url: string, init: ProviderInit) => providerFetch(url, init);

describe('asking a provider over node:http', () => {
  it('sends the method, headers and body, and answers with the status, every header and the body', async () => {
    const seen: { method?: string; type?: string; length?: string; auth?: string; body: string }[] = [];
    const url = await serving((request, body, response) => {
      seen.push({ method: request.method, type: request.headers['content-type'], length: request.headers['content-length'], auth: request.headers.authorization, body });
      response.writeHead(201, 'Made', [['content-type', 'application/json'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']]);
      response.end(JSON.stringify({ ok: true }));
    });
    const body = JSON.stringify({ question: 'Où est la gare ?' });
    const response = await ask(`${url}/v1/chat/completions`, { method: 'post', headers: { authorization: 'Bearer k', 'content-type': 'application/json' }, body });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await response.json()).toEqual({ ok: true });
    expect(seen).toEqual([{ method: 'POST', type: 'application/json', length: String(Buffer.byteLength(body)), auth: 'Bearer k', body }]);
  });

  it('says a string body is text, as fetch does, and sends bytes as they are', async () => {
    const seen: { type?: string; body: string }[] = [];
    const url = await serving((request, body, response) => {
      seen.push({ type: request.headers['content-type'], body });
      response.end();
    });
    await ask(url, { method: 'POST', body: 'plain' });
    await ask(url, { method: 'POST', body: new TextEncoder().encode('bytes') });
    expect(seen).toEqual([
      { type: 'text/plain;charset=UTF-8', body: 'plain' },
      { type: undefined, body: 'bytes' },
    ]);
  });

  it('hands each chunk of a streamed answer over as it arrives, before the answer has ended', async () => {
    const more = deferred();
    const url = await serving((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      void more.promise.then(() => {
        response.end('data: two\n\n');
      });
    });
    const response = await ask(url, { method: 'POST', body: '{}' });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: one\n\n');
    more.resolve();
    const second = await reader.read();
    expect(decoder.decode(second.value)).toBe('data: two\n\n');
    expect((await reader.read()).done).toBe(true);
  });

  it('has no body for a 204 or a HEAD, as a Response must not', async () => {
    const url = await serving((request, _body, response) => {
      response.writeHead(request.method === 'HEAD' ? 200 : 204, { 'content-length': '0' });
      response.end();
    });
    expect((await ask(url, { method: 'POST', body: 'x' })).body).toBeNull();
    expect((await ask(url, { method: 'HEAD' })).body).toBeNull();
  });

  it('tells once when the request has left, before the provider answers', async () => {
    const answer = deferred();
    let sent = 0;
    const url = await serving((_request, _body, response) => {
      void answer.promise.then(() => {
        response.end('ok');
      });
    });
    const responding = ask(url, { method: 'POST', body: 'x'.repeat(100_000), onSent: () => (sent += 1) });
    await expect.poll(() => sent).toBe(1);
    answer.resolve();
    expect(await (await responding).text()).toBe('ok');
    expect(sent).toBe(1);
  });

  it('rejects as fetch does when nobody listens: TypeError "fetch failed", the cause attached', async () => {
    const url = await serving((_request, _body, response) => response.end());
    await server?.close();
    server = undefined;
    const failing = ask(url, { method: 'POST', body: 'x' });
    await expect(failing).rejects.toThrow(TypeError);
    await expect(failing).rejects.toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
  });

  it('rejects with the signal’s reason when aborted before it was sent or while waiting, and the provider sees the connection close', async () => {
    const stop = new Error('the person left');
    await expect(ask('http://127.0.0.1:9/', { method: 'POST', body: 'x', signal: AbortSignal.abort(stop) })).rejects.toBe(stop);

    const closed = deferred();
    const url = await serving((_request, _body, response) => {
      response.on('close', () => { closed.resolve(); });
    });
    const controller = new AbortController();
    const waiting = ask(url, { method: 'POST', body: 'x', signal: controller.signal, onSent: () => { controller.abort(stop); } });
    await expect(waiting).rejects.toBe(stop);
    await closed.promise;
  });

  it('errors the body with the signal’s reason when aborted mid-answer, and closes the connection', async () => {
    const closed = deferred();
    const url = await serving((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      response.on('close', () => { closed.resolve(); });
    });
    const controller = new AbortController();
    const response = await ask(url, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const stop = new Error('minutes ran out');
    controller.abort(stop);
    await expect(reader.read()).rejects.toBe(stop);
    await closed.promise;
  });

  it('closes the connection when the reader stops early', async () => {
    const closed = deferred();
    const url = await serving((_request, _body, response) => {
      response.writeHead(200);
      response.write('data: one\n\n');
      response.on('close', () => { closed.resolve(); });
    });
    const response = await ask(url, { method: 'POST', body: '{}' });
    await (response.body as ReadableStream<Uint8Array>).cancel();
    await closed.promise;
  });

  it('errors the body when the provider breaks the connection mid-answer', async () => {
    const url = await serving((_request, _body, response) => {
      response.writeHead(200);
      response.write('data: one\n\n');
      setTimeout(() => response.destroy(), 10);
    });
    const response = await ask(url, { method: 'POST', body: '{}' });
    await expect(response.text()).rejects.toThrow('terminated');
  });

  it('sends a request once more, on a new connection, when the kept-alive one is reset as it is reused', async () => {
    const sockets = new Set<unknown>();
    let requests = 0;
    const url = await serving((request, _body, response) => {
      requests += 1;
      sockets.add(request.socket);
      // The provider had closed the idle connection as the second request went out on it: reset.
      if (requests === 2) request.socket.resetAndDestroy();
      else response.end('ok');
    });
    expect(await (await ask(url, { method: 'POST', body: 'first' })).text()).toBe('ok');
    expect(await (await ask(url, { method: 'POST', body: 'second' })).text()).toBe('ok');
    expect(requests).toBe(3);
    expect(sockets.size).toBe(2);
  });

  it('does not send a request a third time when the new connection is reset too', async () => {
    let requests = 0;
    const url = await serving((request, _body, response) => {
      requests += 1;
      if (requests === 1) response.end('ok');
      else request.socket.resetAndDestroy();
    });
    await (await ask(url, { method: 'POST', body: 'first' })).text();
    await expect(ask(url, { method: 'POST', body: 'second' })).rejects.toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNRESET' } });
    expect(requests).toBe(3);
  });

  it('hands what it does not send itself (a streamed body) to the global fetch', async () => {
    const seen: string[] = [];
    const url = await serving((_request, body, response) => {
      seen.push(body);
      response.end('ok');
    });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed'));
        controller.close();
      },
    });
    let sent = 0;
    const response = await ask(url, { method: 'POST', body, duplex: 'half', onSent: () => (sent += 1) } as ProviderInit);
    expect(await response.text()).toBe('ok');
    expect(seen).toEqual(['streamed']);
    expect(sent).toBe(1);
  });
});
