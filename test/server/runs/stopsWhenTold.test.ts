/**
 * Runs that stop when told, on an injected clock: a run's model step given up when its provider
 * goes silent for the door's idle time, and aborted (its request's signal too) within a second of a
 * cancel or at its `maxMinutes`; a restarted instance taking back at once the runs its previous
 * process held, while another instance waits out the lease.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import { RunModelStalled, streamedModel } from '../../../server/runs/runModel';
import type { RunModel } from '../../../server/runs/runModel';
import { cancelOwnRun } from '../../../server/runs/runsApi';
import { readRun } from '../../../server/runs/runs';
import type { Run } from '../../../server/runs/types';
import type { RunEvent, Worker } from '../../../server/runs/worker';
import { manualClock } from '../../helpers/manualClock';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';
import { ended, executorOver, start, workerOver } from './runFixtures';

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
const RUN = { id: 'r1', asked: 'plan my week' } as Run;

/** A provider that never says anything: its stream waits until its request's signal is aborted. */
function silentOpen(seen: { signal?: AbortSignal }) {
  return (_messages: unknown, _verbs: unknown, signal: AbortSignal) => {
    seen.signal = signal;
    const events = (async function* () {
      await new Promise((_resolve, reject) => {
        signal.addEventListener('abort', () => { reject(new Error('aborted')); });
      });
      yield { type: 'delta' as const, text: 'never' };
    })();
    return Promise.resolve({ model: 'silent', events } as never);
  };
}

describe('a run’s model step', () => {
  it('is given up after the door’s idle time of silence, and its request aborted', async () => {
    const clock = manualClock(flush);
    const seen: { signal?: AbortSignal } = {};
    const model = streamedModel({ open: silentOpen(seen), costOf: () => 0, idleMs: 20_000, after: (ms: number, run: () => void) => clock.after(ms, run) });
    const reply = model.reply(RUN, [], [], new AbortController().signal);
    const outcome = reply.then(() => 'answered', (error: unknown) => error);
    // The request is open and its stream awaited, all at the clock's start.
    await flush();
    await clock.advance(19_999);
    expect(seen.signal?.aborted).toBe(false);
    await clock.advance(1);
    expect(await outcome).toBeInstanceOf(RunModelStalled);
    expect(seen.signal?.aborted).toBe(true);
  });

  it('stops at once when its step’s signal is aborted, with no time passing', async () => {
    const clock = manualClock(flush);
    const seen: { signal?: AbortSignal } = {};
    const model = streamedModel({ open: silentOpen(seen), costOf: () => 0, idleMs: 20_000, after: (ms: number, run: () => void) => clock.after(ms, run) });
    const step = new AbortController();
    const outcome = model.reply(RUN, [], [], step.signal).then(() => 'answered', (error: unknown) => error);
    await flush();
    step.abort(new Error('cancelled'));
    expect(await outcome).toMatchObject({ message: 'cancelled' });
    expect(seen.signal?.aborted).toBe(true);
    expect(clock.timers).toBe(0);
  });
});

describe('a worker holding a model step', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(async () => {
    await db.close();
  });

  /** A model that says nothing until its signal is aborted; `called` resolves when it is asked. */
  function stallingModel() {
    const state: { signal?: AbortSignal; called?: () => void } = {};
    const called = new Promise<void>((resolve) => {
      state.called = resolve;
    });
    const model: RunModel = {
      reply: (_run, _steps, _verbs, signal) => {
        state.signal = signal;
        state.called?.();
        return new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => { reject(signal.reason as Error); });
        });
      },
    };
    return { model, called, state };
  }

  it('aborts the model step within a second of the person’s cancel, and the run ends cancelled', async () => {
    const clock = manualClock(flush);
    const { model, called, state } = stallingModel();
    const worker = workerOver(db, executorOver(db), 'w-cancel', [], { model, clock: () => clock.nowMs(), after: (ms: number, run: () => void) => clock.after(ms, run), watchMs: 500 });
    const ana = somebody();
    const id = await start(db, ana, 'plan my week', { scripted: false });
    await worker.poke();
    await called;
    expect(await cancelOwnRun(db, ana, id, Date.now())).toBe(true);
    await clock.advance(500);
    await expect.poll(() => state.signal?.aborted).toBe(true);
    const run = await ended(db, id);
    expect(run.state).toBe('cancelled');
    expect(run.answer).toBe('I stopped that, as you asked.');
    await worker.stop();
  });

  it('aborts the model step at the run’s maxMinutes, and the run ends out of time', async () => {
    const clock = manualClock(flush);
    const { model, called, state } = stallingModel();
    const worker = workerOver(db, executorOver(db), 'w-time', [], { model, clock: () => clock.nowMs(), after: (ms: number, run: () => void) => clock.after(ms, run), watchMs: 120_000 });
    const ben = somebody();
    const id = await start(db, ben, 'plan my week', { scripted: false, maxMinutes: 1 });
    await worker.poke();
    await called;
    await clock.advance(59_999);
    expect(state.signal?.aborted).toBe(false);
    await clock.advance(1);
    expect(state.signal?.aborted).toBe(true);
    const run = await ended(db, id);
    expect(run).toMatchObject({ state: 'out_of_budget', answer: 'I had to stop there: that was taking longer than I was allowed to spend on it.' });
    await worker.stop();
  });
});

describe('a restarted instance', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(async () => {
    await db.close();
  });

  it('takes back at once the runs its previous process held, while another instance waits for their lease', async () => {
    const executor = executorOver(db);
    const lease = { leaseMs: 10 * 60_000 };
    const dying: { worker?: Worker } = {};
    const first = workerOver(db, executor, 'process-1', [], {
      ...lease,
      instance: 'instance-aaaa',
      afterStep: () => {
        // The process dies after its first step: its lease has minutes left.
        dying.worker?.kill();
      },
    });
    dying.worker = first;
    const cy = somebody();
    const id = await start(db, cy, 'add milk to my shopping list then add eggs to my shopping list');
    await first.poke();
    await expect.poll(async () => (await db.asServer((tx) => readRun(tx, id)))?.leaseOwner).toBe('instance-aaaa:process-1');

    const otherEvents: RunEvent[] = [];
    const other = workerOver(db, executor, 'process-9', otherEvents, { ...lease, instance: 'instance-bbbb' });
    await other.poke();
    expect(otherEvents).toEqual([]);
    expect((await db.asServer((tx) => readRun(tx, id)))?.leaseOwner).toBe('instance-aaaa:process-1');
    await other.stop();

    const againEvents: RunEvent[] = [];
    const again = workerOver(db, executor, 'process-2', againEvents, { ...lease, instance: 'instance-aaaa' });
    await again.poke();
    expect(againEvents[0]).toMatchObject({ event: 'run.claimed', runId: id, owner: 'instance-aaaa:process-2' });
    const run = await ended(db, id);
    expect(run.state).toBe('finished');
    await again.stop();
  });
});
