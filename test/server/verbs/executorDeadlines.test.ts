/**
 * The executor's deadlines and callers that give up, against a real database with the test apps: a
 * read is answered at its deadline or its caller's cancel, and its signal aborted; a write that has
 * started runs to its end, and one that has not yet had its transaction never starts. Nothing here
 * reads the wall clock or sleeps: what must not be waited for is held until the test lets it go
 * (`held`), and the caller is answered while it is still held.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failed, newKey, succeeded } from '../../helpers/outcomes';
import { z } from 'zod';
import { DATABASE_DEFAULTS } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import type { VerbError } from '../../../server/verbs/errors';
import { createExecutor } from '../../../server/verbs/executor';
import type { Call, Executor } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import { defineApp, defineVerb } from '../../../server/verbs/verb';
import type { Caller } from '../../../server/verbs/verb';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';
import { emptyTally, observed, resetObserved, tallyRows, testApps } from '../../helpers/testApps';
import { onPostgres } from '../../helpers/testDatabase';

/** Handlers and narrators under way, each held until the test lets it go, with the signal it was given. */
const held: { signal: AbortSignal; release: () => void }[] = [];
const hold = (signal: AbortSignal) =>
  new Promise<void>((release) => {
    held.push({ signal, release });
  });
const letGo = () => {
  for (const each of held.splice(0)) each.release();
};
/** Ends when `signal` aborts, and not before. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => {
      reject(signal.reason as Error);
    }, { once: true });
  });

/** Verbs and a narrator that run until the test (`held`) or their signal ends them. */
const holding = defineApp({
  name: 'held',
  description: 'Calls the test ends.',
  verbs: [
    defineVerb({
      name: 'held.read',
      description: 'Reads until the test lets it go, whatever its signal says.',
      example: 'hold on',
      input: z.object({}),
      output: z.object({ done: z.boolean() }),
      risk: 'read',
      deadlineMs: 200,
      run: async (_, { signal }) => {
        await hold(signal);
        return { done: true };
      },
    }),
    defineVerb({
      name: 'held.listen',
      description: 'Reads until its signal aborts.',
      example: 'listen',
      input: z.object({}),
      output: z.object({ done: z.boolean() }),
      risk: 'read',
      deadlineMs: 60_000,
      run: (_, { signal }) => {
        held.push({ signal, release: () => undefined });
        return untilAborted(signal);
      },
    }),
  ],
  narrators: [
    {
      follows: 'held.read',
      narrate: async (_, { signal }) => {
        await hold(signal);
        return 'Too late to be heard.';
      },
    },
  ],
});

const registry = createRegistry([...testApps, holding]);

/**
 * Every connection the database has, each in a transaction held open until `release()`, so every
 * other transaction waits its turn behind them: PGlite's one session, or the whole of the `pg` pool.
 */
async function heldConnections(db: Database): Promise<{ release: () => void; ended: Promise<void> }> {
  const connections = onPostgres() ? DATABASE_DEFAULTS.poolSize : 1;
  const held = await Promise.all(Array.from({ length: connections }, () => heldTransaction(db)));
  return {
    release: () => {
      for (const each of held) each.release();
    },
    ended: Promise.all(held.map((each) => each.ended)).then(() => undefined),
  };
}

/** A transaction held open until `release()`; answers once it is open. */
async function heldTransaction(db: Database): Promise<{ release: () => void; ended: Promise<void> }> {
  let ended: Promise<void> = Promise.resolve();
  const release = await new Promise<() => void>((opened) => {
    ended = db.asServer(
      () =>
        new Promise<void>((resolve) => {
          opened(resolve);
        }),
    );
  });
  return { release, ended };
}

describe('the executor under deadlines', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let logs: unknown[];
  let executor: Executor;
  let person: string;
  let caller: Caller;

  const run = (call: Omit<Call, 'caller'>) => executor.execute({ caller, ...call });

  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);

  afterAll(async () => {
    await db.close();
  });

  beforeEach(async () => {
    resetObserved();
    logs = [];
    executor = createExecutor({ registry, db, services: { embedder: hashEmbedder }, clock: Date.now, log: (line) => logs.push(line) });
    person = somebody('ana');
    caller = { person, bot: 'demo', via: 'model', timeZone: 'UTC' };
    await emptyTally(db);
  });

  afterEach(() => {
    letGo();
  });

  describe('stops waiting for a read at its deadline or when its caller goes', () => {
    it('ends a read past its deadline as timed_out, and aborts the read’s signal', async () => {
      const error = failed(await run({ verb: 'tally.wait', input: { ms: 5000 } }));
      expect([error.code, error.sentence]).toEqual(['timed_out', 'That took too long, so I stopped waiting for it.']);
      // Its 5000 ms wait was cut short by the deadline, not waited out.
      expect(observed.waitsAborted).toBe(1);
      expect((observed.waitAbortReason as VerbError).code).toBe('timed_out');
    });

    it('answers timed_out at the deadline without waiting for a handler that ignores its signal', async () => {
      const error = failed(await run({ verb: 'held.read', input: {} }));
      expect(error.code).toBe('timed_out');
      // The handler runs on until the test lets it go: the caller was answered without it.
      await expect.poll(() => held.length).toBe(1);
      expect((held[0]?.signal.reason as VerbError).code).toBe('timed_out');
    });

    it('answers a read that ends inside its deadline', async () => {
      expect(succeeded(await run({ verb: 'tally.wait', input: { ms: 10 } })).output).toEqual({ waitedMs: 10 });
      expect(observed.waitsAborted).toBe(0);
    });

    it('ends a read whose caller gives up as cancelled, and aborts the read’s signal', async () => {
      const stop = new AbortController();
      const running = run({ verb: 'held.listen', input: {}, signal: stop.signal });
      await expect.poll(() => held.length).toBe(1);
      stop.abort();
      const error = failed(await running);
      expect([error.code, error.sentence]).toEqual(['cancelled', 'That was cancelled before it finished.']);
      expect((held[0]?.signal.reason as Error).name).toBe('AbortError');
    });

    it('starts nothing for a caller that had already given up', async () => {
      const stop = new AbortController();
      stop.abort();
      expect(failed(await run({ verb: 'tally.wait', input: { ms: 10 }, signal: stop.signal })).code).toBe('cancelled');
      expect(failed(await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: newKey(), signal: stop.signal })).code).toBe('cancelled');
      expect([observed.waitsStarted, observed.writesStarted]).toEqual([0, 0]);
      expect(await tallyRows(db)).toEqual([]);
    });
  });

  describe('lets a write that has started finish, and never starts one nobody waits for', () => {
    it('lets a write whose caller gives up mid-way commit, and a retry with its key learns the result', async () => {
      const key = newKey();
      const stop = new AbortController();
      const running = run({ verb: 'tally.add', input: { text: 'robin', waitMs: 700 }, idempotencyKey: key, signal: stop.signal });
      await expect.poll(() => observed.writesStarted).toBe(1);
      stop.abort();
      expect(failed(await running).code).toBe('cancelled');
      await expect.poll(() => observed.writesFinished, { timeout: 3000 }).toBe(1);
      const retry = succeeded(await run({ verb: 'tally.add', input: { text: 'robin', waitMs: 700 }, idempotencyKey: key }));
      expect(retry).toMatchObject({ output: { added: 'robin', total: 1 }, replayed: true });
      expect(await tallyRows(db)).toEqual([{ person, text: 'robin' }]);
    });

    it('lets a write still running at its deadline commit, though the caller is told timed_out', async () => {
      const key = newKey();
      expect(failed(await run({ verb: 'tally.add', input: { text: 'robin', waitMs: 1300 }, idempotencyKey: key })).code).toBe('timed_out');
      await expect.poll(() => observed.writesFinished, { timeout: 3000 }).toBe(1);
      expect(succeeded(await run({ verb: 'tally.add', input: { text: 'robin', waitMs: 1300 }, idempotencyKey: key })).replayed).toBe(true);
      expect(await tallyRows(db)).toHaveLength(1);
    });

    it('never starts a write whose caller gave up while it waited for its transaction', async () => {
      const key = newKey();
      const busy = await heldConnections(db);
      const stop = new AbortController();
      const running = run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key, signal: stop.signal });
      stop.abort();
      busy.release();
      expect(failed(await running).code).toBe('cancelled');
      await busy.ended;
      expect(await tallyRows(db)).toEqual([]);
      expect(observed.writesStarted).toBe(0);
      // Nothing was recorded under its key: the same call made again runs.
      expect(succeeded(await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key })).replayed).toBe(false);
      expect(await tallyRows(db)).toHaveLength(1);
    });

    it('never starts a write whose deadline passed while it waited for its transaction', async () => {
      const key = newKey();
      const busy = await heldConnections(db);
      expect(failed(await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key })).code).toBe('timed_out');
      busy.release();
      await busy.ended;
      expect(await tallyRows(db)).toEqual([]);
      expect(observed.writesStarted).toBe(0);
      expect(succeeded(await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key })).replayed).toBe(false);
    });

  });

  describe('narrates', () => {
    it('answers at the narrators’ deadline without waiting for one that ignores its signal', async () => {
      logs = [];
      expect(await executor.narrate({ verb: 'held.read', input: {}, output: { done: true } }, caller)).toEqual([]);
      // The narrator runs on until the test lets it go: narration ended without it.
      await expect.poll(() => held.length).toBe(1);
      expect(held[0]?.signal.aborted).toBe(true);
      expect(logs).toEqual([{ event: 'narrator.failed', verb: 'held.read', error: 'VerbError' }]);
    });

  });
});
