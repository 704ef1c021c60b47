/**
 * The child of `runWorkerProcess.ts`: one worker over the database at RUNS_URL with the shipped
 * `lists` app, printing its events as JSON lines until SIGTERM (stop between steps) or SIGKILL.
 */
import lists from '../../server/apps/lists/index';
import { openDatabase } from '../../server/db/database';
import { hashEmbedder } from '../../server/memory/embed';
import { createWorker } from '../../server/runs/worker';
import { createExecutor } from '../../server/verbs/executor';
import { createRegistry } from '../../server/verbs/registry';
import { shippedWords } from '../../server/words/loadWords';

const url = process.env.RUNS_URL ?? '';
if (url === '') throw new Error('RUNS_URL names the database the worker works over.');
const db = await openDatabase({ url, poolSize: 2 });
const registry = createRegistry([lists]);
const executor = createExecutor({ registry, db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
const worker = createWorker({
  db,
  executor,
  verbsFor: () => registry.verbs,
  wordsFor: () => shippedWords().wordsIn('en'),
  owner: process.env.RUNS_OWNER ?? `child-${String(process.pid)}`,
  clock: Date.now,
  leaseMs: Number(process.env.RUNS_LEASE_MS ?? '500'),
  concurrency: Number(process.env.RUNS_CONCURRENCY ?? '3'),
  pollMs: 20,
  onEvent: (event) => process.stdout.write(`${JSON.stringify(event)}\n`),
});
process.once('SIGTERM', () => {
  void worker.stop().then(() => db.close()).then(() => process.exit(0));
});
worker.start();
