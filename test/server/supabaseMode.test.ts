/**
 * The real app in Supabase mode, configured from the environment as `server/index.ts` does it, with
 * the page's own auth signing in against a local stand-in for Supabase Auth: who may start a
 * conversation, and what one person may never see of another's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app';
import { createBackend } from '../../server/backend';
import type { BackendDeps } from '../../server/backend';
import { loadBots } from '../../server/bots';
import { ConfigError, readConfig } from '../../server/config';
import type { Database } from '../../server/db/database';
import { verifyGrant } from '../../server/grants';
import { readPersonMode } from '../../server/person';
import { fetchPageConfig } from '../../src/platform/apiClient';
import { createAuth, withAuth } from '../../src/platform/auth';
import type { SupabaseAuth } from '../../src/platform/auth';
import { memoryStorage } from '../helpers/memoryStorage';
import { nodeWebSocket, SupabaseAuthStandIn } from '../helpers/supabaseAuthStandIn';
import { testBackendDeps } from '../helpers/testBackend';
import { requestRefusal } from '../helpers/words';
import { openTestDatabase } from '../helpers/testDatabase';

const JWT_SECRET = 'the-stand-in-project-jwt-secret-of-40-chars';
const PASSWORD = 'correct horse battery staple';
const GRANT_SECRET = randomBytes(32);

let standIn: SupabaseAuthStandIn;
let db: Database;
let app: Hono;
const opened: SupabaseAuth[] = [];

function backendDeps(env: Record<string, string>): BackendDeps {
  return testBackendDeps(db, { grantSecret: GRANT_SECRET, personMode: readPersonMode(env) });
}

beforeAll(async () => {
  standIn = await SupabaseAuthStandIn.start({ jwtSecret: JWT_SECRET });
  db = await openTestDatabase();
  const env = { SUPABASE_URL: standIn.url, SUPABASE_ANON_KEY: standIn.anonKey, SUPABASE_JWT_SECRET: JWT_SECRET, CONFAB_DIST: '/nonexistent' };
  app = createApp({ config: readConfig(env), api: createBackend({ ...backendDeps(env), bots: await loadBots('bots') }) });
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((auth) => auth.close()));
});

afterAll(async () => {
  await db.close();
  await standIn.close();
});

/** The page's fetch: same-origin calls into the app, as a browser makes them. */
const page: typeof fetch = async (input, init) => app.request(input instanceof Request ? input : String(input), init);

/** A person at the page: their own browser storage, signed in to the stand-in with a new account. */
async function personAtPage(): Promise<{ id: string; auth: SupabaseAuth; call: typeof fetch }> {
  const email = `person-${randomUUID()}@example.com`;
  const { id } = standIn.addUser(email, PASSWORD);
  const { auth: config } = await fetchPageConfig(page);
  const auth = createAuth(config, { storage: memoryStorage(), realtimeTransport: nodeWebSocket });
  if (auth.kind !== 'supabase') throw new Error(`the page was told to use ${auth.kind} auth`);
  opened.push(auth);
  await auth.signInWithPassword(email, PASSWORD);
  return { id, auth, call: withAuth(page, auth) };
}

function post(body: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

describe('Confab in Supabase mode', () => {
  it('tells the page to sign in with the project and its anon key, never the JWT secret', async () => {
    const res = await app.request('/api/config');
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ auth: { kind: 'supabase', url: standIn.url, anonKey: standIn.anonKey } });
    expect(text).not.toContain(JWT_SECRET);
    expect((await fetchPageConfig(page)).auth).toEqual({ kind: 'supabase', url: standIn.url, anonKey: standIn.anonKey });
  });

  it('refuses to start a conversation, or list one, without a token, saying to sign in', async () => {
    for (const res of [await page('/api/start', post({ bot: 'demo' })), await page('/api/threads?bot=demo')]) {
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: requestRefusal('requests.sign-in-needed') });
    }
  });

  it('lists the bots that are for anyone before a person signs in, and a signed-in person’s own after', async () => {
    const before = await page('/api/bots');
    expect(before.status).toBe(200);
    const listed = ((await before.json()) as { bots: { slug: string }[] }).bots.map((bot) => bot.slug);
    expect(listed).toContain('demo');
    const { call } = await personAtPage();
    const after = await call('/api/bots');
    expect(after.status).toBe(200);
    expect(((await after.json()) as { bots: { slug: string }[] }).bots.map((bot) => bot.slug)).toEqual(listed);
  });

  it('starts a conversation for the person the stand-in’s token names, and the door takes its grant', async () => {
    const { id, call } = await personAtPage();
    const res = await call('/api/start', post({ bot: 'demo' }));
    expect(res.status).toBe(200);
    const { grant } = (await res.json()) as { grant: string };
    expect(verifyGrant(GRANT_SECRET, grant, { nowMs: Date.now() })).toMatchObject({ bot: 'demo', person: id });
    // The door takes the grant as its Bearer; the wrapped fetch leaves that call alone.
    const answer = await call('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', Authorization: `Bearer ${grant}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'Hello there.' }] }),
    });
    expect(answer.status).toBe(200);
    expect(JSON.stringify(await answer.json())).toMatch(/stand-in/);
  });

  it('shows each person only their own conversations', async () => {
    const ana = await personAtPage();
    const ben = await personAtPage();
    const thread = (await (await ana.call('/api/threads', post({ bot: 'demo' }))).json()) as { id: string };
    const said = await ana.call(`/api/threads/${thread.id}/lines`, post({ who: 'person', text: 'A secret of Ana', clientId: 'a1' }));
    expect(said.status).toBe(201);
    const benThread = (await (await ben.call('/api/threads', post({ bot: 'demo' }))).json()) as { id: string };
    await ben.call(`/api/threads/${benThread.id}/lines`, post({ who: 'person', text: 'Ben’s own question', clientId: 'b1' }));

    const listed = async (person: typeof ana) => ((await (await person.call('/api/threads?bot=demo')).json()) as { threads: { id: string; title: string }[] }).threads;
    expect(await listed(ana)).toMatchObject([{ id: thread.id, title: 'A secret of Ana' }]);
    expect(await listed(ben)).toMatchObject([{ id: benThread.id, title: 'Ben’s own question' }]);
    expect(((await (await ben.call(`/api/threads/${thread.id}/lines`)).json()) as { lines: unknown[] }).lines).toEqual([]);
    expect((await ben.call(`/api/threads/${thread.id}/lines`, post({ who: 'person', text: 'Ben was here', clientId: 'b2' }))).status).toBe(404);
    expect((await ben.call(`/api/threads/${thread.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(((await (await ana.call(`/api/threads/${thread.id}/lines`)).json()) as { lines: unknown[] }).lines).toHaveLength(1);
  });

  it('asks a person who signed out to sign in again', async () => {
    const { auth, call } = await personAtPage();
    expect((await call('/api/threads?bot=demo')).status).toBe(200);
    await auth.signOut();
    const res = await call('/api/threads?bot=demo');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: requestRefusal('requests.sign-in-needed') });
  });
});

describe('configuring Supabase mode', () => {
  it('tells the page it is local when the server is', async () => {
    const local = createApp({ config: readConfig({ CONFAB_DIST: '/nonexistent' }), api: createBackend(backendDeps({})) });
    expect(((await (await local.request('/api/config')).json()) as { auth: unknown }).auth).toEqual({ kind: 'local' });
  });

  it('refuses to build the app in Supabase mode without the anon key the page signs in with', () => {
    const env = { SUPABASE_URL: standIn.url, SUPABASE_JWT_SECRET: JWT_SECRET };
    expect(() => createApp({ config: { ...readConfig({ CONFAB_DIST: '/nonexistent' }) }, api: createBackend(backendDeps(env)) })).toThrow(ConfigError);
    expect(() => readConfig(env)).toThrow(/SUPABASE_URL is set but SUPABASE_ANON_KEY is not/);
  });
});
