/**
 * Work that outlives a turn: RUNS runs of five steps each (model, tool, model, tool, model, then
 * the saying of the answer) over two workers, each in a process of its own over one database
 * reached by URL (PGlite served by pglite-socket, or the real Postgres of
 * CONFAB_TEST_DATABASE_URL), as two server instances share one Postgres. Once half the runs have
 * finished, one worker's process is killed with SIGKILL, whatever it was doing; the other takes its
 * runs over once their leases lapse, and a third process starts in the dead one's place.
 *
 * - finished: runs whose answer was said (state `finished`); lostRuns: runs not ended at all.
 * - duplicateWrites: writes that took effect more than once (the `lists.add` effects recorded
 *   beyond the two each run asks for, and items on a list beyond them).
 * - resumeMsP95: for each run the dead worker held, from the moment its lease lapsed (the
 *   `lease_until` it left behind) to the next step of that run begun by another worker. The lease
 *   is LEASE_MS; target p95 ≤ 2 × the lease.
 */
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import { startRun } from '../../server/runs/runsApi';
import type { RunEvent } from '../../server/runs/worker';
import { spread } from '../helpers/benchTimings';
import { startWorkerProcess } from '../helpers/runWorkerProcess';
import type { WorkerProcess } from '../helpers/runWorkerProcess';
import { somebody, startSocketPostgres } from '../server/db/fixtures';
import type { SocketPostgres } from '../server/db/fixtures';
import { VERBS } from '../server/runs/runFixtures';
import type { BenchResult, BenchTarget } from './run';

const RUNS = 200;
const LEASE_MS = 500;
const CONCURRENCY = 3;
const PATIENCE_MS = 240_000;

export const targets: BenchTarget[] = [
  { figure: 'finished', atLeast: RUNS, what: `runs finished of ${String(RUNS)}, one of two workers killed mid-way` },
  { figure: 'duplicateWrites', atMost: 0, what: 'writes that took effect twice' },
  { figure: 'lostRuns', atMost: 0, what: 'runs never ended' },
  { figure: 'resumeMsP95', atMost: 2 * LEASE_MS, what: `lease lapse → the next step begun by another worker, p95 (lease ${String(LEASE_MS)} ms)` },
];

interface Seen {
  /** The first step each holder began, per run: holder → ms. */
  begun: Map<string, Map<string, number>>;
  ended: Set<string>;
}

export async function run(): Promise<BenchResult> {
  const external = process.env.CONFAB_TEST_DATABASE_URL;
  const served: SocketPostgres | undefined = external === undefined || external === '' ? await startSocketPostgres() : undefined;
  const url = served === undefined ? (external ?? '') : served.url;
  const db = await openDatabase({ url, poolSize: 2 });
  const seen: Seen = { begun: new Map(), ended: new Set() };
  const onEvent = (event: RunEvent) => {
    if (event.event === 'run.step-begun') {
      const byHolder = seen.begun.get(event.runId) ?? new Map<string, number>();
      if (!byHolder.has(event.holder)) byHolder.set(event.holder, event.atMs);
      seen.begun.set(event.runId, byHolder);
    } else if (event.event === 'run.ended') seen.ended.add(event.runId);
  };
  const workers: WorkerProcess[] = [];
  try {
    const people: { id: string; person: string }[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const person = somebody(`long${String(i)}`);
      const asked = `add apples ${String(i)} to my shopping list, then add pears ${String(i)} to my shopping list`;
      const id = await startRun(db, { person, bot: 'buddy', conversationKey: `conv-${String(i)}`, asked, scripted: true, verbs: VERBS, maxSteps: 12, maxSpendUsd: 0.5, maxMinutes: 10 }, Date.now());
      if (id === undefined) throw new Error('Each run is its own person’s: none can be busy already.');
      people.push({ id, person });
    }
    const worker = (holder: string) => startWorkerProcess({ url, holder, leaseMs: LEASE_MS, concurrency: CONCURRENCY, onEvent });
    workers.push(worker('bench-a'), worker('bench-b'));
    await until(() => seen.ended.size >= RUNS / 2, PATIENCE_MS, 'half the runs to finish');

    await (workers[0] as WorkerProcess).kill();
    // The runs the dead worker left holding, and when each of their leases lapses.
    const { rows } = await db.asServer((tx) => tx.query<{ id: string; lease_until: Date | string }>("select id, lease_until from runs where lease_holder = 'bench-a' and state = 'running'"));
    const lapses = new Map(rows.map((row) => [row.id, new Date(row.lease_until).getTime()]));
    workers.push(worker('bench-c'));
    await until(() => seen.ended.size >= RUNS, PATIENCE_MS, 'every run to end');

    const resumes = [...lapses].flatMap(([id, lapsedAtMs]) => {
      const byHolder = seen.begun.get(id);
      const taken = [...(byHolder ?? new Map<string, number>())].filter(([holder, atMs]) => holder !== 'bench-a' && atMs >= lapsedAtMs).map(([, atMs]) => atMs);
      return taken.length === 0 ? [] : [Math.min(...taken) - lapsedAtMs];
    });
    const states = await db.asServer((tx) => tx.query<{ state: string; n: number }>('select state, count(*)::int as n from runs group by state'));
    const count = (state: string) => states.rows.find((row) => row.state === state)?.n ?? 0;
    const duplicateWrites = await duplicates(db, people.map((p) => p.person));
    const resume = spread(resumes);
    return {
      bench: 'long-work',
      runs: RUNS,
      finished: count('finished'),
      duplicateWrites,
      lostRuns: RUNS - (count('finished') + count('failed') + count('cancelled') + count('out_of_budget')),
      resumeMsP95: resume.p95,
      resumeMsP50: resume.p50,
      takenOver: lapses.size,
      resumed: resumes.length,
      leaseMs: LEASE_MS,
      workers: 2,
      concurrency: CONCURRENCY,
      database: served === undefined ? 'postgres' : 'pglite-socket',
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop().catch(() => undefined)));
    await db.close();
    await served?.stop();
  }
}

/** Writes beyond the two each run's person asked for: recorded `lists.add` effects, and items kept. */
async function duplicates(db: Database, people: readonly string[]): Promise<number> {
  const { rows } = await db.asServer((tx) =>
    tx.query<{ person: string; calls: number }>("select person, count(*)::int as calls from verb_calls where verb = 'lists.add' and person = any($1) group by person", [people]),
  );
  const items = await db.asServer((tx) => tx.query<{ person: string; n: number }>('select person, count(*)::int as n from list_items where person = any($1) group by person', [people]));
  const over = (n: number) => Math.max(0, n - 2);
  return rows.reduce((sum, row) => sum + over(row.calls), 0) + items.rows.reduce((sum, row) => sum + over(row.n), 0);
}

async function until(done: () => boolean, withinMs: number, what: string): Promise<void> {
  const untilMs = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > untilMs) throw new Error(`Waited ${String(withinMs)} ms for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
