import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app';
import type { ApiDeps } from '../../server/app';
import { parseBotFile } from '../../server/bots';
import { ConfigError, readAllowedOrigins, readConfig } from '../../server/config';
import type { Database } from '../../server/db/database';
import { NEW_PERSONS_WINDOW_MS, newPersons } from '../../server/newPersons';
import { PERSON_COOKIE } from '../../server/person';
import type { PersonEnv } from '../../server/person';
import { requestRefusal } from '../helpers/words';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from './db/fixtures';

const config = { distDir: '/nonexistent', modelsDir: '/nonexistent', modelBase: { kind: 'hub' } as const, modelVersion: 'supertonic-3' as const };
const BOT = parseBotFile('demo.md', '---\nname: Demo\n---\nYou talk.');
const SECRET = new TextEncoder().encode('a-grant-secret-of-more-than-thirty-two-characters');
const NOW = 1_750_000_000_000;
const FOREIGN_HOST_MESSAGE = requestRefusal('requests.foreign-host');
const FOREIGN_ORIGIN_MESSAGE = requestRefusal('requests.foreign-origin');
const NOT_JSON_MESSAGE = requestRefusal('requests.not-json-type');
const NEW_PERSONS_MESSAGE = requestRefusal('requests.new-persons');

/** A stand-in `/mcp` that says it was reached. */
function reachedMcp(): Hono {
  const mcp = new Hono();
  mcp.all('/mcp', (c) => c.json({ reached: true }));
  return mcp;
}

/** The app with the session routes and a stand-in `/mcp` that says it was reached. */
function appWith(options: { host?: string; allowedOrigins?: string[]; newPersonsPerHour?: number; clock?: () => number; db?: Database } = {}): Hono {
  const api: ApiDeps = {
    personMode: { kind: 'local' },
    bots: new Map([['demo', BOT]]),
    grantSecret: SECRET,
    clock: options.clock ?? (() => NOW),
    mcp: reachedMcp(),
    ...(options.db === undefined ? {} : { db: options.db }),
  };
  const { clock: _clock, db: _db, ...rest } = options;
  return createApp({ config: { ...config, ...rest }, api });
}

const start = (app: Hono, headers: Record<string, string>, body = JSON.stringify({ bot: 'demo' }), env?: object) =>
  app.request('/api/start', { method: 'POST', headers, body }, env);

/** What a Node socket from `address` puts on the request's bindings. */
const from = (address: string) => ({ incoming: { socket: { remoteAddress: address } } });

describe('the Origin rule', () => {
  const JSON_TYPE = { 'content-type': 'application/json' };

  it('refuses a page on another site posting text/plain with the cookie, in a sentence', async () => {
    const app = appWith();
    const res = await start(app, { 'content-type': 'text/plain', origin: 'http://elsewhere.example', cookie: `${PERSON_COOKIE}=x` });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: FOREIGN_ORIGIN_MESSAGE });
    // Refused before the person is read: no cookie is made for it.
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('refuses another port of this machine, an opaque origin and another scheme', async () => {
    const app = appWith();
    for (const origin of ['http://localhost:5173', 'null', 'https://localhost', 'http://localhost.example']) {
      const res = await start(app, { ...JSON_TYPE, origin });
      expect(res.status, origin).toBe(403);
    }
  });

  it('lets the server’s own origin through, and a client that names none', async () => {
    const app = appWith();
    expect((await start(app, { ...JSON_TYPE, origin: 'http://localhost' })).status).toBe(200);
    expect((await start(app, { ...JSON_TYPE, host: 'confab.localhost:8787', origin: 'http://confab.localhost:8787' })).status).toBe(200);
    expect((await start(app, JSON_TYPE)).status).toBe(200);
  });

  it('takes https as its own behind a proxy that says so, and nothing else it says', async () => {
    const app = appWith();
    expect((await start(app, { ...JSON_TYPE, origin: 'https://localhost', 'x-forwarded-proto': 'https' })).status).toBe(200);
    expect((await start(app, { ...JSON_TYPE, origin: 'https://elsewhere.example', 'x-forwarded-proto': 'https' })).status).toBe(403);
  });

  it('refuses a request without an Origin that the browser says came from another site', async () => {
    const app = appWith();
    for (const site of ['cross-site', 'same-site']) {
      const res = await app.request('/api/threads', { headers: { 'sec-fetch-site': site } });
      expect(res.status, site).toBe(403);
      expect(await res.json()).toEqual({ error: FOREIGN_ORIGIN_MESSAGE });
    }
    expect((await start(app, { ...JSON_TYPE, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('lets the origins in CONFAB_ALLOWED_ORIGINS through, and only those', async () => {
    const app = appWith({ allowedOrigins: readAllowedOrigins('https://confab.example, http://localhost:5173') });
    expect((await start(app, { ...JSON_TYPE, origin: 'https://confab.example' })).status).toBe(200);
    expect((await start(app, { ...JSON_TYPE, origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await start(app, { ...JSON_TYPE, origin: 'https://confab.example.evil' })).status).toBe(403);
  });

  it('guards every cookie route, whatever its method', async () => {
    const app = appWith();
    const origin = 'http://elsewhere.example';
    // The bots' list too: it shows the person the bots that are for them (their `for:`).
    for (const [method, path] of [['GET', '/api/threads'], ['GET', '/api/presence?bot=demo'], ['DELETE', '/api/memories/1'], ['POST', '/api/actions/1/approve'], ['GET', '/api/mcp/tokens'], ['GET', '/api/bots/demo/verbs'], ['GET', '/api/bots'], ['GET', '/api/bots/demo']] as const) {
      const res = await app.request(path, { method, headers: { origin } });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
  });

  it('puts a personal route added anywhere behind the same rules, with nobody listing it', async () => {
    const personal = new Hono<PersonEnv>();
    personal.post('/brand-new', (c) => c.json({ person: c.get('person') }));
    const app = createApp({ config, api: { personMode: { kind: 'local' }, bots: new Map(), grantSecret: SECRET, clock: () => NOW, personal } });
    const foreign = await app.request('/api/brand-new', { method: 'POST', headers: { ...JSON_TYPE, origin: 'http://elsewhere.example' }, body: '{}' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ error: FOREIGN_ORIGIN_MESSAGE });
    expect((await app.request('/api/brand-new', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' })).status).toBe(415);
    const own = await app.request('/api/brand-new', { method: 'POST', headers: JSON_TYPE, body: '{}' });
    expect(own.status).toBe(200);
    expect(((await own.json()) as { person: string }).person).toMatch(/^[0-9a-f-]{36}$/);
    expect(own.headers.get('set-cookie')).toContain(`${PERSON_COOKIE}=`);
  });

  it('refuses a foreign Origin at /mcp with a JSON-RPC error, as the MCP transport asks', async () => {
    const app = appWith();
    const res = await app.request('/mcp', { method: 'POST', headers: { ...JSON_TYPE, origin: 'http://elsewhere.example' }, body: '{}' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: FOREIGN_ORIGIN_MESSAGE } });
    const client = await app.request('/mcp', { method: 'POST', headers: JSON_TYPE, body: '{}' });
    expect(await client.json()).toEqual({ reached: true });
  });
});

describe('the JSON rule', () => {
  it('refuses a body that is not JSON on a cookie route with 415 and a sentence', async () => {
    const app = appWith();
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await start(app, { 'content-type': type, origin: 'http://localhost' });
      expect(res.status, type).toBe(415);
      expect(await res.json()).toEqual({ error: NOT_JSON_MESSAGE });
    }
    const untyped = await app.request('/api/start', { method: 'POST', headers: { 'content-length': '14' }, body: new Blob(['{"bot":"demo"}']).stream(), duplex: 'half' } as RequestInit);
    expect(untyped.status).toBe(415);
  });

  it('takes application/json with its parameters, and a POST without a body', async () => {
    const app = appWith();
    expect((await start(app, { 'content-type': 'Application/JSON; charset=utf-8' })).status).toBe(200);
    const empty = await app.request('/api/start', { method: 'POST' });
    // Past the rule: the route itself says what is missing.
    expect(empty.status).toBe(400);
  });
});

describe('the Host rule', () => {
  it('refuses a rebound name on a loopback server, the page and /mcp alike, with no 401', async () => {
    const app = appWith();
    const mcp = await app.request('/mcp', { method: 'POST', headers: { host: 'rebound.example', 'content-type': 'application/json' }, body: '{}' });
    expect(mcp.status).toBe(421);
    expect(await mcp.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: FOREIGN_HOST_MESSAGE } });
    const health = await app.request('/api/health', { headers: { host: 'rebound.example:8787' } });
    expect(health.status).toBe(421);
    expect(await health.json()).toEqual({ error: FOREIGN_HOST_MESSAGE });
    for (const host of ['rebound.example@localhost', 'localhost:8787/x', '']) {
      expect((await app.request('/api/health', { headers: { host } })).status, host).toBe(421);
    }
  });

  it('answers to this machine’s names and an allowed origin’s host', async () => {
    const app = appWith({ allowedOrigins: ['https://confab.example'] });
    for (const host of ['localhost:8787', '127.0.0.1:8787', '[::1]:8787', 'LOCALHOST', 'confab.localhost:8787', 'confab.example']) {
      expect((await app.request('/api/health', { headers: { host } })).status, host).toBe(200);
    }
    expect((await app.request('/api/health', { headers: { host: 'confab.example:8443' } })).status).toBe(421);
  });

  it('is not applied when the server serves a network', async () => {
    for (const host of ['0.0.0.0', '192.168.1.4']) {
      const app = appWith({ host });
      expect((await app.request('/api/health', { headers: { host: 'rebound.example' } })).status, host).toBe(200);
    }
    for (const host of ['localhost', '::1', '127.0.0.1']) {
      const app = appWith({ host });
      expect((await app.request('/api/health', { headers: { host: 'rebound.example' } })).status, host).toBe(421);
    }
  });
});

describe('CONFAB_ALLOWED_ORIGINS', () => {
  it('reads origins, comma-separated, as URL.origin spells them', () => {
    expect(readConfig({}).allowedOrigins).toEqual([]);
    expect(readConfig({ CONFAB_ALLOWED_ORIGINS: ' https://Confab.Example , http://localhost:5173,' }).allowedOrigins).toEqual(['https://confab.example', 'http://localhost:5173']);
  });

  it('refuses anything that is not an origin alone, naming it', () => {
    for (const entry of ['confab.example', 'https://confab.example/', 'https://confab.example/app', 'ftp://confab.example', 'https://u:p@confab.example', 'https://confab.example?x']) {
      expect(() => readAllowedOrigins(entry), entry).toThrow(ConfigError);
    }
    expect(() => readAllowedOrigins('https://ok.example,confab.example')).toThrow(/CONFAB_ALLOWED_ORIGINS has "confab\.example", which is not an origin/);
  });
});

describe('new persons per client address', { timeout: DB_TEST_MS }, () => {
  // Counted in the database (every instance shares it: test/server/db/sharedCounts.test.ts); each
  // test its own addresses and hours.
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(async () => {
    await db.close();
  });

  it('counts a sliding hour per address, and says when the next may come', async () => {
    const count = newPersons(db, 2);
    const [a, b] = [somebody('a'), somebody('b')];
    expect(await count.arrive(a, NOW)).toEqual({ ok: true });
    expect(await count.arrive(a, NOW + 1_000)).toEqual({ ok: true });
    expect(await count.arrive(a, NOW + 2_000)).toEqual({ ok: false, retryAfterMs: NEW_PERSONS_WINDOW_MS - 2_000 });
    expect(await count.arrive(b, NOW + 2_000)).toEqual({ ok: true });
    // A refusal is not an arrival: the first one leaves the window at the hour, the second a second later.
    expect(await count.arrive(a, NOW + NEW_PERSONS_WINDOW_MS)).toEqual({ ok: true });
    expect(await count.arrive(a, NOW + NEW_PERSONS_WINDOW_MS + 500)).toEqual({ ok: false, retryAfterMs: 500 });
    expect(await count.arrive(a, NOW + NEW_PERSONS_WINDOW_MS + 1_000)).toEqual({ ok: true });
  });

  it('refuses the next new person from an address past the hour’s count with 429, a sentence and x-confab-refused: site', async () => {
    // Hours after the test above, so that its arrivals are long gone.
    const first = NOW + 10 * NEW_PERSONS_WINDOW_MS;
    let now = first;
    const app = appWith({ newPersonsPerHour: 3, clock: () => now, db });
    const cookies: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await start(app, { 'content-type': 'application/json' }, undefined, from('203.0.113.9'));
      expect(res.status).toBe(200);
      cookies.push(res.headers.get('set-cookie')?.split(';')[0] ?? '');
    }
    now += 60_000;
    const refused = await start(app, { 'content-type': 'application/json' }, undefined, from('203.0.113.9'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-confab-refused')).toBe('site');
    expect(refused.headers.get('retry-after')).toBe(String((NEW_PERSONS_WINDOW_MS - 60_000) / 1000));
    expect(await refused.json()).toEqual({ error: NEW_PERSONS_MESSAGE });
    expect(refused.headers.get('set-cookie')).toBeNull();
    // A person who has a cookie is no new person; another address has its own count.
    expect((await start(app, { 'content-type': 'application/json', cookie: cookies[0] ?? '' }, undefined, from('203.0.113.9'))).status).toBe(200);
    expect((await start(app, { 'content-type': 'application/json' }, undefined, from('198.51.100.1'))).status).toBe(200);
    // An hour after the first, one more may come.
    now = first + NEW_PERSONS_WINDOW_MS;
    expect((await start(app, { 'content-type': 'application/json' }, undefined, from('203.0.113.9'))).status).toBe(200);
  });

  it('takes no proxy’s word for the address', async () => {
    const app = appWith({ newPersonsPerHour: 1, clock: () => NOW + 20 * NEW_PERSONS_WINDOW_MS, db });
    expect((await start(app, { 'content-type': 'application/json', 'x-forwarded-for': '1.1.1.1' }, undefined, from('192.0.2.7'))).status).toBe(200);
    expect((await start(app, { 'content-type': 'application/json', 'x-forwarded-for': '2.2.2.2' }, undefined, from('192.0.2.7'))).status).toBe(429);
  });

  it('reads CONFAB_NEW_PERSONS_PER_HOUR, refusing what is not a count', () => {
    expect(readConfig({}).newPersonsPerHour).toBe(30);
    expect(readConfig({ CONFAB_NEW_PERSONS_PER_HOUR: '500' }).newPersonsPerHour).toBe(500);
    for (const given of ['0', '-1', '2.5', 'many', '2000000']) {
      expect(() => readConfig({ CONFAB_NEW_PERSONS_PER_HOUR: given }), given).toThrow(/CONFAB_NEW_PERSONS_PER_HOUR is ".*"; give how many new persons/);
    }
  });
});
