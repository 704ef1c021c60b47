/**
 * A small app of the MCP tests' own, so what they assert does not move when the real apps change:
 * a read that waits (and tells the test when it started and when its signal fired), a keyed write, a write the person
 * must confirm, and an `always` read. Its writes go to the lists app's table under the list
 * `probe`, in the person's own transaction, so they are visible to whoever reads it as that person.
 */
import { z } from 'zod';
import { defineApp, defineVerb } from '../../../server/verbs/verb';

/** What the handlers saw, for the tests to read. */
export const probeSeen = {
  /** Each `probe.wait` call's signal, by the `tag` it was given. */
  waits: new Map<string, { started: boolean; aborted: boolean; reason?: unknown }>(),
  /** Calls of `probe.note` that ran their handler (not replays). */
  notesRun: 0,
};

type WaitState = 'started' | 'aborted';
const reached: { tag: string; state: WaitState; done: () => void }[] = [];

/** Resolves once the `probe.wait` call tagged `tag` has started, or had its signal fire (`aborted`); at once if it already has. */
export function probeWaitReached(tag: string, state: WaitState): Promise<void> {
  return new Promise((done) => {
    if (probeSeen.waits.get(tag)?.[state] === true) done();
    else reached.push({ tag, state, done });
  });
}

function tellReached(): void {
  for (const one of reached.filter((r) => probeSeen.waits.get(r.tag)?.[r.state] === true)) {
    reached.splice(reached.indexOf(one), 1);
    one.done();
  }
}

const wait = defineVerb({
  name: 'probe.wait',
  description: 'Waits, then says how long it waited.',
  example: 'wait a moment',
  input: z.object({ ms: z.number().int().min(0).max(20_000), tag: z.string().max(64).optional() }),
  output: z.object({ waitedMs: z.number() }),
  risk: 'read',
  deadlineMs: 30_000,
  async run(input, ctx) {
    const seen: { started: boolean; aborted: boolean; reason?: unknown } = { started: true, aborted: false };
    if (input.tag !== undefined) probeSeen.waits.set(input.tag, seen);
    tellReached();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, input.ms);
      ctx.signal.addEventListener(
        'abort',
        () => {
          seen.aborted = true;
          seen.reason = ctx.signal.reason;
          tellReached();
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    return { waitedMs: input.ms };
  },
});

const note = defineVerb({
  name: 'probe.note',
  description: 'Keeps a short note.',
  example: 'note that the door is blue',
  input: z.object({ text: z.string().min(1).max(100) }),
  output: z.object({ kept: z.string() }),
  risk: 'write',
  deadlineMs: 5000,
  async run(input, ctx) {
    probeSeen.notesRun += 1;
    await ctx.tx.query(
      `insert into list_items (person, list, item, item_key) values ($1, 'probe', $2, $3) on conflict do nothing`,
      [ctx.person, input.text, input.text.toLowerCase()],
    );
    return { kept: input.text };
  },
});

const wipe = defineVerb({
  name: 'probe.wipe',
  description: 'Forgets every note.',
  example: 'forget my notes',
  input: z.object({}),
  output: z.object({ wiped: z.number() }),
  risk: 'destructive',
  confirm: true,
  ask: () => 'Forget every note?',
  deadlineMs: 5000,
  async run(_input, ctx) {
    const { rows } = await ctx.tx.query("delete from list_items where list = 'probe' returning id");
    return { wiped: rows.length };
  },
});

const now = defineVerb({
  name: 'probe.now',
  description: 'The time, in ms since the epoch.',
  example: 'what time is it',
  input: z.object({}),
  output: z.object({ nowMs: z.number(), bot: z.string(), via: z.string() }),
  risk: 'read',
  always: true,
  deadlineMs: 1000,
  run: (_input, ctx) => Promise.resolve({ nowMs: ctx.nowMs, bot: ctx.bot, via: ctx.via }),
});

export default defineApp({ name: 'probe', description: 'What the MCP tests call.', verbs: [wait, note, wipe, now] });
