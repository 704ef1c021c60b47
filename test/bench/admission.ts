/**
 * Admitting a turn: does it cost the same for somebody's thousandth answer this month as for their
 * first? Admission adds each window up from running totals (server/db/reservations.ts, migration 009);
 * before them it read every answer and cost in the longest window. Both are timed here, side by side
 * in one run, over the same data.
 *
 * Persons whose last 30 days hold `HISTORIES` answers each to the demo bot (spread evenly, every one
 * settled with a cost, each spend hold standing as long as the ledger lets it), in an in-memory PGlite with the real
 * migrations. For each, `ROUNDS` admissions at the moment after their latest answer under the demo
 * bot's windows (per minute, day and month; ceilings raised so every one is admitted): one counted
 * from the totals (`reserveAnswer`) and one from the rows (`reserveFromRows`, which a refusal still
 * runs), alternating, each in its own transaction that is then rolled back, so the history stays as
 * it was. Timed: the whole transaction — the lock, the statement, the commit's place taken by the
 * rollback — as the ledger runs it.
 *
 * The headline: admission at 10,000 answers this month, from the totals (target ≤ 2 ms p50; from
 * the rows it was 22 ms). It grows a little from 10 answers to 10,000 — there are more totals to add
 * up — but never past the bound: a window reads at most 30 day, 23 hour and 59 minute totals and one
 * minute of rows, reached at one answer a minute. The ratios to 10 answers are reported beside it.
 */
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../server/db/database';
import type { PersonLimits } from '../../server/db/limits';
import { recordUsage } from '../../server/db/usage';
import { reserveAnswer, reserveFromRows } from '../../server/db/reservations';
import type { ReserveRequest } from '../../server/db/reservations';
import { roundMs, spread } from '../helpers/benchTimings';
import type { Spread } from '../helpers/benchTimings';
import { seededRandom } from '../helpers/random';
import type { BenchTarget } from './run';

const SEED = 0xad_0155;
const HISTORIES = [10, 1_000, 10_000] as const;
const ROUNDS = 300;
const WARM_UP = 30;
const MONTH_MS = 30 * 86_400_000;
const NOW = new Date('2026-12-01T12:00:00.000Z');
/** The demo bot's windows (bots/demo.md), every ceiling far above what is recorded. */
const LIMITS: PersonLimits = { perMinute: { answers: 1_000_000 }, perDay: { answers: 1_000_000, spend: 1_000_000 }, perMonth: { spend: 1_000_000 } };
const SPEND_HOLD_USD = 0.05;
/** How long a spend hold stands, as the ledger sets it: the demo bot's 2 minutes and 30 s to settle. */
const SPEND_HOLD_MS = 150_000;
const TARGET_P50_MS = 2;

export const targets: BenchTarget[] = [{ figure: 'talliedP50Ms10k', atMost: TARGET_P50_MS, what: 'admitting a turn for a person with 10,000 answers this month, median' }];

export async function run(): Promise<{ bench: 'admission'; talliedP50Ms10k: number; [figure: string]: unknown }> {
  const random = seededRandom(SEED);
  const db = await openDatabase({ dataDir: 'memory://' });
  try {
    const loadStarted = performance.now();
    for (const count of HISTORIES) {
      const person = `history-${count}`;
      // In chronological order, as they happened; a transaction per hundred to load quickly.
      for (let from = 0; from < count; from += 100) {
        await db.asServer(async (tx) => {
          for (let i = from; i < Math.min(count, from + 100); i++) {
            const at = new Date(NOW.getTime() - MONTH_MS + Math.floor(((i + random()) * MONTH_MS) / count) - 1);
            const admitted = await reserveAnswer(tx, { person, bot: 'demo', limits: {}, spendHoldUsd: SPEND_HOLD_USD, spendHoldMs: SPEND_HOLD_MS, now: at });
            if (!admitted.ok) throw new Error(`loading: ${admitted.sentence}`);
            const costUsd = Math.round(random() * 500) / 100_000;
            await recordUsage(tx, { reservationId: admitted.reservationId, person, bot: 'demo', provider: 'p', model: 'm', promptTokens: 300, completionTokens: 60, costUsd, startedAt: at });
          }
        });
      }
    }
    const loadMs = performance.now() - loadStarted;

    const rolledBack = new Error('rolled back');
    const timed = async (how: typeof reserveAnswer, request: ReserveRequest): Promise<number> => {
      const started = performance.now();
      const outcome = { ok: false };
      await db
        .asServer(async (tx) => {
          outcome.ok = (await how(tx, request)).ok;
          throw rolledBack;
        })
        .catch((error: unknown) => {
          if (error !== rolledBack) throw error;
        });
      if (!outcome.ok) throw new Error('An admission was refused; the benchmark times admissions.');
      return performance.now() - started;
    };
    const byHistory: Record<string, { tallies: Spread; rows: Spread; ratioRowsToTallies: number }> = {};
    for (const count of HISTORIES) {
      const request: ReserveRequest = { person: `history-${count}`, bot: 'demo', limits: LIMITS, spendHoldUsd: SPEND_HOLD_USD, spendHoldMs: SPEND_HOLD_MS, now: NOW };
      const tallies: number[] = [];
      const rows: number[] = [];
      for (let round = 0; round < WARM_UP + ROUNDS; round++) {
        // Alternating which goes first, so neither always runs on a warmer engine.
        const first = round % 2 === 0;
        const a = await timed(first ? reserveAnswer : reserveFromRows, request);
        const b = await timed(first ? reserveFromRows : reserveAnswer, request);
        if (round < WARM_UP) continue;
        tallies.push(first ? a : b);
        rows.push(first ? b : a);
      }
      const t = spread(tallies);
      const r = spread(rows);
      byHistory[String(count)] = { tallies: t, rows: r, ratioRowsToTallies: roundMs(r.p50 / t.p50) };
    }
    const p50 = (count: number, how: 'tallies' | 'rows') => byHistory[String(count)]?.[how].p50 ?? Number.NaN;
    const [smallest, , largest] = HISTORIES;
    return {
      bench: 'admission',
      talliedP50Ms10k: p50(largest, 'tallies'),
      rowsP50Ms10k: p50(largest, 'rows'),
      targetP50Ms: TARGET_P50_MS,
      talliedRatio10kTo10: roundMs(p50(largest, 'tallies') / p50(smallest, 'tallies')),
      rowsRatio10kTo10: roundMs(p50(largest, 'rows') / p50(smallest, 'rows')),
      talliedP50Ms: Object.fromEntries(HISTORIES.map((count) => [String(count), p50(count, 'tallies')])),
      rowsP50Ms: Object.fromEntries(HISTORIES.map((count) => [String(count), p50(count, 'rows')])),
      byHistory,
      windows: Object.keys(LIMITS),
      rounds: ROUNDS,
      warmUpRounds: WARM_UP,
      loadMs: Math.round(loadMs),
      engine: 'PGlite in memory (memory://), one connection; each admission in its own transaction, rolled back',
      seed: SEED,
    };
  } finally {
    await db.close();
  }
}
