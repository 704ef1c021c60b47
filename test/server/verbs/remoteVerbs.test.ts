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
import { hashEmbedder } from '../../../server/memory/embed';
import { createExecutor } from '../../../server/verbs/executor';
import type { Executor, Outcome } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import type { App, Caller, Verb, VerbContext } from '../../../server/verbs/verb';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

/** The other end: what it was asked, and when each call is let answer. */
const far = { calls: [] as string[], release: [] as (() => void)[], aborted: 0, fail: false };

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
          reject(new Error('aborted'));
        });
      });
      if (far.fail) throw new Error('the far end said no');
      return { said: `${name}: ${text}` };
    },
  };
}

const farApp: App = { name: 'far', description: 'A far end.', verbs: [remoteVerb('look', 'read'), remoteVerb('send', 'write'), remoteVerb('slow', 'write', 100)] };

function answered(outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`Expected success, got ${outcome.error.code}.`);
  return outcome.output;
}

/** Lets every call waiting at the far end answer, once each has arrived. */
async function releaseAll(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (const release of far.release.splice(0)) release();
}

describe('remote verbs in the executor', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let executor: Executor;
  let caller: Caller;

  beforeAll(async () => {
    db = await openMemoryDatabase();
    executor = createExecutor({ registry: createRegistry([farApp]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
  }, OPENING_MS);

  afterAll(async () => {
    await db.close();
  });

  beforeEach(() => {
    Object.assign(far, { calls: [], release: [], aborted: 0, fail: false });
    caller = { person: somebody('ana'), bot: 'demo', via: 'model', timeZone: 'UTC' };
  });

  it('holds no transaction while the far end answers: another query runs meanwhile', async () => {
    const call = executor.execute({ verb: 'far.send', input: { text: 'milk' }, caller, idempotencyKey: `key-${randomUUID()}` });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(far.calls).toEqual(['send milk']);
    // On PGlite one transaction waits for the one before it: a call held open would block this.
    const { rows } = await db.asPerson(caller.person, (tx) => tx.query<{ n: number }>('select count(*)::int as n from verb_calls'));
    expect(rows[0]?.n).toBe(1);
    await releaseAll();
    expect(answered(await call)).toEqual({ said: 'send: milk' });
  });

  it('answers a retried write from its record, never calling the far end twice, even while the first is under way', async () => {
    const key = `key-${randomUUID()}`;
    const first = executor.execute({ verb: 'far.send', input: { text: 'eggs' }, caller, idempotencyKey: key });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const retry = executor.execute({ verb: 'far.send', input: { text: 'eggs' }, caller, idempotencyKey: key });
    await releaseAll();
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
    await releaseAll();
    expect((await first).ok).toBe(false);
    far.fail = false;
    const retry = executor.execute({ verb: 'far.send', input: { text: 'tea' }, caller, idempotencyKey: key });
    await releaseAll();
    expect(answered(await retry)).toEqual({ said: 'send: tea' });
    expect(far.calls).toEqual(['send tea', 'send tea']);
  });

  it('cancels a write at its deadline, telling the far end, and a read when its caller gives up', async () => {
    const slow = await executor.execute({ verb: 'far.slow', input: { text: 'bread' }, caller, idempotencyKey: `key-${randomUUID()}` });
    expect(!slow.ok && slow.error.code).toBe('timed_out');
    const giveUp = new AbortController();
    const look = executor.execute({ verb: 'far.look', input: { text: 'list' }, caller, signal: giveUp.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    giveUp.abort();
    const outcome = await look;
    expect(!outcome.ok && outcome.error.code).toBe('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(far.aborted).toBe(2);
  });

  it('refuses a remote handler the person’s transaction', async () => {
    const sneaky: Verb = { ...remoteVerb('sneak', 'read'), name: 'far.sneak', run: (_input, context) => context.tx.query('select 1').then(() => ({ said: 'read the database' })) };
    const withSneak = createExecutor({ registry: createRegistry([{ ...farApp, verbs: [sneaky] }]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    const outcome = await withSneak.execute({ verb: 'far.sneak', input: { text: 'x' }, caller });
    expect(!outcome.ok && outcome.error.code).toBe('execution_failed');
  });
});
