/**
 * The executor with `remote` verbs (an outside app's, which call out of the server), against a real
 * PGlite: a remote call never holds the person's transaction while the other end answers; a retried
 * write gets the recorded result, never a second call, even while the first is still under way; a
 * failed write lets its claim go; a write is cancelled at its deadline and the other end is told.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../../../server/db/database';
import type { Queryable } from '../../../server/db/queryable';
import { hashEmbedder } from '../../../server/memory/embed';
import { createExecutor } from '../../../server/verbs/executor';
import type { Executor, Outcome } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import type { App, Caller, Verb, VerbContext } from '../../../server/verbs/verb';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

/** The other end: what it was asked, and when each call is let answer. */
const far = { calls: [] as string[], release: [] as (() => void)[], aborted: 0, fail: false, heard: [] as (() => void)[] };

/** Tells whoever waits on the far end that it heard something: a call, or a call's abort. */
function farHeard(): void {
  for (const listener of far.heard.splice(0)) listener();
}

/** Resolves once `holds` is true of the far end, checked each time it hears something. */
function whenFar(holds: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (holds()) resolve();
      else far.heard.push(check);
    };
    check();
  });
}

function remoteVerb(name: string, risk: Verb['risk'], deadlineMs = 2000): Verb {
  return {
    name: `far.${name}`,
    description: `The far end's ${name}.`,
    example: name,
    input: z.object({ text: z.string().describe('What to send.') }),
    output: z.object({ said: z.string().describe('What came back.') }),
    risk,
    deadlineMs,
    remote: true,
    run: async (input, context: VerbContext) => {
      const { text } = input as { text: string };
      far.calls.push(`${name} ${text}`);
      await new Promise<void>((resolve, reject) => {
        far.release.push(resolve);
        context.signal.addEventListener('abort', () => {
          far.aborted += 1;
          farHeard();
          reject(new Error('aborted'));
        });
        farHeard();
      });
      if (far.fail) throw new Error('the far end said no');
      return { said: `${name}: ${text}` };
    },
  };
}

const farApp: App = { name: 'far', description: 'A far end.', verbs: [remoteVerb('look', 'read'), remoteVerb('send', 'write'), remoteVerb('slow', 'write', 100)] };

/** `db` as the executor sees it, telling the test once a statement it waits for has run in a person's transaction. */
function watched(db: Database): { db: Database; asked: (statement: RegExp) => Promise<void> } {
  const waiting: { statement: RegExp; done: () => void }[] = [];
  const ran = (sql: string) => {
    for (const one of waiting.filter((w) => w.statement.test(sql))) {
      waiting.splice(waiting.indexOf(one), 1);
      one.done();
    }
  };
  const watching = (tx: Queryable): Queryable => ({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- Queryable.query's own shape
    async query<R>(sql: string, params?: unknown[]) {
      const result = await tx.query<R>(sql, params);
      ran(sql);
      return result;
    },
  });
  return {
    db: { ...db, asPerson: (person, fn) => db.asPerson(person, (tx) => fn(watching(tx))) },
    asked: (statement) => new Promise((done) => waiting.push({ statement, done })),
  };
}

function answered(outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`Expected success, got ${outcome.error.code}.`);
  return outcome.output;
}

/** Lets the calls waiting at the far end answer, once `count` of them are there. */
async function release(count = 1): Promise<void> {
  await whenFar(() => far.release.length >= count);
  for (const answer of far.release.splice(0)) answer();
}

describe('remote verbs in the executor', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let watchedDb: ReturnType<typeof watched>;
  let executor: Executor;
  let caller: Caller;

  beforeAll(async () => {
    db = await openMemoryDatabase();
    watchedDb = watched(db);
    executor = createExecutor({ registry: createRegistry([farApp]), db: watchedDb.db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
  }, OPENING_MS);

  afterAll(async () => {
    await db.close();
  });

  beforeEach(() => {
    Object.assign(far, { calls: [], release: [], aborted: 0, fail: false, heard: [] });
    caller = { person: somebody('ana'), bot: 'demo', via: 'model', timeZone: 'UTC' };
  });

  it('holds no transaction while the far end answers: another query runs meanwhile', async () => {
    const call = executor.execute({ verb: 'far.send', input: { text: 'milk' }, caller, idempotencyKey: `key-${randomUUID()}` });
    await whenFar(() => far.calls.length === 1);
    expect(far.calls).toEqual(['send milk']);
    // On PGlite one transaction waits for the one before it: a call held open would block this.
    const { rows } = await db.asPerson(caller.person, (tx) => tx.query<{ n: number }>('select count(*)::int as n from verb_calls'));
    expect(rows[0]?.n).toBe(1);
    await release();
    expect(answered(await call)).toEqual({ said: 'send: milk' });
  });

  it('answers a retried write from its record, never calling the far end twice, even while the first is under way', async () => {
    const key = `key-${randomUUID()}`;
    const first = executor.execute({ verb: 'far.send', input: { text: 'eggs' }, caller, idempotencyKey: key });
    await whenFar(() => far.calls.length === 1);
    // A retry that finds the first's claim with no result yet looks up when the claim was made.
    const foundUnderWay = watchedDb.asked(/select created_at from verb_calls/);
    const retry = executor.execute({ verb: 'far.send', input: { text: 'eggs' }, caller, idempotencyKey: key });
    await foundUnderWay;
    await release();
    const [a, b] = await Promise.all([first, retry]);
    expect(answered(a)).toEqual({ said: 'send: eggs' });
    expect(answered(b)).toEqual({ said: 'send: eggs' });
    expect(b.ok && b.replayed).toBe(true);
    const later = await executor.execute({ verb: 'far.send', input: { text: 'eggs' }, caller, idempotencyKey: key });
    expect(later.ok && later.replayed).toBe(true);
    expect(far.calls).toEqual(['send eggs']);
  });

  it('lets a failed write’s claim go, so the retry calls again', async () => {
    const key = `key-${randomUUID()}`;
    far.fail = true;
    const first = executor.execute({ verb: 'far.send', input: { text: 'tea' }, caller, idempotencyKey: key });
    await release();
    expect((await first).ok).toBe(false);
    far.fail = false;
    const retry = executor.execute({ verb: 'far.send', input: { text: 'tea' }, caller, idempotencyKey: key });
    await release();
    expect(answered(await retry)).toEqual({ said: 'send: tea' });
    expect(far.calls).toEqual(['send tea', 'send tea']);
  });

  it('cancels a write at its deadline, telling the far end, and a read when its caller gives up', async () => {
    const slow = await executor.execute({ verb: 'far.slow', input: { text: 'bread' }, caller, idempotencyKey: `key-${randomUUID()}` });
    expect(!slow.ok && slow.error.code).toBe('timed_out');
    const giveUp = new AbortController();
    const look = executor.execute({ verb: 'far.look', input: { text: 'list' }, caller, signal: giveUp.signal });
    await whenFar(() => far.calls.includes('look list'));
    giveUp.abort();
    const outcome = await look;
    expect(!outcome.ok && outcome.error.code).toBe('cancelled');
    await whenFar(() => far.aborted === 2);
    expect(far.calls).toEqual(['slow bread', 'look list']);
  });

  it('refuses a remote handler the person’s transaction', async () => {
    const sneaky: Verb = { ...remoteVerb('sneak', 'read'), name: 'far.sneak', run: (_input, context) => context.tx.query('select 1').then(() => ({ said: 'read the database' })) };
    const withSneak = createExecutor({ registry: createRegistry([{ ...farApp, verbs: [sneaky] }]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    const outcome = await withSneak.execute({ verb: 'far.sneak', input: { text: 'x' }, caller });
    expect(!outcome.ok && outcome.error.code).toBe('execution_failed');
  });
});
