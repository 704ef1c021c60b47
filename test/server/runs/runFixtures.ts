/**
 * What the run tests share: the engines they run on (PGlite in memory; a real Postgres too when
 * `CONFAB_TEST_DATABASE_URL` names one), the shipped `lists` app behind the one executor, workers
 * with short leases, and waiting for a run to end.
 */
import lists from '../../../server/apps/lists/index';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { startRun } from '../../../server/runs/runsApi';
import type { StartRun } from '../../../server/runs/runsApi';
import { readRun } from '../../../server/runs/runs';
import type { Run } from '../../../server/runs/types';
import { createWorker } from '../../../server/runs/worker';
import type { RunEvent, Worker, WorkerOptions } from '../../../server/runs/worker';
import { createExecutor } from '../../../server/verbs/executor';
import type { Executor } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import { shippedWords } from '../../../server/words/loadWords';
import { openOwnDatabase } from '../../helpers/testDatabase';
import { openMemoryDatabase } from '../db/fixtures';

const realPostgres = process.env.CONFAB_TEST_DATABASE_URL;
export const ENGINES: { name: string; open: () => Promise<Database> }[] = [
  { name: 'PGlite', open: openMemoryDatabase },
  ...(realPostgres === undefined || realPostgres === '' ? [] : [{ name: 'Postgres', open: () => openOwnDatabase(realPostgres) }]),
];

const registry = createRegistry([lists]);
export const VERBS = registry.verbs;

export function executorOver(db: Database): Executor {
  return createExecutor({ registry, db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
}

/** A short lease, so a killed worker's runs are taken over within the test. */
export const TEST_LEASE_MS = 300;

export function workerOver(db: Database, executor: Executor, owner: string, events: RunEvent[], over: Partial<WorkerOptions> = {}): Worker {
  return createWorker({ db, executor, verbsFor: () => VERBS, wordsFor: () => shippedWords().wordsIn('en'), owner, clock: Date.now, leaseMs: TEST_LEASE_MS, pollMs: 25, onEvent: (event) => events.push(event), ...over });
}

export async function start(db: Database, person: string, asked: string, over: Partial<StartRun> = {}): Promise<string> {
  const id = await startRun(db, { person, bot: 'buddy', conversationKey: 'conv-1', asked, scripted: true, verbs: VERBS, maxSteps: 12, maxSpendUsd: 0.5, maxMinutes: 10, ...over }, Date.now());
  if (id === undefined) throw new Error('A run of theirs is already busy in that conversation.');
  return id;
}

const ENDED = new Set(['finished', 'failed', 'cancelled', 'out_of_budget']);

/** The run once it has ended (its ending written), or a failure after `withinMs`. */
export async function ended(db: Database, id: string, withinMs = 15_000): Promise<Run> {
  const untilMs = Date.now() + withinMs;
  for (;;) {
    const run = await db.asServer((tx) => readRun(tx, id));
    if (run !== undefined && ENDED.has(run.state) && run.answer !== null) return run;
    if (Date.now() > untilMs) throw new Error(`Run ${id} had not ended after ${String(withinMs)} ms (state ${run?.state ?? 'missing'}).`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What is on the person's list now, read through the executor as they would. */
export async function listItems(executor: Executor, person: string, list = 'shopping'): Promise<string[]> {
  const outcome = await executor.execute({ verb: 'lists.read', input: { list }, caller: { person, bot: 'buddy', via: 'person', timeZone: 'UTC' } });
  if (!outcome.ok) throw outcome.error;
  return (outcome.output as { items: string[] }).items;
}

/** How many times the person's writes through `verb` took effect (one row per write, replays add none). */
export async function writesOf(db: Database, person: string, verb: string): Promise<number> {
  const { rows } = await db.asServer((tx) => tx.query<{ n: number }>('select count(*)::int as n from verb_calls where person = $1 and verb = $2', [person, verb]));
  return rows[0]?.n ?? 0;
}
