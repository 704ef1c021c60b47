/**
 * Figures for the server benchmarks: percentiles of millisecond samples, and a `Database` that
 * times every transaction and read — how long it queued behind others (PGlite runs one at a time)
 * and how long it ran — labelled by what its first statement does (`read: …` for a read outside a
 * transaction, `person: …` for a person's transaction).
 */
import { performance } from 'node:perf_hooks';
import type { Database } from '../../server/db/database';
import type { Queryable } from '../../server/db/queryable';

export interface Spread {
  n: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
}

export function roundMs(ms: number, places = 2): number {
  return Number(ms.toFixed(places));
}

/** Nearest-rank percentile `p` (0–1) of ascending `sorted`. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

/** p50, p95, max and mean of `samples` (ms), rounded to hundredths. */
export function spread(samples: readonly number[]): Spread {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, v) => sum + v, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: roundMs(percentile(sorted, 0.5)),
    p95: roundMs(percentile(sorted, 0.95)),
    max: roundMs(sorted[sorted.length - 1] ?? Number.NaN),
    mean: roundMs(mean),
  };
}

/** One transaction as `timedDatabase` saw it, in ms. */
export interface TimedTransaction {
  /** What its first statement does (see `label`). */
  label: string;
  /** From being asked for until it began: waiting for the transactions ahead of it. */
  queuedMs: number;
  /** From beginning until it committed, its statements included. */
  ranMs: number;
}

/** Names a transaction by its first statement, for the door's known ones. */
function label(sql: string): string {
  const words = sql.replace(/\s+/g, ' ').trim().toLowerCase();
  if (words.includes('pg_advisory_xact_lock')) return 'reserve';
  if (words.includes('from lines l join threads')) return 'past questions';
  if (words.includes('from memories') && words.includes('<=>')) return 'recall';
  if (words.startsWith('insert into memories')) return 'remember';
  if (words.includes('from verb_calls')) return 'recent apps';
  if (words.startsWith('select summary, lines_since from presence_checkpoints')) return 'checkpoint';
  if (words.includes('update reservations set hold = 0') && words.includes('insert into usage')) return 'settle';
  if (words.startsWith('update reservations set hold = 0')) return 'release';
  return words.slice(0, 40);
}

/** `db`, timing each transaction into `into`; a person's are labelled `person: …`. */
export function timedDatabase(db: Database, into: TimedTransaction[]): Database {
  const timed = <T>(prefix: string, run: (fn: (tx: Queryable) => Promise<T>) => Promise<T>, fn: (tx: Queryable) => Promise<T>): Promise<T> => {
    const askedMs = performance.now();
    let beganMs = askedMs;
    let first: string | undefined;
    return run((tx) => {
      beganMs = performance.now();
      return fn({
        query: (sql, params) => {
          first ??= sql;
          return tx.query(sql, params);
        },
      });
    }).finally(() => {
      into.push({ label: `${prefix}${label(first ?? '')}`, queuedMs: beganMs - askedMs, ranMs: performance.now() - beganMs });
    });
  };
  return {
    asServer: (fn) => timed('', (inner) => db.asServer(inner), fn),
    asPerson: (person, fn) => timed('person: ', (inner) => db.asPerson(person, inner), fn),
    readAsServer: (fn) => timed('read: ', (inner) => db.readAsServer(inner), fn),
    // Notifications, as the server hears them: presence across instances.
    ...(db.listen === undefined ? {} : { listen: db.listen }),
    close: () => db.close(),
  };
}
/** Each label's queued and ran spreads. */
export function byLabel(transactions: readonly TimedTransaction[]): Record<string, { queuedMs: Spread; ranMs: Spread }> {
  const labels = [...new Set(transactions.map((t) => t.label))].sort();
  return Object.fromEntries(
    labels.map((name) => {
      const mine = transactions.filter((t) => t.label === name);
      return [name, { queuedMs: spread(mine.map((t) => t.queuedMs)), ranMs: spread(mine.map((t) => t.ranMs)) }];
    }),
  );
}
