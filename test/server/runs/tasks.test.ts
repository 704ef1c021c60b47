/**
 * The `tasks` app through the door, as the page reaches it, with the stand-in (no key): work taken
 * on and the turn ended, the run carried out by the server's worker one step at a time, its
 * progress into the person's presence window, what it came to as one notice; a second start refused
 * while the first is busy; "how's that going?", "stop that", schedules made, listed and stopped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import clock from '../../../server/apps/clock/index';
import lists from '../../../server/apps/lists/index';
import reminders from '../../../server/apps/reminders/index';
import tasks, { WORDS } from '../../../server/apps/tasks/index';

const TAKEN_ON = WORDS.say('en', 'taken-on');
const ALREADY_BUSY = WORDS.say('en', 'already-busy');
import { parseBotFile } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { dueNotices } from '../../../server/db/notices';
import { readSteps } from '../../../server/runs/runs';
import { activeSchedules } from '../../../server/runs/schedules';
import { PERSON_COOKIE, personCookieKey, readPersonCookie } from '../../../server/person';
import { createRegistry } from '../../../server/verbs/registry';
import type { WindowEvent } from '../../../common/presence/protocol';
import { heardOf } from '../../helpers/doorHeard';
import { testBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase } from '../db/fixtures';

// Its people are bare cookies, whom only a bot that says so lets make schedules and long runs (workFor.test.ts).
const BOT = `---
name: Buddy
memory: none
languages: [en, es]
apps: [lists, reminders, clock]
work: anyone
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You help.`;

describe('work that outlives a turn, through the door', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let backend: TestBackend;
  const published: { person: string; event: WindowEvent }[] = [];
  const secret = randomBytes(32);

  beforeAll(async () => {
    db = await openMemoryDatabase();
    backend = testBackend(db, {
      bots: new Map([['buddy', parseBotFile('buddy.md', BOT)]]),
      grantSecret: secret,
      registry: createRegistry([lists, reminders, clock, tasks]),
      runs: { leaseMs: 2_000, pollMs: 20, scheduleLookMs: 60_000, scriptedStepMs: 0 },
    });
    const publish = backend.api.presence.publish.bind(backend.api.presence);
    backend.api.presence.publish = async (person, bot, events) => {
      for (const event of events) published.push({ person, event });
      return publish(person, bot, events);
    };
    backend.api.runs.start();
  }, OPENING_MS);
  afterAll(async () => {
    await backend.api.runs.stop();
    await backend.close();
    await db.close();
  });
  beforeEach(() => {
    published.length = 0;
  });

  /** A new person on a page set to `language` (none: the page sends no language). */
  async function somebody(language?: string) {
    let cookie = '';
    const res = await backend.request('/api/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'buddy' }) });
    cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const { grant } = (await res.json()) as { grant: string };
    const conversation = `conv-${randomBytes(4).toString('hex')}`;
    const say = async (line: string) => {
      const answer = await backend.request('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${grant}`, cookie, 'x-confab-conversation': conversation, 'x-confab-time-zone': 'Europe/Lisbon', ...(language === undefined ? {} : { 'x-confab-language': language }) },
        body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: line }] }),
      });
      return (await heardOf(answer)).text.trim();
    };
    const person = readPersonCookie(personCookieKey(secret), cookie.slice(`${PERSON_COOKIE}=`.length))?.person ?? '';
    const answer = async (id: string, yes: boolean) =>
      (await (await backend.request(`/api/actions/${id}/${yes ? 'approve' : 'deny'}`, { method: 'POST', headers: { cookie, origin: 'http://localhost' } })).json()) as { outcome: string; sentence: string };
    const waiting = async () => ((await (await backend.request('/api/actions/waiting?bot=buddy', { headers: { cookie } })).json()) as { actions: { id: string; question: string }[] }).actions;
    return { say, person, conversation, answer, waiting };
  }

  async function runOf(person: string) {
    const { rows } = await db.asServer((tx) => tx.query<{ id: string; state: string; answer: string | null }>('select id, state, answer from runs where person = $1 order by created_at desc limit 1', [person]));
    return rows[0];
  }

  /** The person's latest run once it has ended, its ending written. */
  function ended(person: string) {
    return vi.waitFor(
      async () => {
        const run = await runOf(person);
        if (run === undefined || !['finished', 'failed', 'cancelled', 'out_of_budget'].includes(run.state) || run.answer === null) throw new Error('The run has not ended.');
        return run;
      },
      { timeout: 10_000 },
    );
  }

  it('takes "go through my shopping list and remind me about each thing in one minute" on, does it step by step, and leaves one notice of what it came to', async () => {
    const ana = await somebody();
    expect(await ana.say('add milk to my shopping list')).toContain('milk');
    expect(await ana.say('add eggs to my shopping list')).toContain('eggs');
    expect(await ana.say('go through my shopping list and remind me about each thing in one minute')).toBe(TAKEN_ON);
    const run = await ended(ana.person);
    expect(run.state).toBe('finished');
    const steps = await db.asServer((tx) => readSteps(tx, run.id));
    expect(steps.filter((s) => s.body.kind === 'tool').map((s) => (s.body.kind === 'tool' ? s.body.verb : ''))).toEqual(['lists.read', 'reminders.set', 'reminders.set']);
    const later = Date.now() + 2 * 60_000;
    const notices = await db.asPerson(ana.person, (tx) => dueNotices(tx, { bot: 'buddy', untilMs: later }));
    expect(notices.filter((n) => n.app === 'tasks').map((n) => n.text)).toEqual([run.answer]);
    expect(notices.filter((n) => n.app === 'reminders')).toHaveLength(2);
    expect(run.answer).toMatch(/milk/);
    // Its progress went to the person's window, one word per verb it ran, then its ending.
    await expect.poll(() => published.filter((p) => p.person === ana.person && p.event.kind === 'run').length, { timeout: 10_000 }).toBe(4);
    const said = published.filter((p) => p.person === ana.person && p.event.kind === 'run').map((p) => p.event);
    expect(said.at(-1)).toEqual({ kind: 'run', run: run.id, sentence: null, ended: true });
    expect(said.slice(0, 3).map((e) => (e.kind === 'run' ? e.sentence : null))).toEqual([
      "I'm still on it: 1 step done so far.",
      "I'm still on it: 2 steps done so far.",
      "I'm still on it: 3 steps done so far.",
    ]);
  });

  it('refuses a second start while the first is busy in that conversation, says how it is going, and stops it when asked', async () => {
    const ben = await somebody();
    // The worker is stopped so the first run stays busy.
    await backend.api.runs.stop();
    try {
      expect(await ben.say('go through my shopping list and remind me about each thing in one minute')).toBe(TAKEN_ON);
      expect(await ben.say('go through my todo list and remind me about each thing in an hour')).toBe(ALREADY_BUSY);
      expect(await ben.say("how's that going")).toBe("I've only just started on it.");
      expect(await ben.say('stop that')).toBe("I've stopped it; nothing more of it will be done.");
      expect((await runOf(ben.person))?.state).toBe('cancelled');
      expect(await ben.say('stop that')).toBe("I'm not working on anything for you right now.");
    } finally {
      backend.api.runs.start();
    }
  });

  it('says how the work goes in the language the person asked in, and a schedule keeps it for the runs it starts', async () => {
    const dora = await somebody('es');
    await dora.say('add milk to my shopping list');
    expect(await dora.say('go through my shopping list and remind me about each thing in one minute')).toBe('Me pongo con ello; te avisaré cuando esté hecho.');
    const run = await ended(dora.person);
    expect(run.state).toBe('finished');
    await expect.poll(() => published.filter((p) => p.person === dora.person && p.event.kind === 'run').length, { timeout: 10_000 }).toBe(3);
    const said = published.filter((p) => p.person === dora.person && p.event.kind === 'run').map((p) => (p.event.kind === 'run' ? p.event.sentence : null));
    expect(said.slice(0, 2)).toEqual(['Sigo con ello: llevo 1 paso hecho.', 'Sigo con ello: llevo 2 pasos hechos.']);
    const { rows } = await db.asServer((tx) => tx.query<{ language: string | null }>('select language from runs where id = $1', [run.id]));
    expect(rows[0]?.language).toBe('es');
    // What the run set is said in it too, when it comes due.
    const notices = await db.asServer((tx) => tx.query<{ text: string }>("select text from notices where person = $1 and app = 'reminders'", [dora.person]));
    expect(notices.rows.map((n) => n.text)).toEqual([expect.stringMatching(/^Recordatorio: .*milk\.$/)]);

    await dora.say("every weekday at eight, tell me what's on my todo list");
    expect((await db.asPerson(dora.person, (tx) => activeSchedules(tx, 'buddy')))[0]?.language).toBe('es');
    // A language the bot does not speak is not kept: the bot's own is.
    const ed = await somebody('fr');
    await ed.say("every weekday at eight, tell me what's on my todo list");
    expect((await db.asPerson(ed.person, (tx) => activeSchedules(tx, 'buddy')))[0]?.language).toBe('en');
  });

  it('makes a schedule from "every weekday at eight, …", lists it, and stops it', async () => {
    const cy = await somebody();
    expect(await cy.say("every weekday at eight, tell me what's on my todo list")).toBe("All right: every weekday at 08:00, I'll do that.");
    const kept = await db.asPerson(cy.person, (tx) => activeSchedules(tx, 'buddy'));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ asked: "tell me what's on my todo list", recurrence: { every: 'weekday', at: '08:00', zone: 'Europe/Lisbon' } });
    expect(kept[0]?.nextAtMs).toBeGreaterThan(Date.now());
    expect(await cy.say('what are my schedules')).toBe("Every weekday at 08:00: tell me what's on my todo list.");
    expect(await cy.say('cancel my schedules')).toBe("I've stopped 1 schedule.");
    expect(await cy.say('what are my schedules')).toBe('You have nothing scheduled with me.');
  });

  it('takes "every other monday at six in the evening, …", "every 3 days, …" and "every other week, …" as said', async () => {
    const gus = await somebody();
    expect(await gus.say('every other monday at six in the evening, water the plants')).toBe("All right: every 2 weeks on Monday at 18:00, I'll do that.");
    expect(await gus.say('every 3 days, tell me a joke')).toBe("All right: every 3 days at 09:00, I'll do that.");
    // A week with no day named is said back with the day it takes, so the person can put it right.
    expect(await gus.say('every other week, call mum')).toBe("All right: every 2 weeks on Monday at 09:00, I'll do that.");
    const kept = await db.asPerson(gus.person, (tx) => activeSchedules(tx, 'buddy'));
    expect(kept.map((k) => k.recurrence)).toEqual(
      expect.arrayContaining([expect.objectContaining({ every: 'week', on: [1], at: '18:00', interval: 2 }), expect.objectContaining({ every: 'day', interval: 3 })]),
    );
  });

  it('keeps every other week, until a day and except some, as days in the person’s zone, and says them back', async () => {
    const outcome = await backend.api.executor.execute({
      verb: 'tasks.schedule',
      input: { what: 'water the plants', every: 'week', on: ['monday'], at: '18:00', interval: 2, until: '2026-12-31', except: ['2026-12-28'] },
      caller: { person: 'fay-tasks', bot: 'buddy', via: 'person', timeZone: 'Australia/Sydney' },
      idempotencyKey: 'fay-schedule-00000001',
    });
    expect(outcome.ok ? outcome.output : outcome.error.sentence).toMatchObject({ said: 'every 2 weeks on Monday at 18:00, until December 31, 2026, except December 28, 2026' });
    const [kept] = await db.asPerson('fay-tasks', (tx) => activeSchedules(tx, 'buddy'));
    expect(kept?.recurrence).toMatchObject({ every: 'week', on: [1], interval: 2, until: '2026-12-31', except: ['2026-12-28'], zone: 'Australia/Sydney' });
    expect(kept?.recurrence.from).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  async function askedOf(person: string) {
    await expect.poll(() => published.some((p) => p.person === person && p.event.kind === 'run' && p.event.ask !== undefined), { timeout: 10_000 }).toBe(true);
    const event = published.find((p) => p.person === person && p.event.kind === 'run' && p.event.ask !== undefined)?.event;
    return event?.kind === 'run' ? event.ask : undefined;
  }

  it('stops a run at the confirmation gate, asks, and carries on with the person’s yes', async () => {
    const dee = await somebody();
    await dee.say('add milk to my shopping list');
    expect(await dee.say('in the background, clear my shopping list')).toBe(TAKEN_ON);
    const ask = await askedOf(dee.person);
    expect(ask?.question).toBe('Clear your shopping list? Say yes or no.');
    expect((await runOf(dee.person))?.state).toBe('waiting');
    // Held for the run: a day, not a turn's minute; and offered again on the next visit.
    expect((ask?.expiresAtMs ?? 0) - Date.now()).toBeGreaterThan(23 * 60 * 60 * 1000);
    expect((await dee.waiting()).map((a) => a.id)).toEqual([ask?.id]);
    expect(await dee.say("what's on my shopping list")).toContain('milk');
    expect((await dee.answer(ask?.id ?? '', true)).outcome).toBe('done');
    const run = await ended(dee.person);
    expect(run.state).toBe('finished');
    expect(await dee.say("what's on my shopping list")).toMatch(/empty/);
    expect(await dee.waiting()).toEqual([]);
  });

  it('leaves things as they were on a no, and closes the question of a run cancelled while it waited', async () => {
    const eve = await somebody();
    await eve.say('add milk to my shopping list');
    await eve.say('in the background, clear my shopping list');
    const first = await askedOf(eve.person);
    expect((await eve.answer(first?.id ?? '', false)).outcome).toBe('denied');
    expect((await ended(eve.person)).answer).toBe("Okay, I've left it as it was.");
    published.length = 0;
    await eve.say('in the background, clear my shopping list');
    const second = await askedOf(eve.person);
    expect(await eve.say('stop that')).toBe("I've stopped it; nothing more of it will be done.");
    expect((await eve.answer(second?.id ?? '', true)).outcome).toBe('expired');
    expect(await eve.say("what's on my shopping list")).toContain('milk');
  });
});
