/**
 * The one executor against a real PGlite under row level security, with the test apps: each typed
 * refusal and its sentence, validation both ways, confirmation by approval only, idempotent writes
 * that commit with their key or not at all, narration, and log lines that hold no argument and no
 * result. Deadlines and callers that give up: `executorDeadlines.test.ts`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { failed, newKey, succeeded } from '../../helpers/outcomes';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { Approval } from '../../../server/verbs/approval';
import { VerbError, sentenceOf } from '../../../server/verbs/errors';
import { createExecutor } from '../../../server/verbs/executor';
import type { Call, Executor, ExecutorDeps } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import type { Caller } from '../../../server/verbs/verb';
import { digestOf } from '../../../server/verbs/verbCalls';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';
import { HUGE_CHARS, REFUSAL, SECRET_ERROR, emptyTally, observed, resetObserved, tallyRows, testApps } from '../../helpers/testApps';

const registry = createRegistry(testApps);

const callerOf = (person: string, bot = 'demo'): Caller => ({ person, bot, via: 'model', timeZone: 'UTC' });

describe('the executor', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let logs: unknown[];
  let executor: Executor;
  let person: string;
  let caller: Caller;

  const executorWith = (overrides: Partial<ExecutorDeps> = {}) =>
    createExecutor({ registry, db, services: { embedder: hashEmbedder }, clock: Date.now, log: (line) => logs.push(line), ...overrides });
  const run = (call: Omit<Call, 'caller'> & { caller?: Caller }) => executor.execute({ caller, ...call });
  const count = async (as: Caller = caller) => (succeeded(await executor.execute({ verb: 'tally.count', input: {}, caller: as })).output as { count: number }).count;

  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);

  afterAll(async () => {
    await db.close();
  });

  beforeEach(async () => {
    resetObserved();
    logs = [];
    executor = executorWith();
    person = somebody('ana');
    caller = callerOf(person);
    await emptyTally(db);
  });

  describe('refuses before anything runs', () => {
    it('refuses a verb it does not know, as unknown_verb', async () => {
      const outcome = await run({ verb: 'tally.multiply', input: {} });
      expect(failed(outcome).code).toBe('unknown_verb');
      expect(failed(outcome).sentence).toBe('I do not know how to do that.');
      expect(outcome.verb).toBeUndefined();
      expect(logs).toMatchObject([{ event: 'verb.called', verb: 'unknown', outcome: 'unknown_verb' }]);
    });

    it('refuses a verb outside the caller’s scope, as not_in_scope, and runs nothing', async () => {
      const outcome = await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: newKey(), scope: new Set(['tally.count']) });
      expect(failed(outcome).code).toBe('not_in_scope');
      expect(failed(outcome).sentence).toBe('That is not something I can do in this conversation.');
      expect(observed.writesStarted).toBe(0);
      expect(succeeded(await run({ verb: 'tally.count', input: {}, scope: new Set(['tally.count']) })).output).toEqual({ count: 0 });
    });

    it('refuses arguments its schema does not allow, naming the field and never the value', async () => {
      const typed = failed(await run({ verb: 'tally.add', input: { text: 42 }, idempotencyKey: newKey() }));
      expect(typed.code).toBe('invalid_input');
      expect(typed.sentence).toBe('That request was not quite right (text: Invalid input: expected string, received number), so nothing was done.');
      const secret = failed(await run({ verb: 'tally.add', input: { text: 'robin', waitMs: 'pin 4821' }, idempotencyKey: newKey() }));
      expect(secret.sentence).toBe('That request was not quite right (waitMs: Invalid input: expected number, received string), so nothing was done.');
      const whole = failed(await run({ verb: 'tally.add', input: 'add a robin', idempotencyKey: newKey() }));
      expect(whole.sentence).toBe('That request was not quite right (the request: Invalid input: expected object, received string), so nothing was done.');
      expect(observed.writesStarted).toBe(0);
    });

    it('refuses a change without a well-formed idempotency key, and runs nothing', async () => {
      const sentence = 'A change needs an idempotency key of 16 to 64 letters, digits, dashes or underscores.';
      for (const idempotencyKey of [undefined, 'short', 'has spaces in it, sadly', 'x'.repeat(65)]) {
        const error = failed(await run({ verb: 'tally.add', input: { text: 'robin' }, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) }));
        expect([error.code, error.sentence]).toEqual(['invalid_input', sentence]);
      }
      expect(observed.writesStarted).toBe(0);
      expect(await tallyRows(db)).toEqual([]);
    });

    it('runs a read with no key, and takes no input as an empty one', async () => {
      expect(succeeded(await run({ verb: 'tally.count', input: undefined }))).toMatchObject({ output: { count: 0 }, replayed: false });
      expect(succeeded(await run({ verb: 'tally.count', input: null })).output).toEqual({ count: 0 });
    });
  });

  describe('answers what the verb did, checked', () => {
    it('answers a write’s result and its validated input, defaults filled in', async () => {
      const outcome = succeeded(await run({ verb: 'tally.add', input: { text: 'robin', extra: 'dropped' }, idempotencyKey: newKey() }));
      expect(outcome).toMatchObject({ input: { text: 'robin' }, output: { added: 'robin', total: 1 }, replayed: false });
      expect(outcome.verb.name).toBe('tally.add');
      expect(await tallyRows(db)).toEqual([{ person, text: 'robin' }]);
    });

    it('fails a result that breaks its own schema, as execution_failed', async () => {
      const error = failed(await run({ verb: 'tally.broken', input: {} }));
      expect([error.code, error.sentence]).toEqual(['execution_failed', 'Something went wrong doing that, so it was not done.']);
    });

    it('fails a handler that throws, as execution_failed, keeping what it threw as the cause but never saying it, and rolls back its write', async () => {
      const error = failed(await run({ verb: 'tally.fail', input: { how: 'crash' }, idempotencyKey: newKey() }));
      expect(error.code).toBe('execution_failed');
      expect(error.sentence).not.toContain(SECRET_ERROR);
      expect((error.cause as Error).message).toBe(SECRET_ERROR);
      expect(await tallyRows(db)).toEqual([]);
    });

    it('answers a handler’s own refusal as invalid_input with its sentence, and rolls back its write', async () => {
      const error = failed(await run({ verb: 'tally.fail', input: { how: 'refuse' }, idempotencyKey: newKey() }));
      expect([error.code, error.sentence]).toEqual(['invalid_input', REFUSAL]);
      expect(await tallyRows(db)).toEqual([]);
    });

    it('refuses a result over 16 KiB, as output_too_large, and writes nothing', async () => {
      const key = newKey();
      const error = failed(await run({ verb: 'tally.huge', input: { text: 'everything' }, idempotencyKey: key }));
      expect(HUGE_CHARS).toBeGreaterThan(16 * 1024);
      expect([error.code, error.sentence]).toEqual(['output_too_large', 'That answer was too large to pass on.']);
      expect(await tallyRows(db)).toEqual([]);
      // Nothing was recorded under the key either: a retry runs again and is refused again.
      expect(failed(await run({ verb: 'tally.huge', input: { text: 'everything' }, idempotencyKey: key })).code).toBe('output_too_large');
    });

    it('measures the cap in UTF-8 bytes of the result as JSON', async () => {
      executor = executorWith({ resultBytesMax: '{"count":0}'.length });
      expect(succeeded(await run({ verb: 'tally.count', input: {} })).output).toEqual({ count: 0 });
      executor = executorWith({ resultBytesMax: '{"count":0}'.length - 1 });
      expect(failed(await run({ verb: 'tally.count', input: {} })).code).toBe('output_too_large');
    });
  });

  describe('runs a verb the person confirms only with their approval', () => {
    it('does not run a confirm verb without an approval: confirmation_required, with the input it would run with', async () => {
      await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: newKey() });
      const outcome = await run({ verb: 'tally.clear', input: { ignored: true }, idempotencyKey: newKey() });
      expect([failed(outcome).code, failed(outcome).sentence]).toEqual(['confirmation_required', 'That needs your yes first.']);
      expect(outcome).toMatchObject({ input: {} });
      expect(outcome.verb?.name).toBe('tally.clear');
      expect(observed.clears).toBe(0);
      expect(await tallyRows(db)).toHaveLength(1);
    });

    it('runs it once with an approval, and refuses a second call with the same approval', async () => {
      await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: newKey() });
      const approval = Approval.issue(randomUUID(), 'tally.clear');
      expect(succeeded(await run({ verb: 'tally.clear', input: {}, approval, idempotencyKey: newKey() })).output).toEqual({ removed: 1 });
      expect(failed(await run({ verb: 'tally.clear', input: {}, approval, idempotencyKey: newKey() })).code).toBe('confirmation_required');
      expect(observed.clears).toBe(1);
    });

    it('refuses an approval given for another verb', async () => {
      const approval = Approval.issue(randomUUID(), 'tally.add');
      expect(failed(await run({ verb: 'tally.clear', input: {}, approval, idempotencyKey: newKey() })).code).toBe('confirmation_required');
      expect(observed.clears).toBe(0);
    });

    it('refuses anything shaped like an approval that the confirmation route did not issue', async () => {
      const issued = Approval.issue(randomUUID(), 'tally.clear');
      const copied = JSON.parse(JSON.stringify(issued)) as Approval;
      const forged = Object.assign(Object.create(Approval.prototype) as Approval, { actionId: issued.actionId, verb: 'tally.clear' });
      for (const approval of [copied, forged]) {
        expect(failed(await run({ verb: 'tally.clear', input: {}, approval, idempotencyKey: newKey() })).code).toBe('confirmation_required');
      }
      expect(observed.clears).toBe(0);
    });
  });

  describe('makes writes idempotent', () => {
    it('replays a retried write with the same key: the first result, replayed, one row', async () => {
      const key = newKey();
      const first = succeeded(await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key }));
      const again = succeeded(await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key }));
      expect(first).toMatchObject({ output: { added: 'robin', total: 1 }, replayed: false });
      expect(again).toMatchObject({ output: { added: 'robin', total: 1 }, replayed: true });
      expect(observed.writesStarted).toBe(1);
      expect(await tallyRows(db)).toHaveLength(1);
      expect(logs).toMatchObject([{ outcome: 'ok' }, { outcome: 'ok', replayed: true }]);
      expect(logs[0]).not.toHaveProperty('replayed');
    });

    it('replays the same input whatever the order of its fields', async () => {
      const key = newKey();
      await run({ verb: 'tally.add', input: { text: 'robin', waitMs: 0 }, idempotencyKey: key });
      expect(succeeded(await run({ verb: 'tally.add', input: { waitMs: 0, text: 'robin' }, idempotencyKey: key })).replayed).toBe(true);
      expect(digestOf('tally.add', { a: 1, b: [1, { c: 2, d: 3 }] })).toBe(digestOf('tally.add', { b: [1, { d: 3, c: 2 }], a: 1 }));
      expect(digestOf('tally.add', { a: 1 })).not.toBe(digestOf('tally.huge', { a: 1 }));
    });

    it('refuses the same key with another input, or for another verb, as key_reused, and changes nothing', async () => {
      const key = newKey();
      await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key });
      const other = failed(await run({ verb: 'tally.add', input: { text: 'wren' }, idempotencyKey: key }));
      expect([other.code, other.sentence]).toEqual(['key_reused', 'That idempotency key was already used for a different request; use a new key for a new request.']);
      expect(failed(await run({ verb: 'tally.huge', input: { text: 'robin' }, idempotencyKey: key })).code).toBe('key_reused');
      expect(await tallyRows(db)).toEqual([{ person, text: 'robin' }]);
    });

    it('has one effect for two calls with the same key at once: one runs, the other replays it', async () => {
      // PGlite runs one transaction at a time; over Postgres the executor's per-key advisory lock
      // makes the second wait for the first and replay it (checked by hand on Postgres 15).
      const key = newKey();
      const outcomes = await Promise.all([1, 2].map(() => run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key })));
      expect(outcomes.map((o) => succeeded(o).replayed).sort()).toEqual([false, true]);
      expect(outcomes.map((o) => succeeded(o).output)).toEqual([
        { added: 'robin', total: 1 },
        { added: 'robin', total: 1 },
      ]);
      expect(observed.writesStarted).toBe(1);
      expect(await tallyRows(db)).toHaveLength(1);
    });

    it('records nothing for a write that failed, so its key can be tried again', async () => {
      const key = newKey();
      expect(failed(await run({ verb: 'tally.fail', input: { how: 'crash' }, idempotencyKey: key })).code).toBe('execution_failed');
      expect(failed(await run({ verb: 'tally.fail', input: { how: 'crash' }, idempotencyKey: key })).code).toBe('execution_failed');
      expect(await tallyRows(db)).toEqual([]);
    });
  });

  describe('keeps each person to their own rows', () => {
    it('lets no call see or replay another person’s rows, even under the same key', async () => {
      const ben = callerOf(somebody('ben'));
      const key = newKey();
      await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key });
      expect(await count(ben)).toBe(0);
      const bens = succeeded(await executor.execute({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: key, caller: ben }));
      expect(bens).toMatchObject({ output: { added: 'robin', total: 1 }, replayed: false });
      expect(await count(caller)).toBe(1);
      expect(await count(ben)).toBe(1);
      expect((await tallyRows(db)).map((r) => r.person).sort()).toEqual([person, ben.person].sort());
    });

    it('clears only the approving person’s rows', async () => {
      const ben = callerOf(somebody('ben'));
      await executor.execute({ verb: 'tally.add', input: { text: 'wren' }, idempotencyKey: newKey(), caller: ben });
      await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: newKey() });
      const cleared = await run({ verb: 'tally.clear', input: {}, approval: Approval.issue(randomUUID(), 'tally.clear'), idempotencyKey: newKey() });
      expect(succeeded(cleared).output).toEqual({ removed: 1 });
      expect(await tallyRows(db)).toEqual([{ person: ben.person, text: 'wren' }]);
    });
  });

  describe('logs', () => {
    it('one line per call, with its verb, door, outcome and time, and never an argument, a result, a key or what was thrown', async () => {
      const secretText = 'pin 4821 for the blue door';
      const secretKey = `secret-key-${randomUUID()}`;
      const calls: Call[] = [
        { verb: 'tally.add', input: { text: secretText }, idempotencyKey: secretKey, caller },
        { verb: 'tally.add', input: { text: secretText }, idempotencyKey: secretKey, caller },
        { verb: 'tally.add', input: { text: 'wren' }, idempotencyKey: secretKey, caller },
        { verb: 'tally.add', input: { text: 'robin', waitMs: secretText }, idempotencyKey: newKey(), caller },
        { verb: 'tally.fail', input: { how: 'crash', text: secretText }, idempotencyKey: newKey(), caller },
        { verb: 'tally.huge', input: { text: secretText }, idempotencyKey: newKey(), caller },
        { verb: 'tally.count', input: {}, caller: { ...caller, via: 'mcp' } },
        { verb: `tally.${secretText}`, input: {}, caller },
      ];
      for (const call of calls) await executor.execute(call);
      expect(logs).toHaveLength(calls.length);
      expect(logs.map((line) => (line as { outcome: string }).outcome)).toEqual([
        'ok',
        'ok',
        'key_reused',
        'invalid_input',
        'execution_failed',
        'output_too_large',
        'ok',
        'unknown_verb',
      ]);
      for (const line of logs) {
        expect(Object.keys(line as object).every((field) => ['event', 'verb', 'via', 'outcome', 'replayed', 'ms'].includes(field))).toBe(true);
        expect(line).toMatchObject({ event: 'verb.called', ms: expect.any(Number) as number });
      }
      expect(logs[6]).toMatchObject({ verb: 'tally.count', via: 'mcp' });
      const written = JSON.stringify(logs);
      for (const secret of [secretText, '4821', secretKey, SECRET_ERROR, 'robin', 'wren', 'xxxx', person]) expect(written).not.toContain(secret);
    });
  });

  describe('narrates', () => {
    it('says the narrators’ sentences in order, dropping one that throws and one too slow', async () => {
      const added = succeeded(await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: newKey() }));
      logs = [];
      const said = await executor.narrate({ verb: 'tally.add', input: added.input, output: added.output }, caller);
      expect(said).toEqual(["That's 1 on the tally.", 'The tally has changed.']);
      // The slow one's 5000 ms wait was cut short by its deadline, not waited out.
      expect(observed.slowNarratorAborted).toBe(1);
      expect(logs).toEqual([
        { event: 'narrator.failed', verb: 'tally.add', error: 'Error' },
        { event: 'narrator.failed', verb: 'tally.add', error: 'VerbError' },
      ]);
      expect(JSON.stringify(logs)).not.toContain(SECRET_ERROR);
    });

    it('drops a blank sentence, and says nothing for a verb no narrator follows', async () => {
      expect(await executor.narrate({ verb: 'tally.clear', input: {}, output: { removed: 0 } }, caller)).toEqual(['The tally has changed.']);
      logs = [];
      expect(await executor.narrate({ verb: 'chime.now', input: {}, output: { at: '' } }, caller)).toEqual([]);
      expect(logs).toEqual([]);
    });

    it('says nothing once the caller has gone', async () => {
      const gone = new AbortController();
      gone.abort();
      expect(await executor.narrate({ verb: 'tally.clear', input: {}, output: { removed: 0 } }, caller, gone.signal)).toEqual([]);
    });

    it('narrates as the caller, under row level security', async () => {
      await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: newKey() });
      const ben = callerOf(somebody('ben'));
      expect((await executor.narrate({ verb: 'tally.add', input: {}, output: {} }, ben))[0]).toBe("That's 0 on the tally.");
    });
  });

  describe('recentApps', () => {
    it('answers the apps used in a conversation, most recent first, for that person and bot only', async () => {
      await run({ verb: 'tally.count', input: {}, conversationKey: 'c1' });
      await run({ verb: 'chime.ring', input: { times: 1 }, conversationKey: 'c1' });
      await run({ verb: 'tally.add', input: { text: 'robin' }, idempotencyKey: newKey(), conversationKey: 'c1' });
      await run({ verb: 'chime.ring', input: { times: 2 }, conversationKey: 'c2' });
      expect(await executor.recentApps(caller, 'c1')).toEqual(['tally', 'chime']);
      expect(await executor.recentApps(caller, 'c2')).toEqual(['chime']);
      expect(await executor.recentApps(caller, 'c3')).toEqual([]);
      expect(await executor.recentApps(caller, undefined)).toEqual([]);
      expect(await executor.recentApps(caller, '')).toEqual([]);
      expect(await executor.recentApps(callerOf(person, 'other-bot'), 'c1')).toEqual([]);
      expect(await executor.recentApps(callerOf(somebody('ben')), 'c1')).toEqual([]);
    });

    it('counts only calls that succeeded', async () => {
      await run({ verb: 'tally.broken', input: {}, conversationKey: 'c1' });
      await run({ verb: 'tally.fail', input: { how: 'crash' }, idempotencyKey: newKey(), conversationKey: 'c1' });
      expect(await executor.recentApps(caller, 'c1')).toEqual([]);
    });
  });

  it('has a sentence for every refusal that quotes nothing', () => {
    expect(new VerbError('rate_limited').sentence).toBe(sentenceOf('rate_limited'));
    expect(new VerbError('server_busy').message).toBe(sentenceOf('server_busy'));
  });
});
