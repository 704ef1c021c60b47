/**
 * Schedules against the database, with a clock the test moves: the server's look at them starts a
 * run for each due one, once, for the last occurrence however many it missed, and a schedule made
 * today does not replay the past.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromLocal } from '../../../server/apps/localTime';
import lists from '../../../server/apps/lists/index';
import { parseBotFile } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { nextOccurrence } from '../../../server/runs/recurrence';
import type { Recurrence } from '../../../server/runs/recurrence';
import { runService } from '../../../server/runs/runService';
import type { RunService } from '../../../server/runs/runService';
import { activeSchedules, insertSchedule } from '../../../server/runs/schedules';
import { createRegistry } from '../../../server/verbs/registry';
import { shippedWords } from '../../../server/words/loadWords';
import { DB_TEST_MS, OPENING_MS, somebody } from '../db/fixtures';
import { ENGINES, executorOver } from './runFixtures';

const BOT = parseBotFile('buddy.md', `---\nname: Buddy\napps: [lists]\nlimits: { spend: 0.02, perDay: { spend: 1 } }\n---\nYou help.`);
const LISBON = 'Europe/Lisbon';
const WEEKDAYS_AT_8: Recurrence = { every: 'weekday', at: '08:00', zone: LISBON };
const at = (day: number, hour: number) => fromLocal({ year: 2026, month: 12, day, hour, minute: 0 }, LISBON);

describe.each(ENGINES)('schedules on $name', { timeout: DB_TEST_MS }, ({ open }) => {
  let db: Database;
  let nowMs = at(1, 12);
  let service: RunService;
  beforeAll(async () => {
    db = await open();
    service = runService({
      db,
      executor: executorOver(db),
      registry: createRegistry([lists]),
      bots: new Map([['buddy', BOT]]),
      scripted: true,
      wordsForBot: () => shippedWords().wordsIn('en'),
      publish: () => Promise.resolve(),
      owner: 'schedules-test',
      clock: () => nowMs,
      scriptedStepMs: 0,
    });
  }, OPENING_MS);
  afterAll(async () => {
    await service.stop();
    await db.close();
  });

  async function make(person: string, madeAtMs: number) {
    return db.asPerson(person, (tx) =>
      insertSchedule(tx, { person, bot: 'buddy', conversationKey: null, asked: "what's on my todo list", said: 'every weekday at 08:00', recurrence: WEEKDAYS_AT_8, nextAtMs: nextOccurrence(WEEKDAYS_AT_8, madeAtMs) ?? null }, madeAtMs),
    );
  }
  const runsOf = async (person: string) =>
    (await db.asServer((tx) => tx.query<{ schedule: string | null; created_at: Date }>('select schedule, created_at from runs where person = $1', [person]))).rows;

  it('fires once for a week of downtime, and its clock moves on past now', async () => {
    const ana = somebody();
    nowMs = at(1, 12);
    const schedule = await make(ana, nowMs);
    expect(schedule.nextAtMs).toBe(at(2, 8));
    // The server is down from the 1st to Wednesday the 9th, 10:00: five weekday mornings missed.
    nowMs = at(9, 10);
    await service.lookAtSchedules();
    await service.lookAtSchedules();
    const runs = await runsOf(ana);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.schedule).toBe(schedule.id);
    const [kept] = await db.asPerson(ana, (tx) => activeSchedules(tx, 'buddy'));
    expect(kept).toMatchObject({ nextAtMs: at(10, 8), lastFiredAtMs: at(9, 10) });
  });

  it('does not replay the past for a schedule made today', async () => {
    const ben = somebody();
    nowMs = at(2, 12);
    await make(ben, nowMs);
    await service.lookAtSchedules();
    expect(await runsOf(ben)).toHaveLength(0);
    nowMs = at(3, 8);
    await service.lookAtSchedules();
    expect(await runsOf(ben)).toHaveLength(1);
  });

  it('keeps the day a schedule made before migration 029 was given, as a day in its zone', async () => {
    const cy = somebody();
    // As `tasks.schedule` wrote "until 2026-12-04" then: the last second of that day in UTC.
    const untilMs = Date.parse('2026-12-04T23:59:59Z');
    await db.asServer((tx) => tx.query("insert into schedules (person, bot, asked, said, recurrence) values ($1, 'buddy', 'water the plants', 'every day at 08:00', $2)", [cy, JSON.stringify({ every: 'day', zone: 'Australia/Sydney', untilMs })]));
    const migration = readFileSync(new URL('../../../server/db/migrations/029_bots_that_wake.sql', import.meta.url), 'utf8');
    await db.asServer((tx) => tx.query(migration.slice(migration.indexOf('update schedules'))));
    const [kept] = await db.asPerson(cy, (tx) => activeSchedules(tx, 'buddy'));
    expect(kept?.recurrence).toEqual({ every: 'day', zone: 'Australia/Sydney', until: '2026-12-04' });
  });
});
