import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnswerSpend } from '../../server/chat/doorTypes';
import type { Database } from '../../server/db/database';
import { spendSince } from '../../server/db/usage';
import type { GrantClaims } from '../../server/grants';
import { databaseLedger } from '../../server/ledger';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from './db/fixtures';

const T0 = Date.parse('2026-03-02T10:00:00Z');

const grantOf = (person: string, answers: number, spend = 0.05): GrantClaims => ({
  bot: 'demo',
  person,
  kind: 'cookie',
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

  it('says a refusal of the person’s own windows is theirs', async () => {
    const ledger = databaseLedger(db);
    const grant = grantOf(somebody(), 1);
    expect(await ledger.reserve({ grant, nowMs: T0 })).toMatchObject({ ok: true });
    expect(await ledger.reserve({ grant, nowMs: T0 + 1 })).toMatchObject({ ok: false, by: 'person', sentence: expect.stringContaining('an hour (1)') as string });
  });

  it('refuses past the site’s windows over everybody, and leaves nothing of the refused person’s reservation', async () => {
    const ledger = databaseLedger(db, { site: { perMinute: { answers: 3 } } });
    // Later than every other test's turns, so the site's minute holds only these.
    const at = T0 + 3_600_000;
    const persons = [somebody(), somebody(), somebody(), somebody()];
    const answers = [];
    for (const [i, person] of persons.entries()) answers.push(await ledger.reserve({ grant: grantOf(person, 10), nowMs: at + i }));
    expect(answers.slice(0, 3)).toEqual([0, 1, 2].map(() => expect.objectContaining({ ok: true }) as unknown));
    expect(answers[3]).toMatchObject({ ok: false, by: 'site', sentence: expect.stringMatching(/^That is as many answers as this site gives in a minute for everybody together \(3\)/) as string });
    const left = await db.asServer((tx) => tx.query<{ n: number }>('select count(*)::int as n from reservations where person = $1', [persons[3]]));
    expect(left.rows[0]?.n).toBe(0);
    // The person the site refused has their own room still: only the site is full.
    const alone = databaseLedger(db);
    expect(await alone.reserve({ grant: grantOf(persons[3] ?? '', 1), nowMs: at + 10 })).toMatchObject({ ok: true });
  });

  it('holds each answer against the site’s spend, and settles the site’s share with what it cost', async () => {
    const ledger = databaseLedger(db, { site: { perDay: { spend: 0.12 } } });
    const at = T0 + 3 * 86_400_000;
    const first = await ledger.reserve({ grant: grantOf(somebody(), 10), nowMs: at });
    const second = await ledger.reserve({ grant: grantOf(somebody(), 10), nowMs: at + 1 });
    expect([first.ok, second.ok]).toEqual([true, true]);
    // Two holds of 0.05 leave no room in the site's 0.12 for a third; settled at 0.01, the first leaves room.
    expect(await ledger.reserve({ grant: grantOf(somebody(), 10), nowMs: at + 2 })).toMatchObject({ ok: false, by: 'site' });
    if (!first.ok) throw new Error('unreachable');
    await ledger.settle(first.reservation, spent(0.01));
    expect(await ledger.reserve({ grant: grantOf(somebody(), 10), nowMs: at + 3 })).toMatchObject({ ok: true });
  });

  it('reserves spend that is not an answer against spend ceilings only: the voice never uses up answers', async () => {
    const ledger = databaseLedger(db);
    const person = somebody();
    const grant = grantOf(person, 1);
    const ask = { person, bot: 'demo', limits: grant.limits, spendHoldUsd: 0.3, spendHoldMs: 60_000 };
    const voice = await ledger.reserveSpend({ ...ask, nowMs: T0 });
    expect(voice).toMatchObject({ ok: true });
    expect(await ledger.reserveSpend({ ...ask, nowMs: T0 + 1 })).toMatchObject({ ok: true });
    // One answer an hour is still there, though two sentences were held.
    expect(await ledger.reserve({ grant, nowMs: T0 + 2 })).toMatchObject({ ok: true });
    // 0.3 + 0.3 + 0.05 held of the day's dollar: another 0.4 of voice does not fit.
    expect(await ledger.reserveSpend({ ...ask, spendHoldUsd: 0.4, nowMs: T0 + 3 })).toMatchObject({ ok: false, by: 'person' });
    if (!voice.ok) throw new Error('unreachable');
    await ledger.settle(voice.reservation, { ...spent(0.3), provider: 'voice', model: 'tts-1', promptTokens: 0 });
    const usage = await db.asServer((tx) => spendSince(tx, { person, bot: 'demo', since: new Date(T0) }));
    expect(usage).toEqual({ answers: 1, costUsd: 0.3, tokens: 0 });
  });
});
