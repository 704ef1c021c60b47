/**
 * `memory.forget` through the one executor, as the door, the confirmation route and MCP reach it:
 * more than one memory is forgotten only once the person said yes; one goes without a question.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionSettled, PendingActionEvent } from '../../common/acting/protocol';
import { DOOR_EVENTS } from '../../common/acting/protocol';
import memory from '../../server/apps/memory/index';
import type { Backend } from '../../server/backend';
import { parseBotFile } from '../../server/bots';
import type { Database } from '../../server/db/database';
import { listMemories } from '../../server/db/memories';
import { PERSON_COOKIE, personCookieKey, readPersonCookie } from '../../server/person';
import { Approval } from '../../server/verbs/approval';
import { createRegistry } from '../../server/verbs/registry';
import { shippedWords } from '../../server/words/loadWords';
import { say } from '../../server/words/words';
import { heardOf } from '../helpers/doorHeard';
import { testBackend } from '../helpers/testBackend';

const DONE_SENTENCE = say(shippedWords().wordsIn('en'), 'acting.done');
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase } from './db/fixtures';

const BOT = `---
name: Keeper
memory: none
apps: [memory]
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You remember.`;
const SISTER = ['My sister is called Ana', "My sister's birthday is in May", 'My sister lives in Porto', 'my sister likes tea'];

describe('forgetting more than one memory asks first', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let api: Backend;
  let app: Hono;
  const secret = randomBytes(32);

  beforeAll(async () => {
    db = await openMemoryDatabase();
    ({ api, app } = testBackend(db, { bots: new Map([['keeper', parseBotFile('keeper.md', BOT)]]), grantSecret: secret, registry: createRegistry([memory]) }));
  }, OPENING_MS);
  afterAll(() => db.close());

  /** A person with a cookie and a grant for the keeper, who told it `texts`. */
  async function personWith(told: readonly string[]) {
    let cookie = '';
    const call = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await app.request(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(cookie === '' ? {} : { cookie }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const set = res.headers.get('set-cookie');
      if (set !== null) cookie = set.split(';')[0] ?? '';
      return res;
    };
    const { grant } = (await (await call('/api/start', { bot: 'keeper' })).json()) as { grant: string };
    const person = readPersonCookie(personCookieKey(secret), cookie.slice(`${PERSON_COOKIE}=`.length))?.person ?? '';
    const caller = { person, bot: 'keeper', via: 'model' as const, timeZone: 'UTC' };
    for (const text of told) {
      const kept = await api.executor.execute({ verb: 'memory.remember', input: { text }, caller, idempotencyKey: `remember-${randomUUID()}` });
      expect(kept.ok).toBe(true);
    }
    const say = async (line: string) => {
      const res = await call('/v1/chat/completions', { stream: true, messages: [{ role: 'user', content: line }] }, { authorization: `Bearer ${grant}` });
      const { text, events } = await heardOf(res);
      // The last confirm the door asked for, as the page keeps it.
      const confirm = events.filter((e) => e.event === DOOR_EVENTS.confirm).at(-1)?.data as PendingActionEvent | undefined;
      return { text, confirm };
    };
    const approve = async (id: string) => (await (await call(`/api/actions/${id}/approve`)).json()) as ActionSettled;
    const texts = async () => (await db.asPerson(person, (tx) => listMemories(tx, { bot: 'keeper' }))).map((m) => m.text).sort();
    return { caller, say, approve, texts };
  }

  it('asks "Forget the 4 things you told me about your sister?" through the door, forgets nothing until the yes, then all four', async () => {
    const ana = await personWith([...SISTER, 'I like coffee']);
    const heard = await ana.say('Forget what I said about my sister.');
    const question = 'Forget the 4 things you told me about your sister? Say yes or no.';
    expect(heard.text).toContain(question);
    expect(heard.confirm).toMatchObject({ verb: 'memory.forget', question });
    expect(await ana.texts()).toEqual(['I like coffee', ...SISTER].sort());
    expect(await ana.approve(heard.confirm?.id ?? '')).toEqual({ outcome: 'done', sentence: DONE_SENTENCE });
    expect(await ana.texts()).toEqual(['I like coffee']);
  });

  it('forgets exactly one memory without a question', async () => {
    const ben = await personWith(['My sister lives in Porto', 'I like coffee']);
    const heard = await ben.say('Forget what I said about Porto.');
    expect(heard.confirm).toBeUndefined();
    expect(heard.text).toContain("I've forgotten that.");
    expect(await ben.texts()).toEqual(['I like coffee']);
  });

  it('refuses over MCP what would forget more than one (only the page can say yes), and runs it with the person’s approval', async () => {
    const cy = await personWith(SISTER.slice(0, 2));
    const overMcp = await api.executor.execute({ verb: 'memory.forget', input: { about: 'sister' }, caller: { ...cy.caller, via: 'mcp' }, idempotencyKey: `mcp-${randomUUID()}` });
    expect(overMcp.ok ? 'ran' : overMcp.error.code).toBe('confirmation_required');
    expect(await cy.texts()).toHaveLength(2);
    const approved = await api.executor.execute({
      verb: 'memory.forget',
      input: { about: 'sister' },
      caller: { ...cy.caller, via: 'person' },
      approval: Approval.issue(randomUUID(), 'memory.forget'),
      idempotencyKey: `action-${randomUUID()}`,
    });
    expect(approved.ok ? approved.output : approved.error.code).toMatchObject({ count: 2 });
    expect(await cy.texts()).toEqual([]);
  });
});
