/**
 * A write that changes more than one thing asks first, always: the executor's risk rule, from the
 * verb's own `changesMany`, whoever calls it — tried with the shipped reminders and tasks apps
 * through the one executor on a real PGlite.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApps } from '../../../server/verbs/registry';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { createExecutor } from '../../../server/verbs/executor';
import type { Executor, Outcome } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import type { Caller } from '../../../server/verbs/verb';
import { shippedWords } from '../../../server/words/loadWords';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

const key = () => `key-${randomUUID()}`;

describe('a write that changes many things', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let executor: Executor;
  let caller: Caller;
  const code = (outcome: Outcome) => (outcome.ok ? 'ok' : outcome.error.code);

  beforeAll(async () => {
    db = await openMemoryDatabase();
    const apps = await loadApps(new URL('../../../server/apps', import.meta.url).pathname);
    executor = createExecutor({ registry: createRegistry(apps), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    caller = { person: somebody('ana'), bot: 'coach', via: 'model', timeZone: 'UTC' };
  }, OPENING_MS);

  afterAll(async () => {
    await db.close();
  });

  it('declares changesMany, with a question, on every shipped verb that can change many things at once', () => {
    const declared = executor.registry.verbs.filter((verb) => verb.changesMany !== undefined).map((verb) => verb.name);
    expect(declared.sort()).toEqual(['reminders.cancel', 'tasks.unschedule']);
    for (const name of declared) expect(executor.registry.verb(name)?.ask).toBeTypeOf('function');
  });

  it('asks before cancelling two reminders at once, and cancels one without asking', async () => {
    for (const text of ['take the tea out', 'buy tea bags', 'call mum']) {
      expect(code(await executor.execute({ verb: 'reminders.set', input: { text, inSeconds: 3600 }, caller, idempotencyKey: key() }))).toBe('ok');
    }
    const many = await executor.execute({ verb: 'reminders.cancel', input: { text: 'tea' }, caller, idempotencyKey: key() });
    expect(code(many)).toBe('confirmation_required');
    const question = await db.asPerson(caller.person, (tx) => executor.question(tx, 'reminders.cancel', { text: 'tea' }, caller, shippedWords().wordsIn('en')));
    expect(question).toBe('Shall I cancel all 2 of your reminders about tea? Say yes or no.');
    const one = await executor.execute({ verb: 'reminders.cancel', input: { text: 'mum' }, caller, idempotencyKey: key() });
    expect(one.ok && one.output).toMatchObject({ count: 1, cancelled: ['call mum'] });
  });

  it('does not ask when "every schedule" is none: changesMany counts what the call would change, in the person’s transaction', async () => {
    const none = await executor.execute({ verb: 'tasks.unschedule', input: {}, caller, idempotencyKey: key() });
    // Nothing scheduled: nothing many to stop, so nothing to ask.
    expect(none.ok && none.output).toMatchObject({ cancelled: 0 });
  });
});
