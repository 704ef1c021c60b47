import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import type { PersonLimits } from '../../../server/db/limits';
import { releaseReservation, reserveAnswer, reserveFromRows } from '../../../server/db/reservations';
import type { Admission, ReserveRequest } from '../../../server/db/reservations';
import { recordUsage, spendSince } from '../../../server/db/usage';
import { seededRandom } from '../../helpers/random';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from './fixtures';

const T0 = new Date('2026-03-02T10:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const MINUTE = 60_000;
const HOUR = 3_600_000;

describe('reserving an answer', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  const reserve = (request: Partial<ReserveRequest> & { person: string; limits: PersonLimits }) =>
    db.asServer((tx) => reserveAnswer(tx, { bot: 'demo', now: T0, ...request }));
  const admitted = async (request: Parameters<typeof reserve>[0]): Promise<Admission> => {
    const result = await reserve(request);
    if (!result.ok) throw new Error(`refused: ${result.sentence}`);
    return result;
  };
  const finish = (person: string, reservation: Admission, costUsd: number, bot = 'demo') =>
    db.asServer((tx) =>
      recordUsage(tx, {
        reservationId: reservation.reservationId,
        person,
        bot,
        provider: 'stand-in',
        model: 'script',
        promptTokens: 100,
        completionTokens: 50,
        costUsd,
        startedAt: reservation.reservedAt,
      }),
    );

  it('admits answers up to a window’s ceiling, then refuses and says when the next one frees up', async () => {
    const ana = somebody();
    const limits = { perHour: { answers: 3 } };
    await admitted({ person: ana, limits, now: at(0) });
    await admitted({ person: ana, limits, now: at(10 * MINUTE) });
    await admitted({ person: ana, limits, now: at(20 * MINUTE) });
    const refused = await reserve({ person: ana, limits, now: at(30 * MINUTE) });
    expect(refused).toEqual({
      ok: false,
      window: 'perHour',
      kind: 'answers',
      ceiling: 3,
      freesAt: at(HOUR),
      sentence: 'That is as many answers as this bot gives in an hour (3); the next one frees up in 30 minutes.',
    });
    // The window rolls: once the first answer is an hour old there is room again.
    await admitted({ person: ana, limits, now: at(HOUR + 1) });
  });

  it('says the room the fullest window has left once an answer is counted, spend holds counted as spent', async () => {
    const ana = somebody();
    const limits = { perMinute: { answers: 10 }, perHour: { answers: 3, spend: 1 }, perDay: { spend: 0.5 } };
    expect(await admitted({ person: ana, limits, spendHoldUsd: 0.1, now: at(0) })).toMatchObject({ room: { answers: 2, spendUsd: 0.4 } });
    expect(await admitted({ person: ana, limits, spendHoldUsd: 0.1, now: at(MINUTE) })).toMatchObject({ room: { answers: 1, spendUsd: 0.3 } });
    expect(await admitted({ person: somebody(), limits: { perDay: { answers: 5 } }, now: at(0) })).toMatchObject({ room: { answers: 4, spendUsd: null } });
  });

  it('counts per person and per bot', async () => {
    const ana = somebody();
    const bob = somebody();
    const limits = { perMinute: { answers: 1 } };
    await admitted({ person: ana, limits });
    await admitted({ person: bob, limits });
    await admitted({ person: ana, bot: 'coach', limits });
    expect((await reserve({ person: ana, limits })).ok).toBe(false);
  });

  it('names the window that frees up last when several refuse', async () => {
    const ana = somebody();
    const limits = { perMinute: { answers: 1 }, perDay: { answers: 2 } };
    await admitted({ person: ana, limits, now: at(0) });
    await admitted({ person: ana, limits, now: at(2 * MINUTE) });
    const refused = await reserve({ person: ana, limits, now: at(2 * MINUTE + 1000) });
    expect(refused).toMatchObject({ ok: false, window: 'perDay', kind: 'answers', freesAt: at(24 * HOUR) });
    if (refused.ok) throw new Error('expected a refusal');
    expect(refused.sentence).toBe('That is as many answers as this bot gives in a day (2); the next one frees up in 24 hours.');
  });

  it('adds spend up exactly: an answer that fits to the cent is admitted, and then the window is full', async () => {
    const ana = somebody();
    const limits = { perDay: { spend: 0.6 } };
    await finish(ana, await admitted({ person: ana, limits, now: at(0) }), 0.1);
    await finish(ana, await admitted({ person: ana, limits, now: at(HOUR) }), 0.2);
    // 0.1 + 0.2 + 0.3 is more than 0.6 in floating point; in dollars and cents it is exactly 0.6.
    await admitted({ person: ana, limits, spendHoldUsd: 0.3, now: at(2 * HOUR) });
    const refused = await reserve({ person: ana, limits, spendHoldUsd: 0.01, now: at(2 * HOUR) });
    expect(refused).toMatchObject({ ok: false, window: 'perDay', kind: 'spend', ceiling: 0.6, freesAt: at(24 * HOUR) });
    if (refused.ok) throw new Error('expected a refusal');
    expect(refused.sentence).toBe('That is all this bot may spend in a day ($0.60); it frees up in 22 hours.');
  });

  it('keeps a spend hold of an answer’s most possible cost while it runs, and lets it go when usage is recorded', async () => {
    const ana = somebody();
    const limits = { perDay: { spend: 0.1 } };
    const first = await admitted({ person: ana, limits, spendHoldUsd: 0.05 });
    await admitted({ person: ana, limits, spendHoldUsd: 0.05 });
    // Two answers running hold the whole ceiling, though neither has spent anything yet.
    expect(await reserve({ person: ana, limits, spendHoldUsd: 0.05 })).toMatchObject({ ok: false, kind: 'spend' });
    await finish(ana, first, 0.01);
    await admitted({ person: ana, limits, spendHoldUsd: 0.04 });
  });

  it('frees a spend hold when nothing was bought, while the answer still counts', async () => {
    const ana = somebody();
    const limits = { perHour: { answers: 2, spend: 0.05 } };
    const failed = await admitted({ person: ana, limits, spendHoldUsd: 0.05 });
    expect(await reserve({ person: ana, limits, spendHoldUsd: 0.05 })).toMatchObject({ ok: false, kind: 'spend' });
    expect(await db.asServer((tx) => releaseReservation(tx, failed.reservationId))).toBe(true);
    await admitted({ person: ana, limits, spendHoldUsd: 0.05 });
    expect(await reserve({ person: ana, limits })).toMatchObject({ ok: false, kind: 'answers' });
    expect(await db.asServer((tx) => releaseReservation(tx, 'not-a-uuid'))).toBe(false);
  });

  it('stops counting a spend hold nobody settled once its answer could no longer be running (a crashed server)', async () => {
    const ana = somebody('ana');
    const limits: PersonLimits = { perDay: { spend: 0.1 } };
    await admitted({ person: ana, limits, spendHoldUsd: 0.1, spendHoldMs: 2 * MINUTE + 30_000 });
    // While the answer may still be running, its spend hold fills the day.
    expect(await reserve({ person: ana, limits, spendHoldUsd: 0.05, now: at(2 * MINUTE) })).toMatchObject({ ok: false, kind: 'spend' });
    // Past the answer's own ceiling it is not running anywhere: the day is free again, not for 24 hours.
    await admitted({ person: ana, limits, spendHoldUsd: 0.05, spendHoldMs: 2 * MINUTE + 30_000, now: at(3 * MINUTE) });
  });

  it('says when spend frees up: when enough of the oldest spending has left the window', async () => {
    const ana = somebody();
    const limits = { perHour: { spend: 1 } };
    await finish(ana, await admitted({ person: ana, limits, now: at(0) }), 0.4);
    await finish(ana, await admitted({ person: ana, limits, now: at(10 * MINUTE) }), 0.4);
    await finish(ana, await admitted({ person: ana, limits, now: at(20 * MINUTE) }), 0.2);
    // 1.00 spent; an answer holding 0.50 fits once 0.80 has gone, i.e. when the 10-minute answer leaves.
    expect(await reserve({ person: ana, limits, spendHoldUsd: 0.5, now: at(30 * MINUTE) })).toMatchObject({ ok: false, freesAt: at(HOUR + 10 * MINUTE) });
    await admitted({ person: ana, limits, spendHoldUsd: 0.5, now: at(HOUR + 10 * MINUTE + 1) });
  });

  it('admits nothing under a ceiling of 0, and says it never frees up', async () => {
    const ana = somebody();
    expect(await reserve({ person: ana, limits: { perMonth: { answers: 0 } } })).toMatchObject({ ok: false, freesAt: null, sentence: 'This bot is set to give no answers at all.' });
    expect(await reserve({ person: ana, limits: { perMonth: { spend: 0 } } })).toMatchObject({ ok: false, freesAt: null });
  });

  it('counts an answer stamped ahead of this server’s clock, as another server’s may be', async () => {
    const ana = somebody();
    const limits = { perMinute: { answers: 1 } };
    await admitted({ person: ana, limits, now: at(5000) });
    expect((await reserve({ person: ana, limits, now: at(0) })).ok).toBe(false);
  });

  it('refuses limits no answer could be counted against', async () => {
    const ana = somebody();
    await expect(reserve({ person: ana, limits: { perDay: { answers: 1.5 } } })).rejects.toThrow('limits.perDay.answers is 1.5');
    await expect(reserve({ person: ana, limits: { perDay: { spend: -1 } } })).rejects.toThrow('limits.perDay.spend is -1');
    await expect(reserve({ person: ana, limits: { perDay: { spend: 0.01 } }, spendHoldUsd: 0.05 })).rejects.toThrow('no answer could ever fit');
  });

  it('counts every window exactly from its running totals, to the millisecond at each edge', async () => {
    // Forty days of one person's answers, bunched at the edges of minutes, hours and days; some settled
    // with a cost, some released, some left holding (running, or on a server that crashed). As the
    // days pass, the room each window has is compared, at many moments, with the same count made here
    // from the list and with the count from the rows — and a window whose ceiling is its exact count
    // must refuse.
    const ana = somebody('ana');
    const random = seededRandom(0x7a11);
    const DAY = 24 * HOUR;
    const grains = [MINUTE, HOUR, DAY];
    const moment = () => {
      const day = Math.floor(random() * 40) * DAY;
      if (random() < 0.5) return day + Math.floor(random() * DAY);
      // At the end of a minute, an hour or a day: a millisecond either side of it, or on it.
      const grain = grains[Math.floor(random() * grains.length)] ?? MINUTE;
      return day + Math.floor(random() * (DAY / grain)) * grain + Math.floor(random() * 3) - 1;
    };
    const windows: [keyof PersonLimits, number][] = [['perMinute', MINUTE], ['perHour', HOUR], ['perDay', DAY], ['perWeek', 7 * DAY], ['perMonth', 30 * DAY]];
    const times = Array.from({ length: 240 }, moment).sort((x, y) => x - y);
    const probes = [
      ...Array.from({ length: 80 }, moment),
      // The moment an answer leaves each window, and a millisecond before.
      ...times.filter(() => random() < 0.15).flatMap((t) => windows.flatMap(([, ms]) => [t + ms, t + ms - 1])),
    ].sort((x, y) => x - y);

    interface Answer {
      at: number;
      holdCents: number;
      holdsUntil: number | null;
      costCents?: number;
      released?: boolean;
    }
    const history: Answer[] = [];
    const boundless: PersonLimits = { perMinute: { answers: 1_000_000 } };
    const record = async (at: number) => {
      const holdCents = Math.floor(random() * 5);
      const holdsUntil = random() < 0.5 ? null : at + Math.floor(random() * 10 * MINUTE);
      const admission = await admitted({ person: ana, limits: boundless, spendHoldUsd: holdCents / 100, now: new Date(T0.getTime() + at), ...(holdsUntil === null ? {} : { spendHoldMs: holdsUntil - at }) });
      const answer: Answer = { at, holdCents, holdsUntil };
      const fate = random();
      if (fate < 0.6) {
        answer.costCents = Math.floor(random() * 7);
        await finish(ana, admission, answer.costCents / 100);
      } else if (fate < 0.75) {
        answer.released = true;
        await db.asServer((tx) => releaseReservation(tx, admission.reservationId));
      }
      history.push(answer);
    };
    /** Answers in the window ending at `now`, and what it spent, counted from the list. */
    const counted = (now: number, window: number) => {
      const inside = history.filter((a) => a.at > now - window);
      const spentCents = inside.reduce((sum, a) => {
        if (a.costCents !== undefined) return sum + a.costCents;
        if (a.released === true || (a.holdsUntil !== null && a.holdsUntil <= now)) return sum;
        return sum + a.holdCents;
      }, 0);
      return { answers: inside.length, spentCents };
    };
    /** What reserving at `now` answers, rolled back so that it counts nothing itself. */
    const tryAt = async (now: number, limits: PersonLimits, spendHoldUsd = 0, how = reserveAnswer) => {
      let outcome: Awaited<ReturnType<typeof reserve>> | undefined;
      const rolledBack = new Error('rolled back');
      await expect(
        db.asServer(async (tx) => {
          outcome = await how(tx, { person: ana, bot: 'demo', limits, spendHoldUsd, now: new Date(T0.getTime() + now) });
          throw rolledBack;
        }),
      ).rejects.toBe(rolledBack);
      return outcome;
    };

    let recorded = 0;
    for (const now of probes) {
      while (recorded < times.length && (times[recorded] ?? Infinity) <= now) await record(times[recorded++] ?? 0);
      const counts = windows.map(([, ms]) => counted(now, ms));
      // Every answers ceiling 5 above its window's count: the room is 4, whatever the count.
      const limits = Object.fromEntries(windows.map(([name], i) => [name, { answers: (counts[i]?.answers ?? 0) + 5, spend: 1_000 }])) as PersonLimits;
      const admission = await tryAt(now, limits, 0.01);
      expect(admission?.ok, `admitted at ${String(now)}`).toBe(true);
      if (admission?.ok !== true) continue;
      expect(admission.room.answers, `answers at ${String(now)}`).toBe(4);
      const leastSpendRoom = Math.min(...counts.map((c) => 100_000 - c.spentCents - 1));
      expect(Math.round((admission.room.spendUsd ?? Number.NaN) * 100), `spend at ${String(now)}`).toBe(leastSpendRoom);
      // Counted from the rows instead, as a refusal counts: the same room.
      expect(await tryAt(now, limits, 0.01, reserveFromRows), `from rows at ${String(now)}`).toEqual(expect.objectContaining({ ok: true, room: admission.room }));
      const [name, ms] = windows[Math.floor(random() * windows.length)] ?? ['perDay', DAY];
      const full = counted(now, ms).answers;
      if (full > 0) expect((await tryAt(now, { [name]: { answers: full } }))?.ok, `${name} full at ${String(now)}`).toBe(false);
    }
  });

  it('admits exactly the ceiling when twenty ask at once', async () => {
    const ana = somebody();
    const limits = { perMinute: { answers: 5 } };
    const results = await Promise.all(Array.from({ length: 20 }, () => reserve({ person: ana, limits })));
    expect(results.filter((r) => r.ok)).toHaveLength(5);
  });
});

describe('usage', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  const record = (person: string, bot: string, costUsd: number, startedAt: Date) =>
    db.asServer((tx) => recordUsage(tx, { person, bot, provider: 'openai', model: 'gpt', promptTokens: 30, completionTokens: 12, costUsd, startedAt }));

  it('adds up answers, cost and tokens since a moment, for one bot or all', async () => {
    const ana = somebody();
    await record(ana, 'demo', 0.25, at(0));
    await record(ana, 'demo', 0.5, at(HOUR));
    await record(ana, 'coach', 0.125, at(HOUR));
    await record(somebody(), 'demo', 9, at(HOUR));
    expect(await db.asServer((tx) => spendSince(tx, { person: ana, since: at(0) }))).toEqual({ answers: 3, costUsd: 0.875, tokens: 126 });
    expect(await db.asServer((tx) => spendSince(tx, { person: ana, bot: 'demo', since: at(1) }))).toEqual({ answers: 1, costUsd: 0.5, tokens: 42 });
    expect(await db.asServer((tx) => spendSince(tx, { person: somebody(), since: at(0) }))).toEqual({ answers: 0, costUsd: 0, tokens: 0 });
  });

  it('records an answer once per reservation, and refuses nonsense figures', async () => {
    const ana = somebody();
    const reservation = await db.asServer((tx) => reserveAnswer(tx, { person: ana, bot: 'demo', limits: {}, now: T0 }));
    if (!reservation.ok) throw new Error('refused');
    const usage = { reservationId: reservation.reservationId, person: ana, bot: 'demo', provider: 'p', model: 'm', promptTokens: 1, completionTokens: 1, costUsd: 0, startedAt: T0 };
    await db.asServer((tx) => recordUsage(tx, usage));
    await expect(db.asServer((tx) => recordUsage(tx, usage))).rejects.toMatchObject({ name: 'DatabaseError', code: '23505' });
    await expect(db.asServer((tx) => recordUsage(tx, { ...usage, reservationId: undefined, promptTokens: -1 }))).rejects.toThrow(RangeError);
    await expect(db.asServer((tx) => recordUsage(tx, { ...usage, reservationId: undefined, costUsd: Number.NaN }))).rejects.toThrow(RangeError);
  });
});
