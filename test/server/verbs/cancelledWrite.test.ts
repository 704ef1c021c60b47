/**
 * A cancelled write says what is true: a caller that stops waiting for a write is told, once the
 * write has ended, whether what was done stays done or nothing was done — in its own language.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { createExecutor } from '../../../server/verbs/executor';
import type { Executor, Outcome } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import type { Caller } from '../../../server/verbs/verb';
import { shippedWords } from '../../../server/words/loadWords';
import { say } from '../../../server/words/words';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';
import { emptyTally, observed, resetObserved, tallyRows, testApps } from '../../helpers/testApps';

const errorOf = (outcome: Outcome) => (outcome.ok ? { code: 'ok', sentence: '' } : { code: outcome.error.code, sentence: outcome.error.sentence });
const words = (language: string) => shippedWords().wordsIn(language);

describe('a cancelled write', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let executor: Executor;
  let caller: Caller;

  beforeAll(async () => {
    db = await openMemoryDatabase();
    executor = createExecutor({ registry: createRegistry(testApps), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
  }, OPENING_MS);
  afterAll(() => db.close());
  beforeEach(async () => {
    resetObserved();
    caller = { person: somebody('ana'), bot: 'demo', via: 'mcp', timeZone: 'UTC' };
    await emptyTally(db);
  });

  it('says "what was already done stays done" when the write committed after its caller stopped waiting', async () => {
    const stop = new AbortController();
    const running = executor.execute({ verb: 'tally.add', input: { text: 'robin', waitMs: 300 }, caller, idempotencyKey: `key-${randomUUID()}`, signal: stop.signal });
    await expect.poll(() => observed.writesStarted).toBe(1);
    stop.abort();
    expect(errorOf(await running)).toEqual({ code: 'cancelled', sentence: 'That was stopped, but what was already done stays done.' });
    expect(await tallyRows(db)).toEqual([{ person: caller.person, text: 'robin' }]);
  });

  it('says "before anything was done" when the write never started', async () => {
    // PGlite runs one transaction at a time: this one keeps the write waiting for its own.
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    const busy = db.asServer(() => ((holding = true), released));
    await expect.poll(() => holding).toBe(true);
    const stop = new AbortController();
    const running = executor.execute({ verb: 'tally.add', input: { text: 'robin' }, caller: { ...caller, language: 'es' }, idempotencyKey: `key-${randomUUID()}`, signal: stop.signal });
    stop.abort();
    release();
    expect(errorOf(await running)).toEqual({ code: 'cancelled', sentence: say(words('es'), 'acting.stopped-before') });
    await busy;
    expect(await tallyRows(db)).toEqual([]);
    expect(observed.writesStarted).toBe(0);
  });

  it('says "before anything was done" for a write whose caller had already stopped, in every shipped language', async () => {
    const stop = new AbortController();
    stop.abort();
    for (const language of ['en', 'es', 'fr', 'de']) {
      const outcome = await executor.execute({ verb: 'tally.add', input: { text: 'robin' }, caller: { ...caller, language }, idempotencyKey: `key-${randomUUID()}`, signal: stop.signal });
      expect(errorOf(outcome)).toEqual({ code: 'cancelled', sentence: say(words(language), 'acting.stopped-before') });
      expect(say(words(language), 'acting.stopped-before')).not.toBe(say(words(language), 'acting.stopped-done'));
    }
    expect(await tallyRows(db)).toEqual([]);
  });
});
