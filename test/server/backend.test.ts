/**
 * The whole API in process, as the page uses it: start a conversation, talk through the door,
 * keep lines, read and forget memories — and what one person may never do to another's.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { loadBots } from '../../server/bots';
import type { Bot } from '../../server/bots';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { LINE_MAX_CHARS } from '../../common/conversation/events';
import { answerTextOf } from '../helpers/doorHeard';
import { openTestBackend, testBackend } from '../helpers/testBackend';
import type { TestBackend } from '../helpers/testBackend';
import { startSocketPostgres } from './db/fixtures';
import type { SocketPostgres } from './db/fixtures';

/** One browser: keeps its person cookie like a browser does. */
class Browser {
  cookie = '';
  constructor(private readonly app: Hono) {}

  async call(path: string, init: { method?: string; body?: unknown; grant?: string } = {}): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.cookie) headers.cookie = this.cookie;
    if (init.grant) headers.authorization = `Bearer ${init.grant}`;
    const res = await this.app.request(path, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers,
      ...(init.body === undefined ? {} : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
    });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0] ?? '';
    return res;
  }

  async start(bot = 'demo'): Promise<string> {
    const res = await this.call('/api/start', { body: { bot } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { grant: string }).grant;
  }

  /** Asks through the door and reads the whole streamed answer. */
  async ask(grant: string, question: string): Promise<string> {
    const res = await this.call('/v1/chat/completions', { grant, body: { stream: true, messages: [{ role: 'user', content: question }] } });
    expect(res.status).toBe(200);
    return answerTextOf(res);
  }
}

describe('the API', () => {
  let backend: TestBackend;
  let app: Hono;
  let bots: Map<string, Bot>;

  beforeAll(async () => {
    bots = await loadBots('bots');
    backend = await openTestBackend({ bots });
    app = backend.app;
  });

  afterAll(async () => {
    await backend.close();
  });

  it('starts a conversation with a grant and the public part of the bot, never its prompt', async () => {
    const browser = new Browser(app);
    const res = await browser.call('/api/start', { body: { bot: 'demo' } });
    const body = (await res.json()) as { grant: string; expiresAt: number; bot: Record<string, unknown> };
    expect(body.grant).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(body.expiresAt).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(body.bot).toMatchObject({ slug: 'demo', name: 'Sage', memory: 'person+recall' });
    expect(JSON.stringify(body.bot)).not.toMatch(/prompt|You are Sage/);
    expect(browser.cookie).toMatch(/^confab_person=/);
  });

  it('lists the bots a page may offer, by name, with their public part only', async () => {
    const res = await new Browser(app).call('/api/bots', { method: 'GET' });
    const body = (await res.json()) as { bots: { slug: string; name: string }[] };
    expect(body.bots.map((b) => b.slug)).toEqual([...bots.values()].sort((a, b) => a.name.localeCompare(b.name)).map((b) => b.slug));
    expect(body.bots.find((b) => b.slug === 'demo')).toMatchObject({ name: 'Sage', memory: 'person+recall', voice: { by: 'browser' } });
    expect(JSON.stringify(body)).not.toMatch(/prompt|You are Sage|limits/);
  });

  it('says plainly when the bot does not exist or the request is malformed', async () => {
    const browser = new Browser(app);
    expect((await browser.call('/api/start', { body: { bot: 'nobody' } })).status).toBe(404);
    const bad = await browser.call('/api/start', { body: '{not json' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'The request body is not JSON.' });
    const wrong = await browser.call('/api/start', { body: { bot: 7 } });
    expect(await wrong.json()).toEqual({ error: 'bot must be a string.' });
    expect((await browser.call('/api/start', { body: { bot: 'x'.repeat(70_000) } })).status).toBe(413);
  });

  it('answers through the door with the stand-in, which says why and what it heard', async () => {
    const browser = new Browser(app);
    const answer = await browser.ask(await browser.start(), 'What is the capital of Peru?');
    expect(answer).toMatch(/stand-in/);
    expect(answer).toMatch(/What is the capital of Peru\?/);
  });

  it('refuses the door without a valid grant', async () => {
    const browser = new Browser(app);
    const grant = await browser.start();
    const res = await browser.call('/v1/chat/completions', { grant: `${grant}x`, body: { messages: [{ role: 'user', content: 'hi' }] } });
    expect(res.status).toBe(401);
  });

  it('keeps lines as they are said, once each, and lists the conversation by its first words', async () => {
    const browser = new Browser(app);
    const thread = (await (await browser.call('/api/threads', { body: { bot: 'demo' } })).json()) as { id: string };
    const empty = (await (await browser.call('/api/threads?bot=demo')).json()) as { threads: unknown[] };
    expect(empty.threads).toEqual([]);
    const said = { who: 'person', text: 'Plan my trip to Lisbon\nfor next week', clientId: 'a1' };
    const first = await browser.call(`/api/threads/${thread.id}/lines`, { body: said });
    expect(first.status).toBe(201);
    const again = await browser.call(`/api/threads/${thread.id}/lines`, { body: said });
    expect(((await again.json()) as { id: string }).id).toBe(((await first.json()) as { id: string }).id);
    await browser.call(`/api/threads/${thread.id}/lines`, { body: { who: 'assistant', text: 'Gladly.', clientId: 'a2', interrupted: true } });
    const listed = (await (await browser.call('/api/threads?bot=demo')).json()) as { threads: { id: string; title: string }[] };
    expect(listed.threads).toMatchObject([{ id: thread.id, title: 'Plan my trip to Lisbon' }]);
    const lines = (await (await browser.call(`/api/threads/${thread.id}/lines`)).json()) as { lines: { who: string; interrupted: boolean }[] };
    expect(lines.lines.map((l) => [l.who, l.interrupted])).toEqual([['person', false], ['assistant', true]]);
    expect((await browser.call(`/api/threads/${thread.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(((await (await browser.call('/api/threads?bot=demo')).json()) as { threads: unknown[] }).threads).toEqual([]);
  });

  it('keeps a line as long as the longest answer whole, whatever its characters take in bytes', async () => {
    const browser = new Browser(app);
    const thread = (await (await browser.call('/api/threads', { body: { bot: 'demo' } })).json()) as { id: string };
    const answer = 'An answer that runs on. '.repeat(263).slice(0, 6_300);
    // The longest line kept, in characters of three bytes each: over the 64 KiB other routes read.
    const widest = '語'.repeat(LINE_MAX_CHARS);
    for (const [text, clientId] of [[answer, 'long-1'], [widest, 'long-2']] as const) {
      const kept = await browser.call(`/api/threads/${thread.id}/lines`, { body: { who: 'assistant', text, clientId } });
      expect(kept.status).toBe(201);
    }
    const lines = (await (await browser.call(`/api/threads/${thread.id}/lines`)).json()) as { lines: { text: string }[] };
    expect(lines.lines.map((l) => l.text)).toEqual([answer, widest]);
    expect(answer).toHaveLength(6_300);
  });

  it('refuses a line that is blank, too long or from nobody it knows', async () => {
    const browser = new Browser(app);
    const thread = (await (await browser.call('/api/threads', { body: { bot: 'demo' } })).json()) as { id: string };
    const blank = await browser.call(`/api/threads/${thread.id}/lines`, { body: { who: 'person', text: '  ', clientId: 'b' } });
    expect(await blank.json()).toEqual({ error: 'text must not be blank.' });
    const long = await browser.call(`/api/threads/${thread.id}/lines`, { body: { who: 'person', text: 'x'.repeat(LINE_MAX_CHARS + 1), clientId: 'c' } });
    expect(long.status).toBe(413);
    expect(await long.json()).toEqual({ error: 'A line is at most 32,768 characters and this one is 32,769; send it as several lines.' });
    const who = await browser.call(`/api/threads/${thread.id}/lines`, { body: { who: 'system', text: 'hi', clientId: 'd' } });
    expect(await who.json()).toEqual({ error: 'who must be "person" or "assistant".' });
  });

  it('never lets one person read, add to or delete another’s conversation', async () => {
    const ana = new Browser(app);
    const ben = new Browser(app);
    const thread = (await (await ana.call('/api/threads', { body: { bot: 'demo' } })).json()) as { id: string };
    await ana.call(`/api/threads/${thread.id}/lines`, { body: { who: 'person', text: 'A secret of Ana', clientId: '1' } });
    await ben.start();
    expect(((await (await ben.call('/api/threads?bot=demo')).json()) as { threads: unknown[] }).threads).toEqual([]);
    expect(((await (await ben.call(`/api/threads/${thread.id}/lines`)).json()) as { lines: unknown[] }).lines).toEqual([]);
    const intrude = await ben.call(`/api/threads/${thread.id}/lines`, { body: { who: 'person', text: 'Ben was here', clientId: '2' } });
    expect(intrude.status).toBe(404);
    expect((await ben.call(`/api/threads/${thread.id}`, { method: 'DELETE' })).status).toBe(404);
    expect(((await (await ana.call(`/api/threads/${thread.id}/lines`)).json()) as { lines: unknown[] }).lines).toHaveLength(1);
  });

  it('remembers what the person told a person+recall bot, shows it only to them, and forgets it on request', async () => {
    const ana = new Browser(app);
    await ana.ask(await ana.start(), 'My sister Ana lives in Porto and loves green tea.');
    const memories = async () => ((await (await ana.call('/api/memories?bot=demo')).json()) as { memories: { id: string; text: string }[] }).memories;
    // The door writes the memory after the answer has been sent.
    await expect.poll(async () => (await memories()).map((m) => m.text), { timeout: 5_000 }).toEqual(['My sister Ana lives in Porto and loves green tea.']);
    const ben = new Browser(app);
    await ben.start();
    expect(((await (await ben.call('/api/memories?bot=demo')).json()) as { memories: unknown[] }).memories).toEqual([]);
    const id = (await memories())[0]?.id ?? '';
    expect((await ben.call(`/api/memories/${id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await ana.call(`/api/memories/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect(((await (await ana.call('/api/memories?bot=demo')).json()) as { memories: unknown[] }).memories).toEqual([]);
  });

  it('offers no route by which a client writes a memory', async () => {
    const browser = new Browser(app);
    await browser.start();
    const res = await browser.call('/api/memories', { body: { bot: 'demo', text: 'You promised me a pony.' } });
    expect(res.status).toBe(404);
  });

  it('answers 404 no-endpoint from the speak proxy when no paid voice is configured', async () => {
    const browser = new Browser(app);
    const res = await browser.call('/api/speak', { grant: await browser.start(), body: { input: 'Hello.' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'no-endpoint' });
  });
});

describe('two servers over one database', () => {
  let postgres: SocketPostgres;
  const dbs: Database[] = [];

  beforeAll(async () => {
    postgres = await startSocketPostgres();
  });

  afterAll(async () => {
    await Promise.all(dbs.map((db) => db.close()));
    await postgres.stop();
  });

  it('hold one person’s ceiling between them', async () => {
    const loaded = await loadBots('bots');
    const demo = loaded.get('demo');
    if (!demo) throw new Error('bots/demo.md is missing');
    const bots = new Map([['demo', { ...demo, limits: { ...demo.limits, perMinute: { answers: 3 } } }]]);
    const secret = randomBytes(32);
    for (let i = 0; i < 2; i++) dbs.push(await openDatabase({ url: postgres.url }));
    const [one, two] = dbs.map((db) => testBackend(db, { bots, grantSecret: secret }).app) as [Hono, Hono];
    const onOne = new Browser(one);
    const grant = await onOne.start();
    const onTwo = new Browser(two);
    onTwo.cookie = onOne.cookie;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? onOne : onTwo).ask(grant, `Question ${i}`)));
    const answered = answers.filter((a) => a.includes('stand-in'));
    expect(answered).toHaveLength(3);
    expect(answers.filter((a) => !a.includes('stand-in')).every((a) => /minute/i.test(a))).toBe(true);
  });
});
