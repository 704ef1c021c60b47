import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standInModel } from '../../../server/chat/standInModel';
import { realSleep, standInAnswer } from '../../../server/chat/standIn';
import type { Database } from '../../../server/db/database';
import { english } from '../../helpers/words';
import { shippedWords } from '../../../server/words/loadWords';
import { streamedModel } from '../../../server/runs/runModel';
import type { RunModel } from '../../../server/runs/runModel';
import { cancelOwnRun, runStatus } from '../../../server/runs/runsApi';
import { claimRun, readRun } from '../../../server/runs/runs';
import type { Run } from '../../../server/runs/types';
import type { RunEvent, Worker, WorkerOptions } from '../../../server/runs/worker';
import { writeKeyOf } from '../../../server/runs/worker';
import type { Executor } from '../../../server/verbs/executor';
import { deferred } from '../chat/localServers';
import type { Deferred } from '../chat/localServers';
import { DB_TEST_MS, OPENING_MS, somebody } from '../db/fixtures';
import { ENGINES, executorOver, listItems, start, workerOver, writesOf } from './runFixtures';

const THREE_THINGS = 'add milk to my shopping list, then add eggs to my shopping list, then add bread to my shopping list';

describe.each(ENGINES)('runs on $name', { timeout: DB_TEST_MS }, ({ open }) => {
  let db: Database;
  let executor: Executor;
  beforeAll(async () => {
    db = await open();
    executor = executorOver(db);
  }, OPENING_MS);
  afterAll(() => db.close());

  /** Each run's end as a worker of this file reports it (`run.ended`), by run id. */
  const endings = new Map<string, Deferred>();
  const endingOf = (id: string): Deferred => {
    const ending = endings.get(id) ?? deferred();
    endings.set(id, ending);
    return ending;
  };

  /** A worker over this file's database whose events go to `events` and say when a run has ended. */
  const workerNamed = (owner: string, events: RunEvent[] = [], over: Partial<WorkerOptions> = {}): Worker =>
    workerOver(db, executor, owner, events, {
      onEvent: (event) => {
        events.push(event);
        if (event.event === 'run.ended') endingOf(event.runId).resolve();
      },
      ...over,
    });

  /** The run once a worker has ended it (its ending written). */
  const ended = async (id: string): Promise<Run> => {
    await endingOf(id).promise;
    const run = await db.asServer((tx) => readRun(tx, id));
    if (run === undefined) throw new Error(`Run ${id} was ended and then is gone.`);
    return run;
  };

  it('answers a run that asks for nothing it can do with the stand-in’s own sentence', async () => {
    const ana = somebody();
    const id = await start(db, ana, 'tell me a joke');
    const worker = workerNamed('w-answers');
    await worker.poke();
    const run = await ended(id);
    await worker.stop();
    expect(run.state).toBe('finished');
    expect(run.answer).toMatch(/^I'm a stand-in/);
    const status = await runStatus(db, ana, id);
    expect(status?.steps.map((step) => step.body.kind)).toEqual(['model', 'say']);
  });

  it('answers through the stand-in model the door uses: a verb call, then its words', async () => {
    const ana = somebody();
    const model = streamedModel({ open: (messages, verbs, signal) => Promise.resolve(standInModel(messages, { reason: 'no-provider', verbs, wordMs: 0, sleep: realSleep, signal })), costOf: () => 0 });
    const id = await start(db, ana, 'add milk to my shopping list', { scripted: false });
    const worker = workerNamed('w-door-model', [], { model });
    await worker.poke();
    const run = await ended(id);
    await worker.stop();
    expect(run).toMatchObject({ state: 'finished', answer: "I've added milk to your shopping list." });
    expect(await listItems(executor, ana)).toEqual(['milk']);
  });

  it('calls the verbs its script names, one step each, and says what they came to', async () => {
    const ana = somebody();
    const id = await start(db, ana, THREE_THINGS);
    const events: RunEvent[] = [];
    const worker = workerNamed('w-verbs', events);
    await worker.poke();
    const run = await ended(id);
    await worker.stop();
    expect(run.state).toBe('finished');
    expect(run.answer).toBe("I've added milk to your shopping list. I've added eggs to your shopping list. I've added bread to your shopping list.");
    expect(await listItems(executor, ana)).toEqual(['milk', 'eggs', 'bread']);
    const status = await runStatus(db, ana, id);
    expect(status?.steps.map((step) => step.body.kind)).toEqual(['model', 'tool', 'model', 'tool', 'model', 'tool', 'model', 'say']);
    expect(status?.steps.filter((step) => step.body.kind === 'tool').map((step) => step.writeKey)).toEqual([writeKeyOf(id, 2), writeKeyOf(id, 4), writeKeyOf(id, 6)]);
    expect(events.flatMap((e) => (e.event === 'run.step' ? [e.seq] : []))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.at(-1)).toMatchObject({ event: 'run.ended', runId: id, ending: 'finished' });
  });

  it('speaks the run’s language, its bot’s when the person named none: its verbs’ sentences and its own', async () => {
    const ana = somebody();
    const german = { wordsFor: () => shippedWords().wordsIn('de'), languageFor: () => 'de' };
    const adds = await start(db, ana, 'add milk to my shopping list', { conversationKey: 'conv-de-1' });
    const joke = await start(db, ana, 'tell me a joke', { conversationKey: 'conv-de-2' });
    const worker = workerNamed('w-german', [], german);
    await worker.poke();
    const [added, answered] = await Promise.all([ended(adds), ended(joke)]);
    await worker.stop();
    expect(added).toMatchObject({ state: 'finished', language: null, answer: 'Ich habe milk auf deine Einkaufsliste gesetzt.' });
    expect(answered.answer).toBe(standInAnswer('no-provider', 'tell me a joke', shippedWords().wordsIn('de')));
  });

  it('is finished by another worker when its worker dies between steps, each write done once', async () => {
    const ana = somebody();
    const id = await start(db, ana, THREE_THINGS);
    const died = deferred();
    const first = workerNamed('w-dies', [], {
      afterStep: (_run, step) => {
        if (step.seq === 4) {
          first.kill();
          died.resolve();
        }
      },
    });
    await first.poke();
    await died.promise;
    // Once dead, a stop only waits for the work in hand to come to its end, which writes nothing more.
    await first.stop();
    expect((await runStatus(db, ana, id))?.steps).toHaveLength(4);
    const events: RunEvent[] = [];
    const second = workerNamed('w-takes-over', events);
    second.start();
    const run = await ended(id);
    await second.stop();
    expect(run.state).toBe('finished');
    expect(events[0]).toMatchObject({ event: 'run.claimed', runId: id, owner: 'w-takes-over' });
    expect(events.find((e) => e.event === 'run.step-begun')).toMatchObject({ seq: 5 });
    expect(await listItems(executor, ana)).toEqual(['milk', 'eggs', 'bread']);
    expect(await writesOf(db, ana, 'lists.add')).toBe(3);
  });

  it('writes once when its worker dies after a tool’s write and before the step is written', async () => {
    const ana = somebody();
    const id = await start(db, ana, THREE_THINGS);
    let calls = 0;
    const died = deferred();
    const dying: Executor = {
      ...executor,
      async execute(call) {
        const outcome = await executor.execute(call);
        calls += 1;
        if (calls === 2) {
          first.kill();
          died.resolve();
        }
        return outcome;
      },
    };
    const first = workerOver(db, dying, 'w-dies-mid-step', []);
    await first.poke();
    await died.promise;
    await first.stop();
    // The second add committed; its step (seq 4) was never written.
    expect((await runStatus(db, ana, id))?.steps).toHaveLength(3);
    expect(await listItems(executor, ana)).toEqual(['milk', 'eggs']);
    const second = workerNamed('w-replays');
    second.start();
    const run = await ended(id);
    await second.stop();
    expect(run.state).toBe('finished');
    expect(await listItems(executor, ana)).toEqual(['milk', 'eggs', 'bread']);
    expect(await writesOf(db, ana, 'lists.add')).toBe(3);
    expect(run.answer).toContain("I've added eggs to your shopping list.");
  });

  it('runs no tool when cancelled after the model asked for it and before it ran', async () => {
    const ana = somebody();
    const id = await start(db, ana, 'add milk to my shopping list');
    const worker = workerNamed('w-cancelled', [], {
      afterStep: async (_run, step) => {
        if (step.body.kind === 'model' && step.body.toolCalls.length > 0) expect(await cancelOwnRun(db, ana, id, Date.now())).toBe(true);
      },
    });
    await worker.poke();
    const run = await ended(id);
    await worker.stop();
    expect(run).toMatchObject({ state: 'cancelled', answer: english['runs.cancelled'] });
    const status = await runStatus(db, ana, id);
    expect(status?.steps.map((step) => step.body.kind)).toEqual(['model', 'say']);
    expect(await listItems(executor, ana)).toEqual([]);
    expect(await writesOf(db, ana, 'lists.add')).toBe(0);
    expect(await cancelOwnRun(db, ana, id, Date.now())).toBe(false);
  });

  it('stops when its steps are spent, saying so, with the writes before that done', async () => {
    const ana = somebody();
    const id = await start(db, ana, THREE_THINGS, { maxSteps: 3 });
    const worker = workerNamed('w-steps');
    await worker.poke();
    const run = await ended(id);
    await worker.stop();
    expect(run).toMatchObject({ state: 'out_of_budget', answer: english['runs.out-of-steps'] });
    expect(await listItems(executor, ana)).toEqual(['milk']);
  });

  it('stops when its money is spent, before the model is asked again', async () => {
    const ana = somebody();
    let asked = 0;
    const costly: RunModel = {
      reply: () => {
        asked += 1;
        return Promise.resolve({ model: 'paid', text: '', toolCalls: [{ id: `c${String(asked)}`, verb: 'lists.add', input: { list: 'shopping', items: [`thing ${String(asked)}`] } }], spentUsd: 0.3 });
      },
    };
    const id = await start(db, ana, 'keep adding things', { scripted: false, maxSpendUsd: 0.5 });
    const worker = workerNamed('w-money', [], { model: costly });
    await worker.poke();
    const run = await ended(id);
    await worker.stop();
    expect(run).toMatchObject({ state: 'out_of_budget', answer: english['runs.out-of-money'] });
    // The second call's tool was asked for, but the money was spent by then: it never ran.
    expect(asked).toBe(2);
    expect(await listItems(executor, ana)).toEqual(['thing 1']);
  });

  it('lets one of two workers racing for a run have it', async () => {
    const ana = somebody();
    const id = await start(db, ana, 'add milk to my shopping list');
    const nowMs = Date.now();
    const claims = await Promise.all(['w-race-a', 'w-race-b'].map((owner) => db.asServer((tx) => claimRun(tx, owner, nowMs, nowMs + 60_000))));
    const won = claims.filter((run) => run?.id === id);
    expect(won).toHaveLength(1);
    // Held: neither claims it again while the lease lasts.
    expect(await db.asServer((tx) => claimRun(tx, 'w-race-c', nowMs + 1_000, nowMs + 61_000))).toBeUndefined();
    // Lapsed: taken again, by whoever asks first.
    expect(await db.asServer((tx) => claimRun(tx, 'w-race-c', nowMs + 60_001, nowMs + 120_000))).toMatchObject({ id, leaseOwner: 'w-race-c' });
  });

  it('lets two whole workers race for one run and finish it once', async () => {
    const ana = somebody();
    const id = await start(db, ana, THREE_THINGS);
    const events: RunEvent[] = [];
    const a = workerNamed('w-whole-a', events);
    const b = workerNamed('w-whole-b', events);
    await Promise.all([a.poke(), b.poke()]);
    await ended(id);
    await Promise.all([a.stop(), b.stop()]);
    expect(events.filter((e) => e.event === 'run.claimed' && e.runId === id)).toHaveLength(1);
    expect(await writesOf(db, ana, 'lists.add')).toBe(3);
  });

  it('stops between steps on shutdown and lets go of the run, which the next worker carries on at once', async () => {
    const ana = somebody();
    const id = await start(db, ana, THREE_THINGS);
    const stopped = deferred();
    const first = workerNamed('w-shutdown', [], {
      afterStep: (_run, step) => {
        // Not awaited here: a stop waits for this very step to end.
        if (step.seq === 2) {
          void first.stop().then(() => {
            stopped.resolve();
          });
        }
      },
    });
    await first.poke();
    await stopped.promise;
    const status = await runStatus(db, ana, id);
    expect(status?.steps).toHaveLength(2);
    // Its step written, the run is nobody's: no lease to wait out.
    expect(status?.run).toMatchObject({ state: 'running', leaseOwner: 'w-shutdown', leaseUntilMs: null });
    const events: RunEvent[] = [];
    const second = workerNamed('w-after-shutdown', events);
    await second.poke();
    expect(events.filter((e) => e.event === 'run.claimed' && e.runId === id)).toMatchObject([{ owner: 'w-after-shutdown' }]);
    const run = await ended(id);
    await second.stop();
    expect(run.state).toBe('finished');
    expect(await listItems(executor, ana)).toEqual(['milk', 'eggs', 'bread']);
  });

  it('shows a person their own runs and steps only, lets them cancel and nothing else, and writes no step for them', async () => {
    const ana = somebody();
    const ben = somebody();
    const id = await start(db, ana, 'add milk to my shopping list');
    expect(await runStatus(db, ben, id)).toBeUndefined();
    expect(await cancelOwnRun(db, ben, id, Date.now())).toBe(false);
    await expect(db.asPerson(ana, (tx) => tx.query("update runs set state = 'finished' where id = $1", [id]))).rejects.toThrow();
    await expect(db.asPerson(ana, (tx) => tx.query("update runs set answer = 'done' where id = $1", [id]))).rejects.toThrow();
    await expect(db.asPerson(ana, (tx) => tx.query("insert into run_steps (run, seq, kind, body) values ($1, 1, 'say', '{}')", [id]))).rejects.toThrow();
    // They may start a run of their own (tasks.start), queued and held by nobody; nobody else's, and no other way.
    await expect(db.asPerson(ana, (tx) => tx.query("insert into runs (person, bot, asked, max_steps, max_spend_usd, max_minutes) values ($1, 'b', 'x', 1, 0, 1)", [ben]))).rejects.toThrow();
    await expect(db.asPerson(ana, (tx) => tx.query("insert into runs (person, bot, asked, max_steps, max_spend_usd, max_minutes, state) values ($1, 'b', 'x', 1, 0, 1, 'running')", [ana]))).rejects.toThrow();
    await expect(db.asPerson(ana, (tx) => tx.query("insert into runs (person, bot, asked, max_steps, max_spend_usd, max_minutes, lease_owner) values ($1, 'b', 'x', 1, 0, 1, 'w')", [ana]))).rejects.toThrow();
    await expect(db.asPerson(ana, (tx) => tx.query("insert into runs (person, bot, asked, max_steps, max_spend_usd, max_minutes) values ($1, 'b', 'x', 1, 0, 1)", [ana]))).resolves.toBeDefined();
    expect(await cancelOwnRun(db, ana, id, Date.now())).toBe(true);
    expect((await runStatus(db, ana, id))?.run.state).toBe('cancelled');
  });
});
