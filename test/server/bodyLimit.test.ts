/**
 * A request refused for the size of its body (413) must not break the client's next request on the
 * same keep-alive connection: the server answers with `Connection: close`, so the unread rest of the
 * big body is never taken for the start of the next request.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app';
import { createBackend } from '../../server/backend';
import { DEFAULT_PRICES } from '../../server/backendConfig';
import { loadBots } from '../../server/bots';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { hashEmbedder } from '../../server/memory/embed';
import { serveApp } from './chat/localServers';
import type { Listening } from './chat/localServers';

const config = { distDir: '/nonexistent', modelsDir: '/nonexistent', modelBase: { kind: 'hub' } as const, modelVersion: 'supertonic-3' as const };

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
  let db: Database;
  let server: Listening;
  beforeAll(async () => {
    db = await openDatabase({ dataDir: 'memory://' });
    const api = createBackend({
      db,
      bots: await loadBots('bots'),
      grantSecret: randomBytes(32),
      personMode: { kind: 'local' },
      providers: [],
      live: false,
      prices: DEFAULT_PRICES,
      speech: undefined,
      embedder: hashEmbedder,
      clock: Date.now,
      log: () => undefined,
    });
    server = await serveApp(createApp({ config, api }));
  });
  afterAll(async () => {
    await server.close();
    await db.close();
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
