/**
 * A bot that wakes a person, through the API as the page reaches it, on a clock the test moves: the
 * page asks, a person allows it (a bare cookie is told how to be let), and only then does it run
 * for them — once an occurrence, once after a week down, as their run, its ending said once. Not
 * now and stop are kept; a wake its file no longer declares stops.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fromLocal } from '../../../server/apps/localTime';
import lists from '../../../server/apps/lists/index';
import tasks, { WORDS } from '../../../server/apps/tasks/index';
import { parseBotFile } from '../../../server/bots';
import type { Bot } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { dueNotices } from '../../../server/db/notices';
import { startSession } from '../../../server/people/deviceSessions';
import { keepPerson } from '../../../server/people/people';
import { newSecret, sha256Hex } from '../../../server/people/secrets';
import { SESSION_COOKIE } from '../../../server/person';
import { activeSchedules } from '../../../server/runs/schedules';
import type { ShownWake } from '../../../common/wakes';
import { createRegistry } from '../../../server/verbs/registry';
import { testBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase } from '../db/fixtures';

const LISBON = 'Europe/Lisbon';
const sage = (ask: string) =>
  parseBotFile('sage.md', `---\nname: Sage\napps: [lists]\nlanguages: [en, es]\nhears:\n  - schedule: { every: weekday, at: "08:00" }\n    ask: ${ask}\nlimits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }\n---\nYou are Sage.`);
const BOTS = new Map<string, Bot>([['sage', sage("what's on my shopping list")]]);
// 2026-12-02 is a Wednesday.
const at = (day: number, hour: number, minute = 0) => fromLocal({ year: 2026, month: 12, day, hour, minute }, LISBON);

describe('a bot that wakes you', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let backend: TestBackend;
  let nowMs = at(1, 12);

  beforeAll(async () => {
    db = await openMemoryDatabase();
    backend = testBackend(db, { bots: BOTS, registry: createRegistry([lists, tasks]), clock: () => nowMs, runs: { leaseMs: 2_000, pollMs: 20, scheduleLookMs: 3_600_000, scriptedStepMs: 0 } });
    backend.api.runs.start();
  }, OPENING_MS);
  afterAll(async () => {
    await backend.api.runs.stop();
    await backend.close();
    await db.close();
  });

  /** A passkey person's device (`keep` false: a bare cookie person); its cookie. */
  async function device(person: string, keep = true): Promise<string> {
    if (keep) await db.asServer((tx) => keepPerson(tx, person));
    const secret = newSecret();
    if (keep) await db.asServer((tx) => startSession(tx, { person, secretHash: sha256Hex(secret), via: 'passkey', label: 'Firefox on Linux', nowMs }));
    if (keep) return `${SESSION_COOKIE}=${secret}.${String(Math.floor(nowMs / 1000))}`;
    const res = await backend.request('/api/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'sage' }) });
    return (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  }
  const headers = (cookie: string) => ({ cookie, origin: 'http://localhost', 'content-type': 'application/json' });
  const wakes = async (cookie: string, language = 'en') => ((await (await backend.request(`/api/wakes?bot=sage&zone=${LISBON}&language=${language}`, { headers: headers(cookie) })).json()) as { wakes: ShownWake[] }).wakes;
  const answer = (cookie: string, wake: string, allow: boolean) => backend.request('/api/wakes', { method: 'POST', headers: headers(cookie), body: JSON.stringify({ bot: 'sage', wake, allow, zone: LISBON, language: 'en' }) });
  const runsOf = async (person: string) =>
    (await db.asServer((tx) => tx.query<{ id: string; state: string; answer: string | null; schedule: string | null }>('select id, state, answer, schedule from runs where person = $1 order by created_at', [person]))).rows;
  const ended = (person: string, n: number) =>
    vi.waitFor(
      async () => {
        const runs = await runsOf(person);
        if (runs.length !== n || runs.some((run) => run.answer === null)) throw new Error('The runs have not ended.');
        return runs;
      },
      { timeout: 10_000 },
    );

  it('asks in the person’s words and zone, and runs only for the one who allowed it, once an occurrence, as their run, said once', async () => {
    nowMs = at(1, 12);
    const ana = await device('ana-wakes');
    const ben = await device('ben-wakes');
    expect((await backend.request('/api/wakes?bot=sage&zone=Mars/Olympus', { headers: headers(ana) })).status).toBe(400);
    const [offered] = await wakes(ana);
    expect(offered).toMatchObject({ state: 'ask', question: 'Sage can speak first every weekday at 8 am — allow?', said: 'Sage speaks first every weekday at 8 am.' });
    expect((await wakes(ana, 'es'))[0]?.question).toBe('Sage puede hablar primero cada día laborable a las 8:00. ¿Lo permites?');
    const key = offered?.wake ?? '';

    const allowed = await answer(ana, key, true);
    expect(allowed.status).toBe(200);
    expect(((await allowed.json()) as { wake: ShownWake }).wake.state).toBe('allowed');
    // A second tab allowing it too: one allowing stands.
    expect((await answer(ana, key, true)).status).toBe(200);
    const kept = await db.asPerson('ana-wakes', (tx) => activeSchedules(tx, 'sage'));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ wake: key, asked: "what's on my shopping list", nextAtMs: at(2, 8), recurrence: { every: 'weekday', at: '08:00', zone: LISBON } });
    // Ben was asked too, and has not answered: nothing of his runs.
    expect((await wakes(ben))[0]?.state).toBe('ask');

    nowMs = at(2, 8, 1);
    await backend.api.runs.lookAtSchedules();
    await backend.api.runs.lookAtSchedules();
    const [run] = await ended('ana-wakes', 1);
    expect(run?.schedule).toBe(kept[0]?.id);
    expect(await runsOf('ben-wakes')).toHaveLength(0);

    // What it came to is one notice on Sage's page: the first page to say it marks it, and no other says it again.
    const notices = await db.asPerson('ana-wakes', (tx) => dueNotices(tx, { bot: 'sage', untilMs: nowMs + 60_000 }));
    const said = notices.filter((notice) => notice.text === run?.answer);
    expect(said).toHaveLength(1);
    const deliver = () => backend.request(`/api/notices/${said[0]?.id ?? ''}/delivered`, { method: 'POST', headers: headers(ana) });
    expect((await deliver()).status).toBe(200);
    expect((await deliver()).status).toBe(409);

    // Down from Wednesday to the next Wednesday: it fires once, for the last occurrence, and its clock moves past now.
    nowMs = at(9, 10);
    await backend.api.runs.lookAtSchedules();
    await backend.api.runs.lookAtSchedules();
    await ended('ana-wakes', 2);
    const [moved] = await db.asPerson('ana-wakes', (tx) => activeSchedules(tx, 'sage'));
    expect(moved).toMatchObject({ nextAtMs: at(10, 8), lastFiredAtMs: at(9, 10) });
  });

  it('does not ask a bare cookie, tells one who tries how to be let, and makes nothing', async () => {
    nowMs = at(1, 12);
    const cookie = await device('', false);
    // Not asked on the page, since they could not allow it; and told how to be let if they try.
    expect(await wakes(cookie)).toEqual([]);
    const key = BOTS.get('sage')?.hears?.[0]?.key ?? '';
    const refused = await answer(cookie, key, true);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe(WORDS.say('en', 'people-only'));
    expect((await db.asServer((tx) => tx.query("select 1 from schedules where wake is not null and person not like '%-wakes'"))).rows).toHaveLength(0);
  });

  it('keeps a not now and a stop, and runs neither', async () => {
    nowMs = at(10, 12);
    const cy = await device('cy-wakes');
    const dee = await device('dee-wakes');
    const key = (await wakes(cy))[0]?.wake ?? '';
    expect((await answer(cy, key, false)).status).toBe(200);
    expect((await wakes(cy))[0]?.state).toBe('declined');
    expect((await answer(dee, key, true)).status).toBe(200);
    expect((await answer(dee, key, false)).status).toBe(200);
    expect((await wakes(dee))[0]?.state).toBe('declined');
    nowMs = at(11, 8, 1);
    await backend.api.runs.lookAtSchedules();
    expect(await runsOf('cy-wakes')).toHaveLength(0);
    expect(await runsOf('dee-wakes')).toHaveLength(0);
    // Allowed again from the settings: it runs from now.
    expect((await answer(dee, key, true)).status).toBe(200);
    expect((await wakes(dee))[0]?.state).toBe('allowed');
  });

  it('stops a wake the bot’s file no longer declares, and asks about the new one', async () => {
    nowMs = at(14, 12);
    const eve = await device('eve-wakes');
    const key = (await wakes(eve))[0]?.wake ?? '';
    expect((await answer(eve, key, true)).status).toBe(200);
    BOTS.set('sage', sage("what's on my to-do list"));
    const [changed] = await wakes(eve);
    expect(changed?.wake).not.toBe(key);
    expect(changed?.state).toBe('ask');
    nowMs = at(15, 8, 1);
    await backend.api.runs.lookAtSchedules();
    expect(await runsOf('eve-wakes')).toHaveLength(0);
    expect(await db.asPerson('eve-wakes', (tx) => activeSchedules(tx, 'sage'))).toHaveLength(0);
    expect((await answer(eve, key, true)).status).toBe(404);
  });
});
