/**
 * Two small real apps for the verb system's tests: `tally`, whose verbs keep their rows in the core
 * `notices` table (app `tally`) through the person's own transaction, so a commit or a rollback is
 * Postgres's own; and `chime`, with a verb that is always in scope. Between them they have every
 * kind of verb the executor must handle: a write, a read, a slow read that honours its signal, one
 * whose result breaks its schema, one whose result is too large, one that throws, a destructive verb
 * the person must confirm, and narrators that answer, throw, say nothing or take too long.
 *
 * What the handlers saw is counted in `observed`; call `resetObserved()` before each test.
 */
import { z } from 'zod';
import type { Database } from '../../server/db/database';
import type { Queryable } from '../../server/db/queryable';
import { VerbInputError } from '../../server/verbs/errors';
import { defineApp, defineVerb } from '../../server/verbs/verb';
import type { App } from '../../server/verbs/verb';

/** Words that must never reach a log line: a handler's error says them. */
export const SECRET_ERROR = 'the vault code is 7319';
/** The sentence `tally.fail` refuses with when asked to `refuse`. */
export const REFUSAL = 'Say what to count, then ask again.';
/** The question `tally.clear` asks, as its `ask` words it. */
export const CLEAR_QUESTION = 'Clear the tally?';
/** What `tally.huge` answers: over the executor's 16 KiB cap. */
export const HUGE_CHARS = 20_000;

/** What the handlers saw since the last `resetObserved()`. */
export const observed = {
  writesStarted: 0,
  writesFinished: 0,
  waitsStarted: 0,
  waitsAborted: 0,
  /** The reason the last aborted `tally.wait` was given by its signal. */
  waitAbortReason: undefined as unknown,
  clears: 0,
  slowNarratorAborted: 0,
};

export function resetObserved(): void {
  Object.assign(observed, {
    writesStarted: 0,
    writesFinished: 0,
    waitsStarted: 0,
    waitsAborted: 0,
    waitAbortReason: undefined,
    clears: 0,
    slowNarratorAborted: 0,
  });
}

const delay = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms);
  });

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function waitOrAbort(ms: number, signal: AbortSignal, onAbort: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      onAbort();
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', aborted);
      resolve();
    }, ms);
    if (signal.aborted) aborted();
    else signal.addEventListener('abort', aborted, { once: true });
  });
}

async function tallyCount(tx: Queryable): Promise<number> {
  const { rows } = await tx.query<{ n: number }>("select count(*)::int as n from notices where app = 'tally'");
  return rows[0]?.n ?? 0;
}

async function addToTally(tx: Queryable, person: string, bot: string, text: string): Promise<void> {
  await tx.query("insert into notices (person, bot, app, text, due_at) values ($1, $2, 'tally', $3, now())", [person, bot, text]);
}

export const tally = defineApp({
  name: 'tally',
  description: 'Counts things the person adds.',
  verbs: [
    defineVerb({
      name: 'tally.add',
      description: 'Adds one thing to the tally.',
      example: 'add a swallow to the tally',
      input: z.object({
        text: z.string().min(1).max(200),
        /** How long to wait before adding, in ms: a write still in progress when its caller stops waiting. */
        waitMs: z.number().int().min(0).max(5000).optional(),
      }),
      output: z.object({ added: z.string(), total: z.number().int() }),
      risk: 'write',
      deadlineMs: 1000,
      run: async ({ text, waitMs }, { tx, person, bot }) => {
        observed.writesStarted += 1;
        if (waitMs !== undefined) await delay(waitMs);
        await addToTally(tx, person, bot, text);
        const total = await tallyCount(tx);
        observed.writesFinished += 1;
        return { added: text, total };
      },
      standIn: {
        phrasings: [{ pattern: /^add (.+) to the tally$/, input: (match) => ({ text: match[1] ?? '' }) }],
        say: ({ added, total }) => `I've added ${added}; that makes ${String(total)}.`,
      },
    }),
    defineVerb({
      name: 'tally.count',
      description: 'Says how many things are on the tally.',
      example: 'how many are on the tally',
      input: z.object({}),
      output: z.object({ count: z.number().int() }),
      risk: 'read',
      deadlineMs: 1000,
      run: async (_, { tx }) => ({ count: await tallyCount(tx) }),
      standIn: {
        phrasings: [{ pattern: /^how many are on the tally$/, input: () => ({}) }],
        say: ({ count }) => `The tally is at ${String(count)}.`,
      },
    }),
    defineVerb({
      name: 'tally.wait',
      description: 'Checks the tally slowly.',
      example: 'check the tally slowly',
      input: z.object({ ms: z.number().int().min(0).max(10_000) }),
      output: z.object({ waitedMs: z.number().int() }),
      risk: 'read',
      deadlineMs: 200,
      run: async ({ ms }, { signal }) => {
        observed.waitsStarted += 1;
        await waitOrAbort(ms, signal, () => {
          observed.waitsAborted += 1;
          observed.waitAbortReason = signal.reason;
        });
        return { waitedMs: ms };
      },
    }),
    defineVerb({
      name: 'tally.broken',
      description: 'Answers in a shape its schema does not allow.',
      example: 'break the tally',
      input: z.object({}),
      output: z.object({ count: z.number().int() }),
      risk: 'read',
      deadlineMs: 1000,
      run: () => Promise.resolve({ count: 'many' } as unknown as { count: number }),
    }),
    defineVerb({
      name: 'tally.huge',
      description: 'Adds one thing and answers with far too much.',
      example: 'add everything to the tally',
      input: z.object({ text: z.string().min(1) }),
      output: z.object({ text: z.string() }),
      risk: 'write',
      deadlineMs: 1000,
      run: async ({ text }, { tx, person, bot }) => {
        await addToTally(tx, person, bot, text);
        return { text: 'x'.repeat(HUGE_CHARS) };
      },
    }),
    defineVerb({
      name: 'tally.fail',
      description: 'Adds one thing, then fails.',
      example: 'spoil the tally',
      input: z.object({ how: z.enum(['crash', 'refuse']), text: z.string().default('spoiled') }),
      output: z.object({ done: z.boolean() }),
      risk: 'write',
      deadlineMs: 1000,
      run: async ({ how, text }, { tx, person, bot }) => {
        await addToTally(tx, person, bot, text);
        if (how === 'refuse') throw new VerbInputError(REFUSAL);
        throw new Error(SECRET_ERROR);
      },
    }),
    defineVerb({
      name: 'tally.clear',
      description: 'Removes everything from the tally.',
      example: 'clear the tally',
      input: z.object({}),
      output: z.object({ removed: z.number().int() }),
      risk: 'destructive',
      confirm: true,
      ask: () => CLEAR_QUESTION,
      deadlineMs: 1000,
      run: async (_, { tx }) => {
        observed.clears += 1;
        const { rows } = await tx.query<{ id: string }>("delete from notices where app = 'tally' returning id");
        return { removed: rows.length };
      },
      standIn: {
        phrasings: [{ pattern: /^clear the tally$/, input: () => ({}) }],
        say: ({ removed }) => `The tally is clear; ${String(removed)} gone.`,
      },
    }),
  ],
  narrators: [
    {
      follows: 'tally.add',
      narrate: async (_, { tx }) => `That's ${String(await tallyCount(tx))} on the tally.`,
    },
    {
      follows: 'tally.*',
      narrate: () => Promise.reject(new Error(SECRET_ERROR)),
    },
    {
      follows: 'tally.add',
      narrate: async (_, { signal }) => {
        await waitOrAbort(5000, signal, () => {
          observed.slowNarratorAborted += 1;
        });
        return 'Too late to be heard.';
      },
    },
    {
      follows: 'tally.clear',
      narrate: () => Promise.resolve('   '),
    },
    {
      follows: 'tally.*',
      narrate: () => Promise.resolve('The tally has changed.'),
    },
  ],
});

const chime = defineApp({
  name: 'chime',
  description: 'Rings and tells the time.',
  verbs: [
    defineVerb({
      name: 'chime.now',
      description: 'Says the time now.',
      example: 'what time is it',
      input: z.object({}),
      output: z.object({ at: z.string() }),
      risk: 'read',
      always: true,
      deadlineMs: 500,
      run: (_, { nowMs }) => Promise.resolve({ at: new Date(nowMs).toISOString() }),
      standIn: {
        phrasings: [{ pattern: /\bwhat time is it\b/g, input: () => ({}) }],
        say: ({ at }) => `It is ${at}.`,
      },
    }),
    defineVerb({
      name: 'chime.ring',
      description: 'Rings the chime a few times.',
      example: 'ring the chime twice',
      input: z.object({ times: z.number().int().min(1).max(3) }),
      output: z.object({ rang: z.number().int() }),
      risk: 'read',
      deadlineMs: 500,
      run: ({ times }) => Promise.resolve({ rang: times }),
    }),
  ],
});

export const testApps: readonly App[] = [tally, chime];

/** The tally's rows over every person (the server's view), oldest first. */
export async function tallyRows(db: Database): Promise<{ person: string; text: string }[]> {
  const { rows } = await db.asServer((tx) => tx.query<{ person: string; text: string }>("select person, text from notices where app = 'tally' order by created_at, text"));
  return rows;
}

/** Empties every person's tally. */
export async function emptyTally(db: Database): Promise<void> {
  await db.asServer((tx) => tx.query("delete from notices where app = 'tally'"));
}
