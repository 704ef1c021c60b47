/**
 * Schedules and long runs are made by people: through the door with the stand-in (no key), a bare
 * cookie asking for either hears how to be let (keep Confab on their devices) and nothing is made; a
 * passkey person and a Supabase-signed grant are taken on; a bot whose file says `work: anyone` takes
 * a cookie's too. And the idle pause counts from the person's last visit on any of their devices.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import lists from '../../../server/apps/lists/index';
import tasks, { WORDS } from '../../../server/apps/tasks/index';
import { parseBotFile } from '../../../server/bots';
import type { Bot } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { grantClaims, signGrant } from '../../../server/grants';
import { startSession } from '../../../server/people/deviceSessions';
import { keepPerson } from '../../../server/people/people';
import { newSecret, sha256Hex } from '../../../server/people/secrets';
import { SESSION_COOKIE } from '../../../server/person';
import { nextOccurrence } from '../../../server/runs/recurrence';
import type { Recurrence } from '../../../server/runs/recurrence';
import { insertSchedule } from '../../../server/runs/schedules';
import { DAY_MS } from '../../../server/runs/seen';
import { createRegistry } from '../../../server/verbs/registry';
import { heardOf } from '../../helpers/doorHeard';
import { testBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase } from '../db/fixtures';

const PEOPLE_ONLY = WORDS.say('en', 'people-only');
const TAKEN_ON = WORDS.say('en', 'taken-on');
const SCHEDULED = "All right: every day at 08:00, I'll do that.";
const LONG_RUN = 'go through my shopping list and remind me about each thing in one minute';
const SCHEDULE = "every day at eight, tell me what's on my todo list";

const botFile = (slug: string, front = '') =>
  parseBotFile(`${slug}.md`, `---\nname: ${slug}\nmemory: none\napps: [lists]\n${front}limits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }\n---\nYou help.`);
const BOTS = new Map<string, Bot>([
  ['buddy', botFile('buddy')],
  ['open', botFile('open', 'work: anyone\n')],
]);
/** 2026-03-02, 12:00 UTC. */
const T0 = Date.UTC(2026, 2, 2, 12);
const json = { 'content-type': 'application/json' };

/** A device of a passkey person, as `server/people/` signs one in: its session cookie. */
async function passkeyDevice(db: Database, person: string, label: string, nowMs: number): Promise<string> {
  const secret = newSecret();
  await db.asServer(async (tx) => {
    await keepPerson(tx, person);
    await startSession(tx, { person, secretHash: sha256Hex(secret), via: 'passkey', label, nowMs });
  });
  return `${SESSION_COOKIE}=${secret}.${String(Math.floor(nowMs / 1000))}`;
}

describe('schedules and long runs are made by people', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let backend: TestBackend;
  const nowMs = T0;
  const secret = randomBytes(32);

  beforeAll(async () => {
    db = await openMemoryDatabase();
    backend = testBackend(db, { bots: BOTS, grantSecret: secret, registry: createRegistry([lists, tasks]), clock: () => nowMs, runs: { scheduleLookMs: 60_000, scriptedStepMs: 0 } });
    // No worker takes the runs: they stay queued for the test to count.
    await backend.api.runs.worker.stop();
  }, OPENING_MS);
  afterAll(async () => {
    await backend.api.runs.stop();
    await backend.close();
    await db.close();
  });

  /** `POST /api/start` with `cookie` (none: a new bare cookie person); the grant. */
  const start = async (bot: string, cookie?: string) => {
    const res = await backend.request('/api/start', { method: 'POST', headers: { ...json, ...(cookie === undefined ? {} : { cookie }) }, body: JSON.stringify({ bot }) });
    expect(res.status).toBe(200);
    return ((await res.json()) as { grant: string }).grant;
  };
  const say = async (grant: string, line: string) => {
    const answer = await backend.request('/v1/chat/completions', {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${grant}`, 'x-confab-conversation': `conv-${randomBytes(4).toString('hex')}`, 'x-confab-time-zone': 'UTC' },
      body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: line }] }),
    });
    return (await heardOf(answer)).text.trim();
  };
  const made = async (person: string) =>
    (await db.asServer((tx) => tx.query<{ n: number }>('select (select count(*) from runs where person = $1)::int + (select count(*) from schedules where person = $1)::int as n', [person]))).rows[0]?.n;
  const personOf = (grant: string) => (JSON.parse(Buffer.from(grant.split('.')[0] ?? '', 'base64url').toString('utf8')) as { person: string }).person;

  it('refuses a bare cookie a long run and a schedule, saying how to be let, and makes neither', async () => {
    const grant = await start('buddy');
    expect(await say(grant, LONG_RUN)).toBe(PEOPLE_ONLY);
    expect(await say(grant, SCHEDULE)).toBe(PEOPLE_ONLY);
    expect(await made(personOf(grant))).toBe(0);
  });

  it('takes both on for a passkey person on their device, and for a person signed in with Supabase', async () => {
    const cookie = await passkeyDevice(db, 'ana-passkey', 'Firefox on Linux', nowMs);
    const grant = await start('buddy', cookie);
    expect(personOf(grant)).toBe('ana-passkey');
    expect(await say(grant, LONG_RUN)).toBe(TAKEN_ON);
    expect(await say(grant, SCHEDULE)).toBe(SCHEDULED);
    expect(await made('ana-passkey')).toBe(2);

    const buddy = BOTS.get('buddy');
    if (buddy === undefined) throw new Error('no buddy');
    // The grant Supabase mode mints, signed as `POST /api/start` signs it there.
    const signedIn = signGrant(secret, grantClaims(buddy, 'ben-supabase', 'supabase', nowMs));
    expect(await say(signedIn, SCHEDULE)).toBe(SCHEDULED);
  });

  it('takes work on for a person who made a passkey after their grant was minted as a bare cookie’s', async () => {
    const grant = await start('buddy');
    expect(await say(grant, LONG_RUN)).toBe(PEOPLE_ONLY);
    await db.asServer((tx) => keepPerson(tx, personOf(grant)));
    expect(await say(grant, LONG_RUN)).toBe(TAKEN_ON);
    expect(await made(personOf(grant))).toBe(1);
  });

  it('takes a bare cookie’s on when the bot’s file says work: anyone', async () => {
    const grant = await start('open');
    expect(await say(grant, LONG_RUN)).toBe(TAKEN_ON);
    expect(await say(grant, SCHEDULE)).toBe(SCHEDULED);
    expect(await made(personOf(grant))).toBe(2);
  });

  it('takes a call no request of the person’s made for a bare cookie’s', async () => {
    const outcome = await backend.api.executor.execute({
      verb: 'tasks.schedule',
      input: { what: 'water the plants', every: 'day', at: '08:00' },
      caller: { person: 'cy', bot: 'buddy', via: 'person', timeZone: 'UTC' },
      idempotencyKey: 'cy-schedule-00000001',
    });
    expect(outcome.ok).toBe(false);
    expect(outcome.ok ? '' : outcome.error.sentence).toBe(PEOPLE_ONLY);
  });
});

describe('the idle pause counts from a person’s last visit on any device', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let backend: TestBackend;
  let nowMs = T0;
  const DAILY_AT_8: Recurrence = { every: 'day', at: '08:00', zone: 'UTC' };

  beforeAll(async () => {
    db = await openMemoryDatabase();
    backend = testBackend(db, { bots: BOTS, registry: createRegistry([lists, tasks]), clock: () => nowMs, runs: { scheduleLookMs: 60_000, scriptedStepMs: 0 } });
    await backend.api.runs.worker.stop();
  }, OPENING_MS);
  afterAll(async () => {
    await backend.api.runs.stop();
    await backend.close();
    await db.close();
  });

  const visit = async (cookie: string) => {
    const res = await backend.request('/api/start', { method: 'POST', headers: { ...json, cookie }, body: JSON.stringify({ bot: 'buddy' }) });
    expect(res.status).toBe(200);
  };
  const daily = (person: string) =>
    db.asPerson(person, (tx) => insertSchedule(tx, { person, bot: 'buddy', conversationKey: null, asked: 'water the plants', said: 'every day at 08:00', recurrence: DAILY_AT_8, nextAtMs: nextOccurrence(DAILY_AT_8, nowMs) ?? null }, nowMs));
  const runsOf = async (person: string) => (await db.asServer((tx) => tx.query('select id from runs where person = $1', [person]))).rows.length;

  it('fires the schedule of a person last seen on their phone 15 days ago, though their laptop has been away 35', async () => {
    nowMs = T0;
    const laptop = await passkeyDevice(db, 'dee', 'Firefox on Linux', nowMs);
    const phone = await passkeyDevice(db, 'dee', 'Safari on iPhone', nowMs);
    const elsewhere = await passkeyDevice(db, 'eve', 'Chrome on Windows', nowMs);
    await visit(laptop);
    await visit(elsewhere);
    await daily('dee');
    await daily('eve');
    nowMs = T0 + 20 * DAY_MS;
    await visit(phone);
    nowMs = T0 + 35 * DAY_MS;
    await backend.api.runs.lookAtSchedules();
    expect(await runsOf('dee')).toBe(1);
    // Eve, unseen on every device of hers for 35 days, is away: hers waits for her.
    expect(await runsOf('eve')).toBe(0);
  });
});
