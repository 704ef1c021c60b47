/**
 * Who a bot is for, at every way to it: `POST /api/start` refuses a person the bot is not for with
 * one sentence and no grant, before anything of theirs is touched; the listing leaves the bot out;
 * `GET /api/bots/<bot>` and every route under it say the sentence; an MCP token is neither made for
 * it nor offers its tools. First as the acceptance check drives it (a bare cookie, the real app),
 * then each audience against each kind of asker.
 */
import { readFile } from 'node:fs/promises';
import { HTTPException } from 'hono/http-exception';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parseBotFile } from '../../server/bots';
import type { Bot } from '../../server/bots';
import type { Database } from '../../server/db/database';
import { makeToken } from '../../server/db/mcpTokens';
import { verifyGrant } from '../../server/grants';
import { newToken } from '../../server/mcp/token';
import { mcpTokenRoutes } from '../../server/mcp/tokenRoutes';
import { findPerson } from '../../server/people/people';
import type { PersonEnv, PersonKind } from '../../server/person';
import { PERSON_COOKIE, personCookieKey, readPersonCookie } from '../../server/person';
import { sessionRoutes } from '../../server/session';
import lists from '../../server/apps/lists/index';
import { createRegistry } from '../../server/verbs/registry';
import { requestRefusal } from '../helpers/words';
import { openTestBackend } from '../helpers/testBackend';
import type { TestBackend } from '../helpers/testBackend';
import { serveApp } from './chat/localServers';
import type { Listening } from './chat/localServers';
import { DB_TEST_MS, OPENING_MS } from './db/fixtures';

const FOR_OWNER = requestRefusal('audience.for-owner', {}, 'en');
const FOR_PEOPLE = requestRefusal('audience.for-people', {}, 'en');
const FOR_NAMED = requestRefusal('audience.for-named', {}, 'en');

/** The shipped demo bot, and a copy `for: owner` made as the acceptance check makes it. */
async function demoAndPrivate(): Promise<Map<string, Bot>> {
  const text = await readFile('bots/demo.md', 'utf8');
  const [first = '', ...rest] = text.split('\n');
  const privateText = [first, 'for: owner', ...rest].join('\n').replace(/^name: .*$/m, 'name: Private');
  return new Map([
    ['demo', parseBotFile('demo.md', text)],
    ['private', parseBotFile('private.md', privateText)],
  ]);
}

const json = { 'content-type': 'application/json' };

describe('a bot for its owner, asked by a bare cookie', { timeout: DB_TEST_MS }, () => {
  let backend: TestBackend;
  let server: Listening;

  beforeAll(async () => {
    backend = await openTestBackend({ bots: await demoAndPrivate(), registry: createRegistry([lists]) });
    server = await serveApp(backend.app);
  }, OPENING_MS);
  afterAll(async () => {
    await server.close();
    await backend.close();
  });

  const seenRows = async () => (await backend.db.asServer((tx) => tx.query('select person from persons_seen'))).rows.length;

  it('refuses the start with the sentence and no grant, touching nothing of theirs, and still starts the demo bot', async () => {
    const before = await seenRows();
    const refused = await backend.request('/api/start', { method: 'POST', headers: json, body: JSON.stringify({ bot: 'private' }) });
    expect(refused.status).toBe(403);
    const said = await refused.text();
    expect(said).not.toContain('grant');
    expect(JSON.parse(said)).toEqual({ error: FOR_OWNER, for: 'owner' });
    expect(await seenRows()).toBe(before);

    const cookie = (refused.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const open = await backend.request('/api/start', { method: 'POST', headers: { ...json, cookie }, body: JSON.stringify({ bot: 'demo' }) });
    expect(open.status).toBe(200);
    expect(await open.json()).toHaveProperty('grant');
  });

  it('leaves the bot out of the listing, says who it is for at its own address and under it, and makes no token for it', async () => {
    const listed = await backend.request('/api/bots');
    expect(((await listed.json()) as { bots: { slug: string }[] }).bots.map((bot) => bot.slug)).toEqual(['demo']);
    const cookie = (listed.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const ask = (path: string, init: RequestInit = {}) => backend.request(path, { ...init, headers: { ...json, cookie } });

    for (const path of ['/api/bots/private', '/api/bots/private/verbs', '/api/bots/private/phrases']) {
      const res = await ask(path);
      expect(res.status, path).toBe(403);
      expect(await res.json(), path).toEqual({ error: FOR_OWNER, for: 'owner' });
    }
    expect((await ask('/api/bots/demo')).status).toBe(200);
    expect((await ask('/api/bots/demo/verbs')).status).toBe(200);
    const token = await ask('/api/mcp/tokens', { method: 'POST', body: JSON.stringify({ name: 'laptop', bots: ['demo', 'private'] }) });
    expect(token.status).toBe(403);
    expect(await token.json()).toEqual({ error: FOR_OWNER, for: 'owner' });
  });

  it('offers a token’s tools through a bot for the owner only once its person owns the server', async () => {
    const listed = await backend.request('/api/bots');
    const cookie = (listed.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const person = readPersonCookie(personCookieKey(backend.grantSecret), cookie.slice(`${PERSON_COOKIE}=`.length))?.person ?? '';
    // A token kept from before the bot was for the owner alone.
    const { token, hash } = newToken();
    await backend.db.asPerson(person, (tx) => makeToken(tx, { person, name: 'old', bots: ['private'], timeZone: 'UTC', tokenHash: hash }));
    const toolsNow = async () => {
      const client = new Client({ name: 'bot-for-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      const { tools } = await client.listTools();
      await client.close();
      return tools.map((tool) => tool.name);
    };
    expect(await toolsNow()).toEqual([]);
    await backend.db.asServer((tx) => tx.query('insert into people (person, owner) values ($1, true)', [person]));
    expect(await toolsNow()).toContain('lists-add');
  });
});

describe('each audience, asked by each kind of person', { timeout: DB_TEST_MS }, () => {
  let backend: TestBackend;
  let db: Database;
  const secret = new TextEncoder().encode('a-grant-secret-of-more-than-thirty-two-characters');
  const file = (slug: string, front: string) => parseBotFile(`${slug}.md`, `---\nname: ${slug}\napps: [lists]\n${front}\n---\nYou help.`);
  const bots = new Map<string, Bot>([
    ['open', file('open', 'for: anyone')],
    ['members', file('members', 'for: people')],
    ['mine', file('mine', 'for: owner')],
    ['friends', file('friends', 'for: [ana, cara]')],
  ]);
  /** The server as its personal routes stand, the person and their kind given by the test as `personFrom` would set them. */
  let app: Hono<PersonEnv>;

  beforeAll(async () => {
    backend = await openTestBackend({ bots });
    db = backend.db;
    await db.asServer(async (tx) => {
      await tx.query("insert into people (person, owner) values ('p-owner', true)");
      await tx.query("insert into people (person, name) values ('p-ana', 'ana'), ('p-ben', 'ben'), ('p-cara', 'cara')");
    });
    const peopleRow = (person: string) => db.readAsServer((reader) => findPerson(reader, person));
    app = new Hono<PersonEnv>();
    app.use('*', async (c, next) => {
      c.set('person', c.req.header('x-person') ?? '');
      c.set('personKind', c.req.header('x-kind') as PersonKind);
      await next();
    });
    app.route('/', sessionRoutes({ bots, grantSecret: secret, clock: () => 1_750_000_000_000, peopleRow }));
    app.route('/', mcpTokenRoutes({ db, bots, clock: Date.now, peopleRow }));
    app.onError((error, c) => (error instanceof HTTPException ? c.json({ error: error.message }, error.status) : c.json({ error: String(error) }, 500)));
  }, OPENING_MS);
  afterAll(async () => {
    await backend.close();
  });

  const ASKERS: Record<string, { person: string; kind: PersonKind }> = {
    cookie: { person: 'p-cookie', kind: 'cookie' },
    passkey: { person: 'p-passkey', kind: 'passkey' },
    supabase: { person: 'p-supabase', kind: 'supabase' },
    owner: { person: 'p-owner', kind: 'passkey' },
    ana: { person: 'p-ana', kind: 'passkey' },
    ben: { person: 'p-ben', kind: 'passkey' },
    cara: { person: 'p-cara', kind: 'supabase' },
    // The owner's own person id on a device holding only a bare cookie is no person any bot names.
    'owner’s bare cookie': { person: 'p-owner', kind: 'cookie' },
  };
  const AUDIENCE: Record<string, { admitted: string[]; sentence: string; for: string }> = {
    open: { admitted: Object.keys(ASKERS), sentence: '', for: '' },
    members: { admitted: ['passkey', 'supabase', 'owner', 'ana', 'ben', 'cara'], sentence: FOR_PEOPLE, for: 'people' },
    mine: { admitted: ['owner'], sentence: FOR_OWNER, for: 'owner' },
    friends: { admitted: ['ana', 'cara'], sentence: FOR_NAMED, for: 'named' },
  };

  const ask = (who: string, path: string, body?: unknown) => {
    const asker = ASKERS[who] ?? { person: '', kind: 'cookie' };
    return app.request(path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...json, 'x-person': asker.person, 'x-kind': asker.kind },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };

  for (const [slug, audience] of Object.entries(AUDIENCE)) {
    it(`grants ${slug} (${bots.get(slug)?.for.to ?? ''}) to ${audience.admitted.join(', ')} alone, and refuses everybody else with the sentence`, async () => {
      for (const who of Object.keys(ASKERS)) {
        const res = await ask(who, '/start', { bot: slug });
        const body = (await res.json()) as { grant?: string; error?: string; for?: string };
        if (audience.admitted.includes(who)) {
          expect(res.status, who).toBe(200);
          // The grant carries how the person was known, for what a bare cookie may not make.
          expect(verifyGrant(secret, body.grant ?? '', { bot: slug, nowMs: 1_750_000_000_000 }).kind, who).toBe(ASKERS[who]?.kind);
        } else {
          expect(res.status, who).toBe(403);
          expect(body, who).toEqual({ error: audience.sentence, for: audience.for });
        }
        const listed = ((await (await ask(who, '/bots')).json()) as { bots: { slug: string }[] }).bots.map((bot) => bot.slug);
        expect(listed.includes(slug), `${who} sees ${slug} listed`).toBe(audience.admitted.includes(who));
        expect((await ask(who, `/bots/${slug}`)).status, who).toBe(audience.admitted.includes(who) ? 200 : 403);
        expect((await ask(who, '/mcp/tokens', { name: `${who} on ${slug}`, bots: [slug] })).status, who).toBe(audience.admitted.includes(who) ? 201 : 403);
      }
    });
  }

  it('says there is no such bot before saying who a bot is for', async () => {
    const res = await ask('cookie', '/start', { bot: 'nobody' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: requestRefusal('requests.no-bot', { bot: 'nobody' }, 'en') });
  });
});
