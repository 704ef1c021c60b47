/**
 * A local verb's handler, run in the person's own transaction (`asPerson`), where row level security
 * confines every query. Read top to bottom:
 *
 * 1. `prepare`, when the verb has one, runs first with the caller's signal and no transaction open
 *    (a network call such as an embedding keeps nobody waiting for the database);
 * 2. a read runs, and is recorded after;
 * 3. a write nobody waits for any more never starts; one whose key was recorded before replays that
 *    result (`key_reused` for the same key with another input); a `sometimes` verb is asked about
 *    here, over the rows the handler would find; then it runs, and its key and result are recorded
 *    in the same transaction as its effect, so they commit together or not at all.
 *
 * A read's handler has the caller's signal; a write's has one that never fires, as a write that has
 * started runs to completion.
 */
import type { ConfirmContext, VerbContext } from './verb';
import { VerbError } from './errors';
import { checkedOutput } from './underway';
import type { Answered, CallDeps, Running } from './underway';
import { earlierWrite, recordCall } from './verbCalls';

/** Whether the person is asked before this call runs, decided in its transaction; unset: not asked. */
export type ConfirmWhen = (input: unknown, context: ConfirmContext) => Promise<boolean>;

export async function runLocal(deps: CallDeps, running: Running, confirmWhen: ConfirmWhen | undefined): Promise<Answered> {
  const { verb, input, caller, startedMs, waiting } = running;
  const prepared = verb.prepare === undefined ? undefined : await verb.prepare(input, { ...caller, signal: waiting, nowMs: startedMs, services: deps.services });
  const handlerSignal = verb.risk === 'read' ? waiting : new AbortController().signal;
  return deps.db.asPerson(caller.person, async (tx) => {
    const context: VerbContext = {
      ...caller,
      signal: handlerSignal,
      nowMs: startedMs,
      tx,
      services: deps.services,
      ...(running.conversationKey === undefined ? {} : { conversationKey: running.conversationKey }),
      ...(prepared === undefined ? {} : { prepared }),
    };
    const recorded = { caller, verb: verb.name, input, conversationKey: running.conversationKey, atMs: startedMs };
    if (verb.risk === 'read') {
      const output = await checkedOutput(verb, await verb.run(input, context), deps.resultBytesMax);
      await recordCall(tx, { ...recorded, key: undefined, output: undefined });
      return { output, replayed: false };
    }
    // A write nobody waits for any more never starts: its caller gave up, or its deadline passed,
    // while it waited for its transaction (the caller was told so; a retry with its key runs it).
    if (waiting.aborted) throw new VerbError(running.deadline.aborted ? 'timed_out' : 'cancelled');
    const key = running.key as string;
    const earlier = await earlierWrite(tx, caller.person, verb.name, input, key);
    if (earlier !== undefined) return { output: earlier.output, replayed: true };
    // Policy that reads the person's rows; asking rolls this transaction back, so nothing is written.
    if (confirmWhen !== undefined && (await confirmWhen(input, context))) throw new VerbError('confirmation_required');
    const output = await checkedOutput(verb, await verb.run(input, context), deps.resultBytesMax);
    await recordCall(tx, { ...recorded, key, output });
    return { output, replayed: false };
  });
}
