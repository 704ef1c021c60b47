/**
 * `tasks.unschedule` of two or more schedules asks first, always — from the person's side, through
 * the door with the stand-in (no key): "cancel my schedules" with two kept is a question, nothing is
 * stopped until the person's yes; "… about" words two schedules share asks the same; one schedule is
 * stopped at once. And whoever calls it: over MCP (the executor's `via: 'mcp'`) it asks too.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionSettled, PendingActionEvent } from '../../../common/acting/protocol';
import { DOOR_EVENTS } from '../../../common/acting/protocol';
import lists from '../../../server/apps/lists/index';
import tasks from '../../../server/apps/tasks/index';
import { parseBotFile } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { PERSON_COOKIE, personCookieKey, readPersonCookie } from '../../../server/person';
import { activeSchedules } from '../../../server/runs/schedules';
import { createRegistry } from '../../../server/verbs/registry';
import { heardOf } from '../../helpers/doorHeard';
import { testBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase } from '../db/fixtures';

// Its people are bare cookies, whom only a bot that says so lets make schedules (workFor.test.ts).
const BOT = `---
name: Buddy
memory: none
apps: [lists]
work: anyone
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You help.`;

describe('stopping two or more schedules asks first, always', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let backend: TestBackend;
  const secret = randomBytes(32);

  beforeAll(async () => {
    db = await openMemoryDatabase();
    backend = testBackend(db, {
      bots: new Map([['buddy', parseBotFile('buddy.md', BOT)]]),
      grantSecret: secret,
      registry: createRegistry([lists, tasks]),
      runs: { leaseMs: 2_000, pollMs: 20, scheduleLookMs: 60_000, scriptedStepMs: 0 },
    });
    // No worker and no clock: schedules are only made, asked about and stopped here.
    await backend.api.runs.worker.stop();
  }, OPENING_MS);
  afterAll(async () => {
    await backend.api.runs.stop();
    await backend.close();
    await db.close();
  });

  /** A new person at the door with Buddy: what they say and hear (and the question the door asked, as the page keeps it), and their answer to one. */
  async function somebody() {
    const res = await backend.request('/api/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'buddy' }) });
    const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const { grant } = (await res.json()) as { grant: string };
    const conversation = `conv-${randomBytes(4).toString('hex')}`;
    const person = readPersonCookie(personCookieKey(secret), cookie.slice(`${PERSON_COOKIE}=`.length))?.person ?? '';
    return {
      person,
      say: async (line: string) => {
        const answer = await backend.request('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${grant}`, cookie, 'x-confab-conversation': conversation, 'x-confab-time-zone': 'UTC' },
          body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: line }] }),
        });
        const { text, events } = await heardOf(answer);
        return { text: text.trim(), confirm: events.filter((e) => e.event === DOOR_EVENTS.confirm).at(-1)?.data as PendingActionEvent | undefined };
      },
      answer: async (id: string, yes: boolean) =>
        (await (await backend.request(`/api/actions/${id}/${yes ? 'approve' : 'deny'}`, { method: 'POST', headers: { cookie, origin: 'http://localhost' } })).json()) as ActionSettled,
    };
  }
  const kept = async (person: string) => (await db.asPerson(person, (tx) => activeSchedules(tx, 'buddy'))).map((s) => s.asked).sort();

  it('asks before stopping every schedule, stops none until the yes, and all of them on it', async () => {
    const ana = await somebody();
    expect((await ana.say('every day at eight, water the plants')).text).toBe("All right: every day at 08:00, I'll do that.");
    expect((await ana.say("every monday at nine, tell me what's on my todo list")).text).toMatch(/^All right: every .*Monday.* 09:00, I'll do that\.$/);
    const heard = await ana.say('cancel my schedules');
    expect(heard.text).toBe('Shall I stop 2 schedules? Say yes or no.');
    expect(heard.confirm).toMatchObject({ verb: 'tasks.unschedule', question: 'Shall I stop 2 schedules? Say yes or no.' });
    expect(await kept(ana.person)).toEqual(["tell me what's on my todo list", 'water the plants']);
    expect((await ana.answer(heard.confirm?.id ?? '', true)).outcome).toBe('done');
    expect(await kept(ana.person)).toEqual([]);
  });

  it('asks before stopping the two that match "about", and stops one that alone matches at once', async () => {
    const ben = await somebody();
    for (const line of ['every day at eight, water the plants', 'every day at nine, water the garden', 'every day at ten, feed the cat']) {
      expect((await ben.say(line)).text).toMatch(/^All right: every day at/);
    }
    const heard = await ben.say('cancel the schedule about water');
    expect(heard.text).toBe('Shall I stop 2 schedules about water? Say yes or no.');
    expect(heard.confirm?.verb).toBe('tasks.unschedule');
    expect(await kept(ben.person)).toHaveLength(3);
    expect((await ben.answer(heard.confirm?.id ?? '', false)).outcome).toBe('denied');
    expect(await kept(ben.person)).toEqual(['feed the cat', 'water the garden', 'water the plants']);
    const one = await ben.say('cancel the schedule about the cat');
    expect([one.text, one.confirm]).toEqual(["I've stopped 1 schedule.", undefined]);
    expect(await kept(ben.person)).toEqual(['water the garden', 'water the plants']);
  });

  it('asks an MCP client too: whoever calls it, two schedules are a question', async () => {
    const cy = await somebody();
    for (const line of ['every day at eight, water the plants', 'every day at nine, feed the cat']) expect((await cy.say(line)).text).toMatch(/^All right/);
    const overMcp = (input: { about?: string }) =>
      backend.api.executor.execute({ verb: 'tasks.unschedule', input, caller: { person: cy.person, bot: 'buddy', via: 'mcp', timeZone: 'UTC' }, idempotencyKey: `key-${randomBytes(8).toString('hex')}` });
    const outcome = await overMcp({});
    expect(!outcome.ok && outcome.error.code).toBe('confirmation_required');
    expect(await kept(cy.person)).toEqual(['feed the cat', 'water the plants']);
    // One schedule is no question, over MCP as at the door: it is the two that asked.
    const one = await overMcp({ about: 'cat' });
    expect(one.ok && one.output).toMatchObject({ cancelled: 1 });
    expect(await kept(cy.person)).toEqual(['water the plants']);
  });
});
