/**
 * A remote verb's handler (an outside app's), which calls out of the server, so it never holds the
 * person's transaction while it waits on another. Read top to bottom:
 *
 * - what it may spend is admitted by the one gate (`server/gate.ts`); without a gate it reaches
 *   nothing (`effectsIn`);
 * - a read runs with the caller's signal, and is recorded after;
 * - a write claims its key first (its own transaction: a row with no result yet), then calls with its
 *   deadline's signal and its key (for an other end that honours one), then records the result
 *   (another). A call that fails lets its claim go, so a retry tries again: whether a call cut off
 *   mid-flight landed at the other end, only the other end knows.
 * - a claim already there is this write's own retry: it waits for that result and replays it. A
 *   claim older than its call could live (its deadline and `CLAIM_GRACE_MS`) was left by a process
 *   that ended mid-call: `outcome_unknown`, said, and not tried again.
 */
import type { Queryable } from '../db/queryable';
import { say } from '../words/words';
import { VerbError } from './errors';
import type { VerbContext } from './verb';
import { checkedOutput } from './underway';
import type { Answered, CallDeps, Running } from './underway';
import { earlierWrite, recordCall, recordClaimResult, recordedAtMs, releaseClaim } from './verbCalls';

/** How often a retry of a remote write still under way looks for its result, in ms. */
const CLAIM_POLL_MS = 50;
/**
 * How long past its verb's deadline a remote write's claim may still be waiting for its result
 * before it counts as left by a process that ended mid-call (its outcome unknown), in ms.
 */
export const CLAIM_GRACE_MS = 5000;

/** What a handler that calls out of the server has for a transaction: none, and it says so. */
export const NO_TRANSACTION: Queryable = {
  query: () => Promise.reject(new Error('A remote verb runs outside the person’s transaction; it cannot query the database.')),
};

export async function runRemote(deps: CallDeps, running: Running, byRun: boolean): Promise<Answered> {
  const { verb, input, caller, startedMs, waiting, deadline } = running;
  const effects = deps.gate?.effectsOf(caller, byRun);
  const context = (signal: AbortSignal): VerbContext => ({ ...caller, signal, nowMs: startedMs, tx: NO_TRANSACTION, services: deps.services, ...(effects === undefined ? {} : { effects }) });
  const recorded = { caller, verb: verb.name, input, conversationKey: running.conversationKey, atMs: startedMs };
  if (verb.risk === 'read') {
    const output = await checkedOutput(verb, await verb.run(input, context(waiting)), deps.resultBytesMax);
    await deps.db.asPerson(caller.person, (tx) => recordCall(tx, { ...recorded, key: undefined, output: undefined }));
    return { output, replayed: false };
  }
  const key = running.key as string;
  for (;;) {
    const claim = await deps.db.asPerson(caller.person, async (tx) => {
      const earlier = await earlierWrite(tx, caller.person, verb.name, input, key);
      if (earlier === undefined) {
        if (waiting.aborted) throw new VerbError(deadline.aborted ? 'timed_out' : 'cancelled');
        await recordCall(tx, { ...recorded, key, output: undefined, claimed: true });
        return { claimed: true as const };
      }
      return { claimed: false as const, output: earlier.output };
    });
    if (!claim.claimed) {
      if (claim.output !== null) return { output: claim.output, replayed: true };
      // A claim older than its call could live was left by a process that ended mid-call (a crash):
      // whether the other end did it, nobody here can tell, so it is said, and not tried again.
      const nowMs = deps.clock();
      const claimedAtMs = (await deps.db.asPerson(caller.person, (tx) => recordedAtMs(tx, key))) ?? deps.clock();
      if (nowMs - claimedAtMs > verb.deadlineMs + CLAIM_GRACE_MS) {
        throw new VerbError('outcome_unknown', ...(deps.wordsFor === undefined ? [] : [say(deps.wordsFor(caller), 'acting.outcome-unknown')]));
      }
      // The same write is under way (its first try, still waiting on the other end): wait for its result.
      await sleepUnless(CLAIM_POLL_MS, waiting);
      continue;
    }
    let output: unknown;
    try {
      // The write's key goes with it, for an other end that honours one (OpenAPI's `Idempotency-Key`).
      output = await checkedOutput(verb, await verb.run(input, { ...context(deadline), idempotencyKey: key }), deps.resultBytesMax);
    } catch (error) {
      await deps.db.asServer((tx) => releaseClaim(tx, caller.person, key));
      throw error;
    }
    await deps.db.asServer((tx) => recordClaimResult(tx, caller.person, key, output));
    return { output, replayed: false };
  }
}

/** Waits `ms`, or rejects `cancelled` as soon as `signal` aborts. */
function sleepUnless(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new VerbError('cancelled'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(new VerbError('cancelled'));
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
