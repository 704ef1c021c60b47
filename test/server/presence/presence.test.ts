/**
 * Presence through the API in process: the referee across a person's pages, the window's events
 * fanned out to every page, what a page that comes back is owed, two instances over one database,
 * and the window surviving a restart.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import type { Backend } from '../../../server/backend';
import { loadBots } from '../../../server/bots';
import type { Bot } from '../../../server/bots';
import { openDatabase } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import type { LiveState, PageRef, WindowEvent } from '../../../common/presence/protocol';
import { testBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS } from '../db/fixtures';
import { Person } from './presenceClient';
import { openTestDatabase } from '../../helpers/testDatabase';

let n = 0;
/** A fresh page on a device (ids as the page makes them). */
const pageOn = (device: string): PageRef => ({ page: `page-${String(++n).padStart(6, '0')}`, device });
const line = (conversation: string, role: 'user' | 'assistant', text: string, utteranceId: number): WindowEvent => ({ kind: 'line', conversation, line: { role, text, utteranceId } });
const live = (conversation: string, liveLine: string): LiveState => ({ conversation, liveLine, phase: 'listening', draft: null });

describe('presence over one server', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let app: Hono;
  let api: Backend;
  let bots: Map<string, Bot>;

  beforeAll(async () => {
    db = await openTestDatabase();
    bots = await loadBots('bots');
    ({ app, api } = testBackend(db, { bots, presence: { windowCapacity: 6 } }));
  }, OPENING_MS);

  afterAll(async () => {
    await api.presence.close();
    await db.close();
  });

  it('makes the first page the active one, makes the second passive, and hands it over on a claim', async () => {
    const person = new Person(app);
    await person.start();
    const laptop = pageOn('laptop-0001');
    const phone = pageOn('phone-00001');
    const one = await person.open(laptop);
    const first = await one.next('hello');
    expect(first).toMatchObject({ seat: { role: 'active', term: 1, active: laptop }, owed: 'nothing' });
    // The person's tag, the same on each of their pages, for the browser's lock and channel.
    expect(first.you).toMatch(/^[0-9a-f]{32}$/);
    const two = await person.open(phone);
    expect(await two.next('hello')).toMatchObject({ seat: { role: 'passive', term: 1, active: laptop }, you: first.you });

    expect(await person.claim(phone)).toEqual({ role: 'active', term: 2, active: phone });
    // The active page is told to yield the moment the claim arrives, then the ruling.
    expect((await one.next('yield')).to).toEqual(phone);
    expect(one.messages.findIndex((m) => m.type === 'yield')).toBeLessThan(one.messages.findIndex((m) => m.type === 'seat'));
    expect((await one.next('seat')).seat).toEqual({ role: 'passive', term: 2, active: phone });
    expect((await two.next('seat')).seat).toEqual({ role: 'active', term: 2, active: phone });
    // The move is kept in the window, for every page.
    expect((await one.next('event')).sequenced.event).toEqual({ kind: 'presence', active: phone, term: 2 });
    expect((await two.next('event')).sequenced.event).toEqual({ kind: 'presence', active: phone, term: 2 });

    // Claiming again changes nothing: the same term, and nobody else is told.
    expect(await person.claim(phone)).toEqual({ role: 'active', term: 2, active: phone });
    one.close();
    two.close();
  });

  it('fans what one page says out to the others, and the live line from the active page only', async () => {
    const person = new Person(app);
    await person.start();
    const active = pageOn('laptop-0002');
    const passive = pageOn('phone-00002');
    const a = await person.open(active);
    await a.next('hello');
    const b = await person.open(passive);
    await b.next('hello');

    const published = await person.publish(active.page, [{ kind: 'conversation', conversation: 'conv-1', threadId: null, reopened: false }, line('conv-1', 'user', 'What time is it?', 1)], live('conv-1', 'What time is it?'));
    expect(published.seqs).toHaveLength(2);
    expect(published.seat).toMatchObject({ role: 'active' });
    const said = await b.next('event', (m) => m.sequenced.event.kind === 'line');
    expect(said.sequenced).toMatchObject({ seq: published.seqs[1], event: line('conv-1', 'user', 'What time is it?', 1) });
    expect((await b.next('live')).live).toEqual(live('conv-1', 'What time is it?'));
    // The active page gets the window's events too (it keeps count), never its own live state.
    await a.next('event', (m) => m.sequenced.seq === published.seqs[1]);

    // A passive page's live state is nobody's to show; its lines are kept (they were said).
    const fromPassive = await person.publish(passive.page, [line('conv-1', 'assistant', 'Noon.', 1)], live('conv-1', 'shh'));
    expect(fromPassive.seat).toMatchObject({ role: 'passive' });
    await a.next('event', (m) => m.sequenced.seq === fromPassive.seqs[0]);
    expect(a.messages.some((m) => m.type === 'live')).toBe(false);
    a.close();
    b.close();
  });

  it('owes a page that comes back every event since the last it has, once; and a reload once it fell out of the window', async () => {
    const person = new Person(app);
    await person.start();
    const active = pageOn('laptop-0003');
    const away = pageOn('phone-00003');
    const a = await person.open(active);
    await a.next('hello');
    const first = await person.publish(active.page, [{ kind: 'conversation', conversation: 'conv-2', threadId: 't-2', reopened: false }, line('conv-2', 'user', 'One.', 1)]);
    const since = first.seqs.at(-1) ?? 0;
    // The phone is away while two more lines are said.
    const later = await person.publish(active.page, [line('conv-2', 'assistant', 'Two.', 1), line('conv-2', 'user', 'Three.', 2)]);
    const back = await person.open(away, { since });
    expect(await back.next('hello')).toMatchObject({ owed: 'events', conversation: { conversation: 'conv-2', threadId: 't-2' } });
    const owed = [await back.next('event'), await back.next('event')];
    expect(owed.map((m) => m.sequenced.seq)).toEqual(later.seqs);
    const more = await person.publish(active.page, [line('conv-2', 'assistant', 'Four.', 2)]);
    await back.next('event', (m) => m.sequenced.seq === more.seqs[0]);
    // Each once, in order.
    expect(back.seqs()).toEqual([...later.seqs, ...more.seqs]);
    back.close();

    // The window holds 6 here: seven more lines and a page that had `since` has fallen out of it.
    await person.publish(active.page, Array.from({ length: 7 }, (_, i) => line('conv-2', 'user', `Line ${i}.`, 10 + i)));
    const late = await person.open(away, { since });
    expect(await late.next('hello')).toMatchObject({ owed: 'reload', conversation: { conversation: 'conv-2', threadId: 't-2' } });
    late.close();
    a.close();
  });

  it('owes a page that opens afresh the conversation on screen, from its start', async () => {
    const person = new Person(app);
    await person.start();
    const active = pageOn('laptop-0004');
    const a = await person.open(active);
    await a.next('hello');
    await person.publish(active.page, [line('old-conv', 'user', 'Before.', 1)]);
    const started = await person.publish(active.page, [{ kind: 'conversation', conversation: 'conv-3', threadId: null, reopened: false }, line('conv-3', 'user', 'Hello.', 1)]);
    const fresh = await person.open(pageOn('tablet-0004'));
    expect(await fresh.next('hello')).toMatchObject({ owed: 'events', seat: { role: 'passive' } });
    expect((await fresh.next('event')).sequenced.seq).toBe(started.seqs[0]);
    expect((await fresh.next('event')).sequenced.event).toEqual(line('conv-3', 'user', 'Hello.', 1));
    fresh.close();
    a.close();
  });

  it('leaves no page active when the active page closes, and lets the next claim make one', async () => {
    const person = new Person(app);
    await person.start();
    const first = pageOn('laptop-0005');
    const second = pageOn('laptop-0005');
    const a = await person.open(first);
    await a.next('hello');
    const b = await person.open(second);
    await b.next('hello');
    a.close();
    expect((await b.next('seat')).seat).toMatchObject({ role: 'free', active: null });
    expect((await person.claim(second)).role).toBe('active');
    expect((await b.next('seat')).seat).toMatchObject({ role: 'active', active: second });
    b.close();
  });

  it("keeps one person's presence from another's, and says what is wrong with a bad request", async () => {
    const ana = new Person(app);
    await ana.start();
    const bob = new Person(app);
    await bob.start();
    const anaPage = pageOn('ana-laptop1');
    const bobPage = pageOn('bob-laptop1');
    const a = await ana.open(anaPage);
    await a.next('hello');
    const b = await bob.open(bobPage);
    // Bob's page is his own first page: it has his voice, whatever Ana's pages do, and another tag.
    const bobHello = await b.next('hello');
    expect(bobHello).toMatchObject({ seat: { role: 'active', active: bobPage } });
    expect(bobHello.you).not.toBe((a.messages[0] as { you?: string }).you);
    const said = await ana.publish(anaPage.page, [line('ana-conv', 'user', 'Private.', 1)]);
    await a.next('event', (m) => m.sequenced.seq === said.seqs[0]);
    await bob.publish(bobPage.page, [line('bob-conv', 'user', 'Mine.', 1)]);
    await b.next('event', (m) => m.sequenced.event.kind === 'line');
    expect(JSON.stringify(b.messages)).not.toContain('Private.');
    a.close();
    b.close();

    expect((await ana.call('/api/presence?bot=nobody&page=page-000001&device=device-0001')).status).toBe(404);
    expect((await ana.call('/api/presence?bot=demo&page=x&device=device-0001')).status).toBe(400);
    expect((await ana.call('/api/presence?bot=demo&page=page-000001&device=device-0001&since=-1')).status).toBe(400);
    const server = await ana.call('/api/presence/events', { body: { bot: 'demo', page: anaPage.page, events: [{ kind: 'presence', active: null, term: 9 }] } });
    expect(server.status).toBe(400);
    expect(((await server.json()) as { error: string }).error).toBe('event.server-kind');
    expect((await ana.call('/api/presence/events', { body: { bot: 'demo', page: anaPage.page, events: [{ kind: 'line' }] } })).status).toBe(400);
    expect((await ana.call('/api/presence/active', { body: { bot: 'demo', page: anaPage.page } })).status).toBe(400);
  });
});

describe('presence over two instances of one database', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let one: TestBackend;
  let two: TestBackend;

  beforeAll(async () => {
    db = await openTestDatabase();
    const bots = await loadBots('bots');
    const secret = randomBytes(32);
    one = testBackend(db, { bots, grantSecret: secret });
    two = testBackend(db, { bots, grantSecret: secret });
    await Promise.all([one.api.presence.start(), two.api.presence.start()]);
  }, OPENING_MS);

  afterAll(async () => {
    await Promise.all([one.api.presence.close(), two.api.presence.close()]);
    await db.close();
  });

  it('tells a page on one instance that a page on the other became the active one, and carries what is said across (LISTEN/NOTIFY)', async () => {
    const onOne = new Person(one.app);
    await onOne.start();
    const onTwo = onOne.on(two.app);
    const laptop = pageOn('laptop-0010');
    const phone = pageOn('phone-00010');
    const a = await onOne.open(laptop);
    await a.next('hello');
    const b = await onTwo.open(phone);
    expect(await b.next('hello')).toMatchObject({ seat: { role: 'passive', active: laptop } });

    await onTwo.claim(phone);
    expect((await a.next('yield')).to).toEqual(phone);
    expect((await a.next('seat')).seat).toMatchObject({ role: 'passive', active: phone });

    const said = await onTwo.publish(phone.page, [line('conv-9', 'user', 'Across servers.', 1)], live('conv-9', 'Across servers.'));
    expect((await a.next('event', (m) => m.sequenced.seq === said.seqs[0])).sequenced.event).toEqual(line('conv-9', 'user', 'Across servers.', 1));
    expect((await a.next('live')).live.liveLine).toBe('Across servers.');

    // A line longer than a notification carries is read from the window instead.
    const long = 'word '.repeat(800).trim();
    const big = await onOne.publish(laptop.page, [line('conv-9', 'assistant', long, 1)]);
    expect((await b.next('event', (m) => m.sequenced.seq === big.seqs[0])).sequenced.event).toEqual(line('conv-9', 'assistant', long, 1));
    a.close();
    b.close();
  });
  it('carries a line and a live state over 8,000 bytes across instances by reference, whole and in order', async () => {
    const onOne = new Person(one.app);
    await onOne.start();
    const onTwo = onOne.on(two.app);
    const laptop = pageOn('laptop-0011');
    const phone = pageOn('phone-00011');
    const a = await onOne.open(laptop);
    expect(await a.next('hello')).toMatchObject({ seat: { role: 'active', active: laptop } });
    const b = await onTwo.open(phone);
    await b.next('hello');

    // As long as a long answer, in characters of three bytes each: 18,900 bytes, over a NOTIFY's 8,000.
    const answer = '語'.repeat(6_300);
    const said = await onOne.publish(laptop.page, [line('conv-10', 'assistant', answer, 1)]);
    expect((await b.next('event', (m) => m.sequenced.seq === said.seqs[0])).sequenced.event).toEqual(line('conv-10', 'assistant', answer, 1));

    // The answer being written, as long, then the next turn's short live state: both arrive, in order.
    const writing: LiveState = { conversation: 'conv-10', liveLine: '', phase: 'speaking', draft: { utteranceId: 2, text: answer } };
    await onOne.publish(laptop.page, [], writing);
    await onOne.publish(laptop.page, [], live('conv-10', 'And then?'));
    await b.next('live', (m) => m.live.liveLine === 'And then?');
    expect(b.messages.flatMap((m) => (m.type === 'live' ? [m.live] : []))).toEqual([writing, live('conv-10', 'And then?')]);
    a.close();
    b.close();
  });
});

describe('the window across a restart', { timeout: DB_TEST_MS }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'confab-presence-'));
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('still owes a page what it missed after the server restarts', async () => {
    const bots = await loadBots('bots');
    const secret = randomBytes(32);
    let db = await openDatabase({ dataDir });
    let running = testBackend(db, { bots, grantSecret: secret });
    const person = new Person(running.app);
    await person.start();
    const active = pageOn('laptop-0020');
    const said = await person.publish(active.page, [{ kind: 'conversation', conversation: 'conv-r', threadId: null, reopened: false }, line('conv-r', 'user', 'Before the restart.', 1), line('conv-r', 'assistant', 'Kept.', 1)]);
    await running.api.presence.close();
    await db.close();

    db = await openDatabase({ dataDir });
    running = testBackend(db, { bots, grantSecret: secret });
    const back = await person.on(running.app).open(pageOn('phone-00020'), { since: said.seqs[0] ?? 0 });
    expect(await back.next('hello')).toMatchObject({ owed: 'events' });
    expect((await back.next('event')).sequenced.event).toEqual(line('conv-r', 'user', 'Before the restart.', 1));
    expect((await back.next('event')).sequenced.event).toEqual(line('conv-r', 'assistant', 'Kept.', 1));
    back.close();
    await running.api.presence.close();
    await db.close();
  }, OPENING_MS);
});
