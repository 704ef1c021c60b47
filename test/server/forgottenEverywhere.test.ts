/**
 * Forgotten is forgotten everywhere the bot can look: once a memory is forgotten, `conversations.find`,
 * past questions (`memory: person`) and checkpoints leave out the lines that mention it (whole words,
 * as `memory.forget` matches), while the person's own transcript stays theirs to read. And
 * `memory.forget` counts what one turn forgets, asks once, and forgets exactly what it named.
 * From the person's side: their page's routes and the door, with the stand-in answering.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionSettled, PendingActionEvent } from '../../common/acting/protocol';
import { DOOR_EVENTS } from '../../common/acting/protocol';
import conversations from '../../server/apps/conversations/index';
import memory from '../../server/apps/memory/index';
import type { Backend } from '../../server/backend';
import { parseBotFile } from '../../server/bots';
import type { Database } from '../../server/db/database';
import { pastQuestions } from '../../server/db/lines';
import { listMemories } from '../../server/db/memories';
import { keepCheckpoint } from '../../server/db/presence';
import { PERSON_COOKIE, personCookieKey, readPersonCookie } from '../../server/person';
import { checkpoints } from '../../server/presence/checkpoints';
import { createRegistry } from '../../server/verbs/registry';
import type { Caller } from '../../server/verbs/verb';
import { heardOf } from '../helpers/doorHeard';
import { testBackend } from '../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase } from './db/fixtures';

const BOT = `---
name: Keeper
memory: person
apps: [memory, conversations]
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You remember.`;

interface Found {
  matches: { who: string; text: string }[];
}

describe('forgotten is forgotten everywhere the bot can look', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let api: Backend;
  let app: Hono;
  const secret = randomBytes(32);

  beforeAll(async () => {
    db = await openMemoryDatabase();
    ({ api, app } = testBackend(db, { bots: new Map([['keeper', parseBotFile('keeper.md', BOT)]]), grantSecret: secret, registry: createRegistry([memory, conversations]) }));
  }, OPENING_MS);
  afterAll(() => db.close());

  /** A person's page: a cookie, a conversation with the keeper, and every line said saved as the page saves it. */
  async function page() {
    let cookie = '';
    const call = async (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
      const res = await app.request(path, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { 'content-type': 'application/json', ...(cookie === '' ? {} : { cookie }), ...init.headers },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
      const set = res.headers.get('set-cookie');
      if (set !== null) cookie = set.split(';')[0] ?? '';
      return res;
    };
    const { grant } = (await (await call('/api/start', { body: { bot: 'keeper' } })).json()) as { grant: string };
    const person = readPersonCookie(personCookieKey(secret), cookie.slice(`${PERSON_COOKIE}=`.length))?.person ?? '';
    const { id: thread } = (await (await call('/api/threads', { body: { bot: 'keeper' } })).json()) as { id: string };
    const line = async (who: 'person' | 'assistant', text: string) => {
      expect((await call(`/api/threads/${thread}/lines`, { body: { who, text, clientId: randomUUID() } })).status).toBe(201);
    };
    /** Says `question` as a turn of its own: saved, answered by the door, the answer saved. */
    const say = async (question: string, turn = `turn-${randomUUID()}`) => {
      await line('person', question);
      const res = await call('/v1/chat/completions', { body: { stream: true, messages: [{ role: 'user', content: question }] }, headers: { authorization: `Bearer ${grant}`, 'x-confab-turn': turn } });
      const heard = await heardOf(res);
      await line('assistant', heard.text);
      const confirm = heard.events.filter((e) => e.event === DOOR_EVENTS.confirm).at(-1)?.data as PendingActionEvent | undefined;
      return { text: heard.text, confirm };
    };
    const caller: Caller = { person, bot: 'keeper', via: 'mcp', timeZone: 'UTC' };
    const find = async (about: string) => {
      const outcome = await api.executor.execute({ verb: 'conversations.find', input: { about }, caller });
      if (!outcome.ok) throw new Error(outcome.error.code);
      return (outcome.output as Found).matches.map((m) => m.text);
    };
    const transcript = async () => ((await (await call(`/api/threads/${thread}/lines`)).json()) as { lines: { text: string }[] }).lines.map((l) => l.text);
    const memories = async () => ((await (await call('/api/memories?bot=keeper')).json()) as { memories: { text: string }[] }).memories.map((m) => m.text).sort();
    const approve = async (id: string) => (await (await call(`/api/actions/${id}/approve`, { body: {} })).json()) as ActionSettled;
    return { person, caller, line, say, find, transcript, memories, approve };
  }

  it('finds nothing of "my sister is called Ana" once it is forgotten, while the person’s transcript still holds it', async () => {
    const ana = await page();
    expect((await ana.say('remember that my sister is called Ana')).text).toBe("I'll remember that my sister is called ana.");
    await ana.line('person', 'My sister is visiting in May.');
    expect(await ana.find('my sister')).toEqual(['My sister is visiting in May.', "I'll remember that my sister is called ana.", 'remember that my sister is called Ana']);

    expect((await ana.say('forget that my sister is called Ana')).text).toBe("I've forgotten that.");
    expect(await ana.memories()).toEqual([]);
    expect(await ana.find('my sister')).toEqual(['My sister is visiting in May.']);
    expect(await ana.find('Ana')).toEqual([]);
    // A line said afterwards that mentions it is the person's too, and no bot's.
    await ana.line('assistant', 'Your sister is called Ana, you said.');
    expect(await ana.find('Ana')).toEqual([]);
    expect(await ana.transcript()).toEqual([
      'remember that my sister is called Ana',
      "I'll remember that my sister is called ana.",
      'My sister is visiting in May.',
      'forget that my sister is called Ana',
      "I've forgotten that.",
      'Your sister is called Ana, you said.',
    ]);
    // Past questions (`memory: person`) leave it out as well.
    expect(await db.asPerson(ana.person, (tx) => pastQuestions(tx, { person: ana.person, bot: 'keeper', limit: 50 }))).toEqual(['My sister is visiting in May.']);
  });

  it.each([
    ['es', 'mi hermana se llama Ana', ['Tu hermana se llama Ana, me dijiste.', 'Su hermana se llama Ana.']],
    ['fr', 'ma sœur s’appelle Ana', ['Ta sœur s’appelle Ana, tu me l’as dit.', 'Votre sœur s’appelle Ana.']],
    ['de', 'meine Schwester heißt Ana', ['Deine Schwester heißt Ana, hast du gesagt.', 'Ihre Schwester heißt Ana.']],
  ])('in %s, forgets the bot’s own saying back of it, familiar and polite', async (language, said, back) => {
    const ana = await page();
    const caller = { ...ana.caller, language };
    await ana.line('person', said);
    for (const line of back) await ana.line('assistant', line);
    await ana.line('assistant', 'Ana es un nombre bonito. Ana ist ein schöner Name.');
    const remembered = await api.executor.execute({ verb: 'memory.remember', input: { text: said }, caller, idempotencyKey: `remember-${randomUUID()}` });
    expect(remembered.ok).toBe(true);
    expect(await ana.find('Ana')).toHaveLength(4);
    const forgot = await api.executor.execute({ verb: 'memory.forget', input: { about: said }, caller, idempotencyKey: `forget-${randomUUID()}` });
    expect(forgot.ok && (forgot.output as { count: number }).count).toBe(1);
    expect(await ana.find('Ana')).toEqual(['Ana es un nombre bonito. Ana ist ein schöner Name.']);
    expect(await ana.transcript()).toEqual([said, ...back, 'Ana es un nombre bonito. Ana ist ein schöner Name.']);
  });

  it('leaves a forgotten memory out of a checkpoint taken before it was forgotten', async () => {
    const ben = await page();
    await ben.say('remember that my sister is called Ana');
    await db.asPerson(ben.person, (tx) => keepCheckpoint(tx, ben.person, 'keeper', 'talk-1', 'They told me your sister is called Ana. They like tea.\nuser: my sister is called Ana\nassistant: Noted.', Date.now()));
    const marks = checkpoints({ db, clock: Date.now });
    expect(await marks.latest(ben.person, 'keeper', 'talk-1')).toContain('sister is called Ana');
    await ben.say('forget that my sister is called Ana');
    expect(await marks.latest(ben.person, 'keeper', 'talk-1')).toBe('They like tea.\nassistant: Noted.');
  });

  it('asks once when one turn forgets one memory per call, and a yes forgets exactly the memories the question named', async () => {
    const cy = await page();
    for (const text of ['My sister is called Ana', 'My sister lives in Porto', 'My brother is called Rui']) {
      expect((await api.executor.execute({ verb: 'memory.remember', input: { text }, caller: cy.caller, idempotencyKey: `remember-${randomUUID()}` })).ok).toBe(true);
    }
    const turn = { ...cy.caller, via: 'model' as const, turn: `turn-key-${randomUUID()}` };
    const forget = (about: string) => api.executor.execute({ verb: 'memory.forget', input: { about }, caller: turn, idempotencyKey: `forget-${randomUUID()}` });
    const first = await forget('my brother');
    expect(first.ok ? first.output : first.error.code).toMatchObject({ count: 1 });
    const second = await forget('Porto');
    expect(second.ok ? 'ran' : second.error.code).toBe('confirmation_required');
    expect(await cy.memories()).toEqual(['My sister is called Ana', 'My sister lives in Porto']);

    // Through the door: "forget what I said about my sister" names two memories; a third said after the question stays.
    const asked = await cy.say('forget what I said about my sister');
    expect(asked.confirm?.question).toBe('Forget the 2 things you told me about your sister? Say yes or no.');
    expect((await api.executor.execute({ verb: 'memory.remember', input: { text: 'My sister plays the cello' }, caller: cy.caller, idempotencyKey: `remember-${randomUUID()}` })).ok).toBe(true);
    expect((await cy.approve(asked.confirm?.id ?? '')).outcome).toBe('done');
    expect(await cy.memories()).toEqual(['My sister plays the cello']);
    expect(await db.asPerson(cy.person, (tx) => listMemories(tx, { bot: 'keeper' }))).toHaveLength(1);
  });
});
