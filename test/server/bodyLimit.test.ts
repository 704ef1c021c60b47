/**
 * A request refused for the size of its body (413) must not break the client's next request on the
 * same keep-alive connection: the server answers with `Connection: close`, so the unread rest of the
 * big body is never taken for the start of the next request.
 */
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../server/bots';
import { openTestBackend } from '../helpers/testBackend';
import type { TestBackend } from '../helpers/testBackend';
import { serveApp } from './chat/localServers';
import type { Listening } from './chat/localServers';

function post(agent: Agent, url: string, path: string, body: Buffer): Promise<{ status: number; connection: string | undefined; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text: Buffer.concat(parts).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a body too large', () => {
  let backend: TestBackend;
  let server: Listening;
  beforeAll(async () => {
    backend = await openTestBackend({ bots: await loadBots('bots') });
    server = await serveApp(backend.app);
  });
  afterAll(async () => {
    await server.close();
    await backend.close();
  });

  it('is refused with Connection: close, and the next request on the same keep-alive agent is answered', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (const path of ['/v1/chat/completions', '/api/start']) {
        const refused = await post(agent, server.url, path, Buffer.alloc(2 * 1024 * 1024, 'a'));
        expect(refused.status).toBe(413);
        expect(refused.connection).toBe('close');
        const next = await post(agent, server.url, '/api/start', Buffer.from(JSON.stringify({ bot: 'demo' })));
        expect(next.status).toBe(200);
        expect(next.text).toContain('"grant"');
      }
    } finally {
      agent.destroy();
    }
  });
});
