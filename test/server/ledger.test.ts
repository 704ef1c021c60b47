import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerSpend } from '../../server/chat/chatDoor';
import type { Database } from '../../server/db/database';
import { spendSince } from '../../server/db/usage';
import type { GrantClaims } from '../../server/grants';
import { databaseLedger } from '../../server/ledger';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from './db/fixtures';

const T0 = Date.parse('2026-03-02T10:00:00Z');

const grantOf = (person: string, answers: number, spend = 0.05): GrantClaims => ({
  bot: 'demo',
  person,
  limits: { steps: 4, spend, minutes: 2, perHour: { answers }, perDay: { spend: 1 } },
  expiresAt: T0 + 60_000,
});

const spent = (costUsd: number): AnswerSpend => ({
  promptTokens: 120,
  completionTokens: 0,
  provider: 'alpha',
  model: 'm',
  ended: 'aborted',
  estimated: true,
  costUsd,
  priced: true,
  nowMs: T0 + 1_000,
});

describe('the database ledger', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  it('knows of no room before a person’s first admission, then the room it left, counting its own admissions at once', async () => {
    const ledger = databaseLedger(db);
    const grant = grantOf(somebody(), 3);
    expect(ledger.roomFor?.(grant)).toBe(false);
    expect(await ledger.reserve({ grant, nowMs: T0 })).toMatchObject({ ok: true });
    // Three an hour, one taken: room for two more.
    expect(ledger.roomFor?.(grant)).toBe(true);
    // Two asked at the same moment: each is counted as it is asked, so the third is not asked ahead.
    const second = ledger.reserve({ grant, nowMs: T0 + 1 });
    const third = ledger.reserve({ grant, nowMs: T0 + 2 });
    expect(ledger.roomFor?.(grant)).toBe(false);
    expect(await second).toMatchObject({ ok: true });
    expect(await third).toMatchObject({ ok: true });
    expect(ledger.roomFor?.(grant)).toBe(false);
    expect(await ledger.reserve({ grant, nowMs: T0 + 3 })).toMatchObject({ ok: false });
    expect(ledger.roomFor?.(grant)).toBe(false);
  });

  it('has no room for an answer whose hold the spend left would not cover', async () => {
    const ledger = databaseLedger(db);
    // A dollar a day, 0.45 an answer: after one is held, 0.55 is left — one more, then none.
    const grant = grantOf(somebody(), 100, 0.45);
    expect(await ledger.reserve({ grant, nowMs: T0 })).toMatchObject({ ok: true });
    expect(ledger.roomFor?.(grant)).toBe(true);
    expect(await ledger.reserve({ grant, nowMs: T0 + 1 })).toMatchObject({ ok: true });
    expect(ledger.roomFor?.(grant)).toBe(false);
  });

  it('is refused when another server took the room it remembered, and records what a turn asked ahead cost', async () => {
    const person = somebody();
    const grant = grantOf(person, 2);
    const here = databaseLedger(db);
    const there = databaseLedger(db);
    expect(await here.reserve({ grant, nowMs: T0 })).toMatchObject({ ok: true });
    expect(here.roomFor?.(grant)).toBe(true);
    expect(await there.reserve({ grant, nowMs: T0 + 1 })).toMatchObject({ ok: true });
    // This server still remembers room for one; the database knows better.
    expect(here.roomFor?.(grant)).toBe(true);
    expect(await here.reserve({ grant, nowMs: T0 + 2 })).toMatchObject({ ok: false, sentence: expect.stringContaining('an hour (2)') as string });
    expect(here.roomFor?.(grant)).toBe(false);
    await here.settleRefused?.(grant, { ...spent(0.002), startedMs: T0 + 2 });
    const usage = await db.asServer((tx) => spendSince(tx, { person, bot: 'demo', since: new Date(T0) }));
    expect(usage).toEqual({ answers: 1, costUsd: 0.002, tokens: 120 });
  });

  it('remembers room per ceilings: a grant with other limits starts knowing nothing', async () => {
    const ledger = databaseLedger(db);
    const person = somebody();
    expect(await ledger.reserve({ grant: grantOf(person, 5), nowMs: T0 })).toMatchObject({ ok: true });
    expect(ledger.roomFor?.(grantOf(person, 5))).toBe(true);
    expect(ledger.roomFor?.(grantOf(person, 6))).toBe(false);
  });
});
