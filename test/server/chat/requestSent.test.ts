import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { REQUEST_ID_HEADER, fetchTellingSent } from '../../../server/chat/requestSent';

let close: (() => void) | undefined;
afterEach(() => {
  close?.();
  close = undefined;
});

describe('telling when a request has left', () => {
  it('tells once the body is written, before the server has answered, and gives each request its own id', async () => {
    const seen: { id: string | undefined; sentBeforeAnswer: boolean }[] = [];
    let sent = 0;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        seen.push({ id: request.headers[REQUEST_ID_HEADER] as string | undefined, sentBeforeAnswer: sent === seen.length + 1 });
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => server.close();
    const url = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;
    const fetching = fetchTellingSent(fetch, () => {
      sent += 1;
    });
    for (let i = 0; i < 2; i++) {
      const response = await fetching(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'x'.repeat(50_000) }) });
      expect(await response.text()).toBe('ok');
    }
    expect(sent).toBe(2);
    expect(seen.map((s) => s.sentBeforeAnswer)).toEqual([true, true]);
    expect(seen[0]?.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[1]?.id).not.toBe(seen[0]?.id);
  });

  it('tells once it is answered, or has failed, with a fetch that reports nothing', async () => {
    let sent = 0;
    const answered = fetchTellingSent(() => Promise.resolve(new Response('ok')), () => (sent += 1));
    await answered('http://example.invalid/');
    expect(sent).toBe(1);
    const failing = fetchTellingSent(() => Promise.reject(new TypeError('fetch failed')), () => (sent += 1));
    await expect(failing('http://example.invalid/')).rejects.toThrow('fetch failed');
    expect(sent).toBe(2);
  });
});
