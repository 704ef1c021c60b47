/**
 * The MCP HTTP client follows no redirect. Two local HTTP servers: the app's `mcp.url`, which
 * answers 307 to another address, and that other address, which counts whatever reaches it. When
 * the redirect comes at the first connection the app is away, saying it was redirected (and keeps
 * saying so on each retry); when it comes to a call of a server that was up, the call fails as the
 * voice says it. Either way the redirect's target is never asked.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { parseAppFile } from '../../../server/outside/appFile';
import type { McpAppFile } from '../../../server/outside/appFile';
import { mcpApp } from '../../../server/outside/mcpApp';
import type { McpApp, McpAppOptions } from '../../../server/outside/mcpApp';
import { createExecutor } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import type { Caller } from '../../../server/verbs/verb';
import { testGate } from '../../helpers/testGate';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

const FAST: Partial<McpAppOptions> = { retryFirstMs: 50, retryMaxMs: 200, connectTimeoutMs: 5000, stderr: 'ignore' };

/** An HTTP server on 127.0.0.1 at a port the system picks, recording the method and path of each request. */
async function listening(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<{ server: Server; url: string; asked: string[] }> {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method ?? '?'} ${req.url ?? '?'}`);
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      answer(req, res, body);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/mcp`, asked };
}

const redirectTo = (target: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(307, { location: target }).end();
};

/**
 * A Streamable HTTP MCP server of one tool, `lookup` (a read), answering in plain JSON — except that
 * `tools/call` is answered with a 307 to `target`.
 */
const mcpThatRedirectsCalls = (target: () => string) => (req: IncomingMessage, res: ServerResponse, body: string) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
  if (message.id === undefined) {
    res.writeHead(202).end();
    return;
  }
  if (message.method === 'tools/call') {
    res.writeHead(307, { location: target() }).end();
    return;
  }
  const result =
    message.method === 'initialize'
      ? { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'redirecting', version: '1.0.0' } }
      : message.method === 'tools/list'
        ? { tools: [{ name: 'lookup', description: 'Looks a thing up.', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] }
        : {};
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
};

function mcpFile(name: string, url: string): McpAppFile {
  const file = parseAppFile(`${name}.md`, `---\nmcp: { url: "${url}" }\nprivate: true\ntools: [lookup]\nreads: [lookup]\n---\nLooks things up.\n`);
  if (file.kind !== 'mcp') throw new Error('not an MCP app file');
  return file;
}

describe('the MCP HTTP client follows no redirect', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let caller: Caller;
  const servers: Server[] = [];
  const opened: McpApp[] = [];

  beforeAll(async () => {
    db = await openMemoryDatabase();
    caller = { person: somebody('ana'), bot: 'outside', via: 'model', timeZone: 'UTC' };
  }, OPENING_MS);
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((app) => app.outside.close()));
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
    await db.close();
  });

  const serve = async (answer: Parameters<typeof listening>[0]) => {
    const made = await listening(answer);
    servers.push(made.server);
    return made;
  };

  it('is away when its address answers 307 at the first connection, says why, and never asks where it points', async () => {
    const target = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const redirecting = await serve(redirectTo(target.url));
    const app = await mcpApp(mcpFile('moved', redirecting.url), { env: {}, appsDir: '/nonexistent', log: () => undefined }, FAST);
    opened.push(app);
    const status = app.outside.status();
    expect(status).toEqual({
      up: false,
      state: 'away',
      why: `The moved app's server at ${redirecting.url} answered with a redirect (HTTP 307), which Confab does not follow; give its final address as mcp.url in server/apps/moved.md`,
      retryInMs: 50,
    });
    expect(app.verbs).toEqual([]);
    // It tries again, and is redirected again: still away, and still nothing reached the target.
    await expect.poll(() => redirecting.asked.length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    expect(app.outside.status().up).toBe(false);
    expect(redirecting.asked.every((line) => line === 'POST /mcp')).toBe(true);
    expect(target.asked).toEqual([]);
  });

  it('fails a call its server answers with 307, as the voice says it, and never asks where it points', async () => {
    const target = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    const server = await serve(mcpThatRedirectsCalls(() => target.url));
    const app = await mcpApp(mcpFile('shifty', server.url), { env: {}, appsDir: '/nonexistent', log: () => undefined }, FAST);
    opened.push(app);
    expect(app.outside.status()).toEqual({ up: true });
    const executor = createExecutor({ gate: testGate(db), registry: createRegistry([app]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    const outcome = await executor.execute({ verb: 'shifty.lookup', input: {}, caller, idempotencyKey: `key-${randomUUID()}` });
    expect(!outcome.ok && [outcome.error.code, outcome.error.sentence]).toEqual(['execution_failed', 'Something went wrong doing that, so it was not done.']);
    expect(server.asked.filter((line) => line === 'POST /mcp').length).toBeGreaterThanOrEqual(3);
    expect(target.asked).toEqual([]);
  });
});
