/**
 * One door for every request body (server/bodyCap.ts): the app's own route table is walked, and
 * every route that takes a body is sent a chunked body past its cap over HTTP — one 413 each, the
 * connection closed, and the server answering the next request. A body within its cap reaches the
 * route whole; one that stops arriving is refused 408 on the door's clock, never held open.
 */
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app';
import { BODY_CAP_BYTES, BODY_TIMING_DEFAULTS, bodyRoutes } from '../../server/bodyCap';
import { loadBots } from '../../server/bots';
import { createBackend } from '../../server/backend';
import { LINE_BODY_MAX_BYTES } from '../../server/conversations';
import type { Database } from '../../server/db/database';
import { manualClock } from '../helpers/manualClock';
import { SPACES, streamSpaces } from '../helpers/spaces';
import { openTestBackend, TEST_APP_CONFIG, testBackendDeps } from '../helpers/testBackend';
import type { TestBackend } from '../helpers/testBackend';
import { serveApp } from './chat/localServers';
import type { Listening } from './chat/localServers';
import { openTestDatabase } from '../helpers/testDatabase';


interface Answered {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** A route path with a made-up value for each parameter. */
function concrete(path: string): string {
  return path.replace(/:[a-z]+/gi, '00000000-0000-4000-8000-000000000000');
}

/**
 * Sends `method path` a body of spaces, 16 KiB at a time, until the server answers or `totalBytes`
 * are sent; the answer. Chunked (no length declared), or with its whole length declared up front
 * (given explicitly: node:http's client declares none on a DELETE).
 */
function sendChunked(url: string, method: string, path: string, totalBytes: number, framing: 'chunked' | 'length' = 'chunked'): Promise<Answered> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const framed = framing === 'chunked' ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Math.ceil(totalBytes / SPACES.length) * SPACES.length) };
    const req = request(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...framed } }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') });
      });
    });
    // Once answered, the server may close the connection on the rest of the body: not a failure.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    streamSpaces(req, totalBytes, () => answered);
  });
}

async function health(url: string): Promise<number> {
  return (await fetch(`${url}/api/health`)).status;
}

describe('the body door, over the app’s own route table', () => {
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

  it('finds every route that takes a body, the personal ones, the door, speak and MCP among them', () => {
    const listed = bodyRoutes(backend.app.routes).map((route) => `${route.method} ${route.path}`);
    for (const known of ['POST /api/threads', 'POST /api/start', 'POST /api/threads/:id/lines', 'DELETE /api/threads/:id', 'POST /v1/chat/completions', 'POST /api/speak', 'POST /mcp', 'POST /api/mcp/tokens']) {
      expect(listed).toContain(known);
    }
  });

  it('reads each route’s cap where the route declares it, and the default elsewhere', () => {
    const caps = new Map(bodyRoutes(backend.app.routes).map((route) => [`${route.method} ${route.path}`, route.capBytes]));
    expect(caps.get('POST /api/threads/:id/lines')).toBe(LINE_BODY_MAX_BYTES);
    expect(caps.get('POST /mcp')).toBe(1024 * 1024);
    expect(caps.get('POST /api/threads')).toBe(BODY_CAP_BYTES);
  });

  it('refuses a chunked body past its cap on every such route with one 413, and keeps serving', async () => {
    const routes = bodyRoutes(backend.app.routes);
    for (const route of routes) {
      const refused = await sendChunked(server.url, route.method, concrete(route.path), route.capBytes + 1024 * 1024);
      expect({ route: `${route.method} ${route.path}`, status: refused.status, connection: refused.headers.connection }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 413,
        connection: 'close',
      });
      expect(refused.text).toContain('over');
      expect(await health(server.url)).toBe(200);
    }
  });

  it('refuses a declared length past its cap on every such route, DELETE too, with one 413 the client reads', async () => {
    for (const route of bodyRoutes(backend.app.routes)) {
      const refused = await sendChunked(server.url, route.method, concrete(route.path), route.capBytes + 1024 * 1024, 'length');
      expect({ route: `${route.method} ${route.path}`, status: refused.status, connection: refused.headers.connection }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 413,
        connection: 'close',
      });
      expect(refused.text).toContain('over');
      expect(await health(server.url)).toBe(200);
    }
  });

  it('says the cap in a sentence, in the shape of the API asked', async () => {
    const threads = await sendChunked(server.url, 'POST', '/api/threads', 2 * BODY_CAP_BYTES);
    expect(JSON.parse(threads.text)).toEqual({ error: 'The request is over 64 KiB.' });
    const door = await sendChunked(server.url, 'POST', '/v1/chat/completions', 2 * BODY_CAP_BYTES);
    expect(JSON.parse(door.text)).toMatchObject({ error: { message: 'The request is over 64 KiB.', code: 'request_too_large' } });
    const mcp = await sendChunked(server.url, 'POST', '/mcp', 2 * 1024 * 1024);
    expect(JSON.parse(mcp.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'The message is over 1 MiB, the most one message may be.' } });
  });

  it('hands a chunked body within its cap to the route whole', async () => {
    const body = JSON.stringify({ bot: 'demo' });
    const answered = await new Promise<Answered>((resolve, reject) => {
      const req = request(`${server.url}/api/start`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') });
        });
      });
      req.on('error', reject);
      for (const part of [body.slice(0, 5), body.slice(5)]) req.write(part);
      req.end();
    });
    expect(answered.status).toBe(200);
    expect(answered.text).toContain('"grant"');
  });
});

describe('a body that stops arriving', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => {
    await db.close();
  });

  it('is refused 408 once the door’s idle time passes with no chunk, and the route never runs', async () => {
    const clock = manualClock(() => new Promise<void>((resolve) => setImmediate(resolve)));
    const api = createBackend(testBackendDeps(db, { bots: await loadBots('bots') }));
    const app = createApp({ config: TEST_APP_CONFIG, api, bodyTiming: { ...BODY_TIMING_DEFAULTS, after: (delayMs, run) => clock.after(delayMs, run) } });
    try {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"bot":'));
        },
      });
      const pending = Promise.resolve(app.request('/api/threads', { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body, duplex: 'half' } as RequestInit));
      let settled = false;
      void pending.then(() => {
        settled = true;
      });
      // The first chunk is read at once; then nothing comes.
      await clock.advance(0);
      await clock.advance(BODY_TIMING_DEFAULTS.idleMs - 1);
      expect(settled).toBe(false);
      await clock.advance(1);
      const refused = await pending;
      expect(refused.status).toBe(408);
      expect(refused.headers.get('connection')).toBe('close');
      expect(((await refused.json()) as { error: string }).error).toMatch(/^The request body stopped arriving/);
      expect(clock.timers).toBe(0);
    } finally {
      await api.presence.close();
    }
  });
});
