import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { answerBrokenRequest } from '../../server/clientError';

/** Sends `raw` on a fresh connection and resolves with everything the server wrote before it closed. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => { resolve(Buffer.concat(chunks).toString('utf8')); });
  });
}

/** The `{error}` sentence of a raw answer's body. */
function sentenceOf(body: string | undefined): string {
  return (JSON.parse(body ?? '') as { error: string }).error;
}

describe('a request that breaks HTTP itself', () => {
  const servers: { close: () => void }[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) server.close();
  });

  async function listening(): Promise<number> {
    const app = new Hono();
    app.all('*', (c) => c.json({ ok: true }));
    return new Promise((resolve) => {
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => { resolve(info.port); });
      server.on('clientError', answerBrokenRequest);
      servers.push(server);
    });
  }

  it('is answered 400 with a sentence and a closed connection after an answered request, not with a reset', async () => {
    const port = await listening();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'));
      let seen = '';
      socket.on('data', (chunk: Buffer) => {
        const first = seen === '';
        seen += chunk.toString('utf8');
        // The first request answered, the same connection then sends what is no request.
        if (first) socket.write('{"not": "a request"}\r\n\r\n');
      });
      socket.on('error', reject);
      socket.on('close', () => { resolve(seen); });
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    const broken = answer.slice(answer.lastIndexOf('HTTP/1.1 '));
    expect(broken).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(broken).toMatch(/connection: close/i);
    expect(sentenceOf(broken.split('\r\n\r\n')[1])).toMatch(/Content-Length or chunked/);
  });

  it('says headers too large with 431', async () => {
    const port = await listening();
    const answer = await exchange(port, `GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large/);
    expect(sentenceOf(answer.split('\r\n\r\n')[1])).toMatch(/headers are too large/);
  });

  it('is answered 400 with a sentence when the first line is garbage', async () => {
    const port = await listening();
    const answer = await exchange(port, 'HELLO THERE\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    expect(sentenceOf(answer.split('\r\n\r\n')[1])).toMatch(/not well-formed HTTP/);
  });
});
