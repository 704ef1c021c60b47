/**
 * A Confab server for the MCP tests, assembled as server/index.ts assembles one (`createBackend` +
 * `createApp`, PGlite in memory) and served on a real port of 127.0.0.1: the shipped apps plus the
 * tests' own `probe` app, and bots that name them. Persons are made by signing their cookie, as the
 * server itself would have; their tokens are made through `POST /api/mcp/tokens`, as the page does.
 */
import { createHash } from 'node:crypto';
import type { Hono } from 'hono';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { VersionNegotiationMode } from '@modelcontextprotocol/client';
import type { Backend } from '../../../server/backend';
import { loadBots } from '../../../server/bots';
import type { Bot } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import type { McpLimits } from '../../../server/mcp/callLimits';
import type { McpLogLine } from '../../../server/mcp/endpoint';
import { PERSON_COOKIE, personCookieKey, signPersonCookie } from '../../../server/person';
import type { VerbLogLine } from '../../../server/verbs/executor';
import { createRegistry, loadApps } from '../../../server/verbs/registry';
import type { McpTokenMade } from '../../../common/mcp/tokens';
import { openTestBackend } from '../../helpers/testBackend';
import { serveApp } from '../chat/localServers';
import probe from './probeApp';

export interface ConfabMcp {
  /** The server's origin, e.g. http://127.0.0.1:43210. */
  url: string;
  /** Where MCP is served: `${url}/mcp`. */
  mcpUrl: URL;
  app: Hono;
  api: Backend;
  db: Database;
  bots: ReadonlyMap<string, Bot>;
  refusals: McpLogLine[];
  /** Every token made, oldest first. */
  madeTokens: string[];
  verbLines: VerbLogLine[];
  /** The cookie header of the person called `person` (`personOf`). */
  cookieOf: (person: string) => string;
  /** A person's request to the API, under their session. */
  asPerson: (person: string, path: string, init?: { method?: string; body?: unknown }) => Promise<Response>;
  /** Makes a token for `person` through the page's route. */
  tokenFor: (person: string, bots: readonly string[], name?: string) => Promise<McpTokenMade>;
  /** An SDK client connected over Streamable HTTP with `token`. */
  client: (token: string, mode?: VersionNegotiationMode) => Promise<Client>;
  close: () => Promise<void>;
}

/** A person's id for a name: the server's own persons are UUIDs, so a name maps to one. */
export function personOf(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface ConfabMcpOptions {
  limits?: Partial<McpLimits>;
}

/**
 * Bots: `probe-bot` (the probe app only), `lists-bot` (lists only), `both` (lists, then probe), and
 * the shipped `demo` with its apps.
 */
export async function startConfabMcp(options: ConfabMcpOptions = {}): Promise<ConfabMcp> {
  const shipped = await loadBots('bots');
  const demo = shipped.get('demo');
  if (demo === undefined) throw new Error('bots/demo.md is missing; the MCP tests copy it.');
  const bots = new Map<string, Bot>([
    ['demo', demo],
    ['probe-bot', { ...demo, slug: 'probe-bot', name: 'Probe', apps: ['probe'] }],
    ['lists-bot', { ...demo, slug: 'lists-bot', name: 'Lister', apps: ['lists'] }],
    ['both', { ...demo, slug: 'both', name: 'Both', apps: ['lists', 'probe'] }],
  ]);
  const refusals: McpLogLine[] = [];
  const verbLines: VerbLogLine[] = [];
  const backend = await openTestBackend({
    bots,
    registry: createRegistry([...(await loadApps()), probe]),
    verbLog: (line) => {
      if (line.event === 'verb.called') verbLines.push(line);
    },
    mcpLog: (line) => refusals.push(line),
    ...(options.limits ? { mcpLimits: options.limits } : {}),
  });
  const { db, api, app, grantSecret } = backend;
  const server = await serveApp(app);
  const cookieKey = personCookieKey(grantSecret);
  const cookieOf = (person: string) => `${PERSON_COOKIE}=${signPersonCookie(cookieKey, personOf(person), Date.now())}`;
  const asPerson = async (person: string, path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> =>
    app.request(path, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { cookie: cookieOf(person), 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  const clients: Client[] = [];
  const madeTokens: string[] = [];
  return {
    url: server.url,
    mcpUrl: new URL(`${server.url}/mcp`),
    app,
    api,
    db,
    bots,
    refusals,
    madeTokens,
    verbLines,
    cookieOf,
    asPerson,
    async tokenFor(person, chosen, name = 'a test client') {
      const res = await asPerson(person, '/api/mcp/tokens', { body: { name, bots: chosen, timeZone: 'Europe/Lisbon' } });
      if (res.status !== 201) throw new Error(`Making a token answered ${res.status}: ${await res.text()}`);
      const made = (await res.json()) as McpTokenMade;
      madeTokens.push(made.token);
      return made;
    },
    async client(token, mode = 'legacy') {
      const client = new Client({ name: 'confab-mcp-test', version: '1.0.0' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await api.mcpEndpoint.close();
      await server.close();
      await backend.close();
    },
  };
}
