/**
 * Work belongs to somebody who is still there, seen from the person's side on a clock the test
 * moves: a schedule of a person unseen for 31 days does not fire, and on their return they are told
 * so and it fires again; a person keeps at most 20 schedules over all their bots and the site at
 * most `CONFAB_SITE_SCHEDULES`, each refused with a sentence; and the operator's command lists and
 * cancels runs and schedules over the same database.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../../server/admin';
import lists from '../../../server/apps/lists/index';
import tasks, { WORDS as TASK_WORDS } from '../../../server/apps/tasks/index';
import { SCHEDULES_MAX } from '../../../server/apps/tasks/spokenSchedule';
import { parseBotFile } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { PERSON_COOKIE, personCookieKey, readPersonCookie } from '../../../server/person';
import { nextOccurrence } from '../../../server/runs/recurrence';
import type { Recurrence } from '../../../server/runs/recurrence';
import { readRun } from '../../../server/runs/runs';
import { activeSchedules, cancelScheduleById, insertSchedule, listAllSchedules } from '../../../server/runs/schedules';
import { DAY_MS } from '../../../server/runs/seen';
import { createRegistry } from '../../../server/verbs/registry';
import { shippedWords } from '../../../server/words/loadWords';
import { say as sayWord } from '../../../server/words/words';
import { heardOf } from '../../helpers/doorHeard';
import { testBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase } from '../db/fixtures';

const PERSON_SCHEDULES_FULL = TASK_WORDS.say('en', 'person-full', { n: String(SCHEDULES_MAX) });
const SITE_SCHEDULES_FULL = TASK_WORDS.say('en', 'site-full');

// Its people are bare cookies, whom only a bot that says so lets make schedules and long runs (workFor.test.ts).
const botFile = (name: string) => `---
name: ${name}
memory: none
apps: [lists]
work: anyone
limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }
---
You help.`;
const BOTS = new Map([
  ['buddy', parseBotFile('buddy.md', botFile('Buddy'))],
  ['pal', parseBotFile('pal.md', botFile('Pal'))],
]);
const DAILY_AT_8: Recurrence = { every: 'day', at: '08:00', zone: 'UTC' };
/** 2026-03-02, 12:00 UTC. */
const T0 = Date.UTC(2026, 2, 2, 12);
const WELCOME_BACK = sayWord(shippedWords().wordsIn('en'), 'runs.paused-while-away');

interface Somebody {
  person: string;
  cookie: string;
  /** `POST /api/start` for `bot` as this person: they are seen. */
  start(bot?: string): Promise<void>;
  /** One line through the door; the bot's answer. */
  say(line: string, bot?: string): Promise<string>;
  notices(bot?: string): Promise<string[]>;
}

function people(backend: TestBackend, secret: Uint8Array) {
  return async function somebody(): Promise<Somebody> {
    const first = await backend.request('/api/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'buddy' }) });
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const person = readPersonCookie(personCookieKey(secret), cookie.slice(`${PERSON_COOKIE}=`.length))?.person ?? '';
    const grantOf = async (bot: string) => {
      const res = await backend.request('/api/start', { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify({ bot }) });
      expect(res.status).toBe(200);
      return ((await res.json()) as { grant: string }).grant;
    };
    const conversation = `conv-${randomBytes(4).toString('hex')}`;
    return {
      person,
      cookie,
      start: async (bot = 'buddy') => {
        await grantOf(bot);
      },
      say: async (line, bot = 'buddy') => {
        const grant = await grantOf(bot);
        const answer = await backend.request('/v1/chat/completions', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${grant}`, cookie, 'x-confab-conversation': conversation, 'x-confab-time-zone': 'Europe/Lisbon' },
          body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: line }] }),
        });
        return (await heardOf(answer)).text.trim();
      },
      notices: async (bot = 'buddy') => ((await (await backend.request(`/api/notices?bot=${bot}`, { headers: { cookie } })).json()) as { notices: { text: string }[] }).notices.map((n) => n.text),
    };
  };
}

describe('work belongs to somebody who is still there', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let backend: TestBackend;
  let nowMs = T0;
  const secret = randomBytes(32);
  let somebody: () => Promise<Somebody>;

  beforeAll(async () => {
    db = await openMemoryDatabase();
    backend = testBackend(db, {
      bots: BOTS,
      grantSecret: secret,
      registry: createRegistry([lists, tasks]),
      clock: () => nowMs,
      runs: { leaseMs: 2_000, pollMs: 20, scheduleLookMs: 60_000, scriptedStepMs: 0 },
    });
    somebody = people(backend, secret);
    // No worker takes the runs a look starts: they stay queued for the test to count and cancel.
    await backend.api.runs.worker.stop();
  }, OPENING_MS);
  afterAll(async () => {
    await backend.api.runs.stop();
    await backend.close();
    await db.close();
  });

  const runsOf = async (person: string) => (await db.asServer((tx) => tx.query<{ id: string }>('select id from runs where person = $1', [person]))).rows;
  const daily = (person: string) =>
    db.asPerson(person, (tx) => insertSchedule(tx, { person, bot: 'buddy', conversationKey: null, asked: "what's on my shopping list", said: 'every day at 08:00', recurrence: DAILY_AT_8, nextAtMs: nextOccurrence(DAILY_AT_8, nowMs) ?? null }, nowMs));

  it('does not fire the schedule of a person unseen for 31 days, tells them on their return, and fires it again from then', async () => {
    nowMs = T0;
    const ana = await somebody();
    const ben = await somebody();
    await daily(ana.person);
    await daily(ben.person);
    // Ben comes by on day 30; Ana is not seen again until day 31.
    nowMs = T0 + 30 * DAY_MS;
    await ben.start();
    nowMs = T0 + 31 * DAY_MS;
    await backend.api.runs.lookAtSchedules();
    expect(await runsOf(ben.person)).toHaveLength(1);
    expect(await runsOf(ana.person)).toHaveLength(0);
    // Its clock moved on past now, so it does not fire the moment she is back either.
    const [paused] = await db.asPerson(ana.person, (tx) => activeSchedules(tx, 'buddy'));
    expect(paused?.nextAtMs).toBeGreaterThan(nowMs);
    expect(await ana.notices()).toEqual([]);

    await ana.start();
    expect(await ana.notices()).toEqual([WELCOME_BACK]);
    // Told once: coming by again says nothing more.
    await ana.start();
    expect(await ana.notices()).toEqual([WELCOME_BACK]);

    nowMs = T0 + 32 * DAY_MS;
    await backend.api.runs.lookAtSchedules();
    expect(await runsOf(ana.person)).toHaveLength(1);
    expect(await ben.notices()).toEqual([]);
  });

  it('lets a person keep 20 schedules over all their bots, and refuses the 21st with a sentence, with either bot', async () => {
    nowMs = T0;
    const cy = await somebody();
    for (let i = 0; i < SCHEDULES_MAX; i += 1) {
      const bot = i % 2 === 0 ? 'buddy' : 'pal';
      const outcome = await backend.api.executor.execute({
        verb: 'tasks.schedule',
        input: { what: `plant ${String(i)} watering`, every: 'day', at: '08:00' },
        caller: { person: cy.person, bot, via: 'person', timeZone: 'UTC' },
        idempotencyKey: `cy-schedule-${String(i).padStart(8, '0')}`,
      });
      expect(outcome.ok).toBe(true);
    }
    expect(await cy.say("every day at eight, tell me what's on my todo list", 'pal')).toBe(PERSON_SCHEDULES_FULL);
    expect(await cy.say("every day at eight, tell me what's on my todo list", 'buddy')).toBe(PERSON_SCHEDULES_FULL);
    expect(await cy.say('cancel the schedule about plant 3 watering', 'pal')).toBe("I've stopped 1 schedule.");
    expect(await cy.say("every day at eight, tell me what's on my todo list", 'buddy')).toBe("All right: every day at 08:00, I'll do that.");
  });

  it('lists runs and schedules for the operator, and cancels one of each by its id', async () => {
    nowMs = T0;
    const dora = await somebody();
    const schedule = await daily(dora.person);
    nowMs = T0 + DAY_MS;
    // A look takes twenty due schedules at a time, and earlier tests left some due at the same time.
    for (let look = 0; look < 3 && (await runsOf(dora.person)).length === 0; look += 1) await backend.api.runs.lookAtSchedules();
    const [run] = await runsOf(dora.person);
    if (run === undefined) throw new Error('The schedule started no run.');
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line), clock: () => nowMs };

    expect(await runAdmin(['runs'], db, io)).toBe(0);
    expect(out.find((line) => line.startsWith(run.id))).toMatch(new RegExp(`^${run.id}\tqueued\t${dora.person}\tbuddy\t`));
    out.length = 0;
    expect(await runAdmin(['schedules'], db, io)).toBe(0);
    expect(out.find((line) => line.startsWith(schedule.id))).toMatch(new RegExp(`^${schedule.id}\tactive\t${dora.person}\tbuddy\tevery day at 08:00\t`));
    // What was asked is never printed.
    expect(out.join('\n')).not.toContain('shopping');

    out.length = 0;
    expect(await runAdmin(['cancel', run.id], db, io)).toBe(0);
    expect(await runAdmin(['cancel', schedule.id], db, io)).toBe(0);
    expect(out).toEqual([expect.stringMatching(/^Run .* is cancelled/), expect.stringMatching(/^Schedule .* is cancelled/)]);
    expect((await db.asServer((tx) => readRun(tx, run.id)))?.state).toBe('cancelled');
    expect(await db.asPerson(dora.person, (tx) => activeSchedules(tx, 'buddy'))).toEqual([]);
    // Again: nothing still going by that id; and a command it does not know is usage.
    expect(await runAdmin(['cancel', run.id], db, io)).toBe(1);
    expect(await runAdmin(['cancel', 'not-an-id'], db, io)).toBe(64);
    expect(await runAdmin(['stop'], db, io)).toBe(64);
    expect(err).toHaveLength(3);
  });
});

describe('the site’s cap on schedules', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let backend: TestBackend;
  const secret = randomBytes(32);
  let somebody: () => Promise<Somebody>;

  beforeAll(async () => {
    db = await openMemoryDatabase();
    backend = testBackend(db, { bots: BOTS, grantSecret: secret, registry: createRegistry([lists, tasks]), runs: { siteSchedules: 2, scriptedStepMs: 0 } });
    somebody = people(backend, secret);
  }, OPENING_MS);
  afterAll(async () => {
    await backend.close();
    await db.close();
  });

  it('refuses a schedule past CONFAB_SITE_SCHEDULES with a sentence, whoever asks, and takes one again once one is cancelled', async () => {
    const [ed, flo, gus] = [await somebody(), await somebody(), await somebody()];
    expect(await ed.say("every day at eight, tell me what's on my todo list")).toBe("All right: every day at 08:00, I'll do that.");
    expect(await flo.say("every day at nine, tell me what's on my todo list")).toBe("All right: every day at 09:00, I'll do that.");
    expect(await gus.say("every day at ten, tell me what's on my todo list")).toBe(SITE_SCHEDULES_FULL);
    expect(await ed.say('cancel my schedules')).toBe("I've stopped 1 schedule.");
    expect(await gus.say("every day at ten, tell me what's on my todo list")).toBe("All right: every day at 10:00, I'll do that.");
  });

  it('holds the cap when people make schedules at the same moment: as many are made as there is room for, the rest told so', async () => {
    for (const { id } of await db.asServer((tx) => listAllSchedules(tx))) await db.asServer((tx) => cancelScheduleById(tx, id));
    const four = await Promise.all([somebody(), somebody(), somebody(), somebody()]);
    const outcomes = await Promise.all(
      four.map((one, i) =>
        backend.api.executor.execute({
          verb: 'tasks.schedule',
          input: { what: `water plant ${String(i)}`, every: 'day', at: '08:00' },
          caller: { person: one.person, bot: 'buddy', via: 'person', timeZone: 'UTC' },
          idempotencyKey: `at-once-${String(i).padStart(8, '0')}`,
        }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(2);
    const refused = outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome.error.message]));
    expect(refused).toEqual([SITE_SCHEDULES_FULL, SITE_SCHEDULES_FULL]);
    expect((await db.asServer((tx) => listAllSchedules(tx))).filter((schedule) => schedule.state === 'active')).toHaveLength(2);
  });
});
