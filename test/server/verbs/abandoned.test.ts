/**
 * Handlers that will not stop cannot pile up (seed 001's `MAX_ABANDONED_TOOL_HANDLERS`): once three
 * are still running after their callers gave up on them, the executor refuses new calls
 * `overloaded`, with a sentence a person can hear, and takes calls again as soon as one ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { MAX_ABANDONED_HANDLERS, createExecutor } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import { defineApp, defineVerb } from '../../../server/verbs/verb';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase } from '../db/fixtures';

/** Handlers waiting to be let go, in the order they started; once `holding` is off, none waits. */
const held: (() => void)[] = [];
let holding = true;
/** Lets every handler go: those waiting now, and any that start later. */
const letAllGo = () => {
  holding = false;
  for (const release of held.splice(0)) release();
};

const stubborn = defineVerb({
  name: 'stubborn.wait',
  description: 'Waits until the test lets it go, whatever its signal says.',
  example: 'wait',
  input: z.object({}),
  output: z.object({ done: z.boolean() }),
  risk: 'read',
  deadlineMs: 60_000,
  run: () =>
    new Promise<{ done: boolean }>((resolve) => {
      const release = () => {
        resolve({ done: true });
      };
      if (holding) held.push(release);
      else release();
    }),
});
const quick = defineVerb({
  name: 'stubborn.quick',
  description: 'Answers at once.',
  example: 'now',
  input: z.object({}),
  output: z.object({ done: z.boolean() }),
  risk: 'read',
  deadlineMs: 60_000,
  run: () => Promise.resolve({ done: true }),
});

describe('handlers left running after their caller gave up', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(async () => {
    await db.close();
  });

  it(`refuses new calls "overloaded" once ${String(MAX_ABANDONED_HANDLERS)} are still running, and takes them again when one ends`, async () => {
    const executor = createExecutor({ registry: createRegistry([defineApp({ name: 'stubborn', description: 'Tests.', verbs: [stubborn, quick] })]), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    const caller = { person: 'ana', bot: 'buddy', via: 'mcp' as const, timeZone: 'UTC' };
    for (let i = 0; i < MAX_ABANDONED_HANDLERS; i += 1) {
      const cancel = new AbortController();
      const call = executor.execute({ verb: 'stubborn.wait', input: {}, caller, signal: cancel.signal });
      // Its caller gives up at once: its handler starts when its transaction comes (Postgres: now,
      // side by side; PGlite: after the one before it), ignores its signal, and runs on.
      cancel.abort();
      const outcome = await call;
      expect(outcome.ok || outcome.error.code).toBe('cancelled');
    }
    expect(executor.abandoned).toBe(MAX_ABANDONED_HANDLERS);
    const refused = await executor.execute({ verb: 'stubborn.quick', input: {}, caller });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe('overloaded');
    expect(refused.error.sentence).toBe('I am still finishing things that took too long, so I cannot start that now; try again in a minute.');

    // One ends: a new call is taken again.
    await expect.poll(() => held.length).toBeGreaterThan(0);
    held.shift()?.();
    await expect.poll(() => executor.abandoned).toBe(MAX_ABANDONED_HANDLERS - 1);
    const taken = executor.execute({ verb: 'stubborn.quick', input: {}, caller });
    // On PGlite the others hold the one session before it, each in turn: let them go, now and as they start.
    letAllGo();
    expect(await taken).toMatchObject({ ok: true, output: { done: true } });
  });
});
