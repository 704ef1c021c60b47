/**
 * A verb call under way, as the executor's two ways of running a handler share it — in the person's
 * transaction (`localCall.ts`) and out of the server (`remoteCall.ts`): the deadline it runs under,
 * the race between its work and its caller giving up, and the checks on what its handler answered.
 */
import type { Database } from '../db/database';
import { shippedWords } from '../words/loadWords';
import { say } from '../words/words';
import type { Words } from '../words/words';
import { VerbError, VerbInputError } from './errors';
import type { AppServices, Caller, CallerEffects, Ran, Verb } from './verb';

/** One call past the executor's checks, on its way to its handler. */
export interface Running {
  verb: Verb;
  /** Validated by the verb's schema. */
  input: unknown;
  caller: Caller;
  /** The page's key for the conversation, recorded with the call. */
  conversationKey: string | undefined;
  /** A write's idempotency key, checked well-formed; unset for a read. */
  key: string | undefined;
  /** When the call started, in ms since the epoch (the executor's clock): the handler's `nowMs`, and the record's time. */
  startedMs: number;
  /** Aborted at the deadline or when the caller gives up. */
  waiting: AbortSignal;
  /** Aborted at the deadline only. */
  deadline: AbortSignal;
}

/** What a handler's run came to: its checked result, and whether it is an earlier call's, replayed. */
export interface Answered {
  output: unknown;
  replayed: boolean;
}

/** What admits a handler's outside calls: the one gate (`server/gate.ts`), as the executor sees it. */
export interface EffectsGate {
  /** What a handler acting for `caller` may spend (`VerbContext.effects`); `byRun`: for a run's step, nobody waiting. */
  effectsOf(caller: Caller, byRun: boolean): CallerEffects;
}

/** What both ways of running a handler use of the executor's deps. */
export interface CallDeps {
  db: Database;
  services: AppServices;
  /** Now, in ms since the epoch. */
  clock: () => number;
  /** Largest result of one call, as UTF-8 JSON, in bytes. */
  resultBytesMax: number;
  /** The one gate, which admits every outside call a remote verb makes; unset, remote verbs reach nothing. */
  gate?: EffectsGate;
  /** The words of a caller's bot in their language, for what the executor says itself; default: English. */
  wordsFor?: (caller: Caller) => Words;
}

/** Told of each write that committed (not a replay), once it has: `late` when its caller had stopped waiting. */
export type OnWritten = (written: { ran: Ran; caller: Caller; late: boolean }) => void;

export interface Deadlines {
  /** Handlers still running whose caller was told they timed out or were cancelled. */
  readonly abandoned: number;
  /**
   * Starts `work` under `verb`'s deadline and the caller's `signal`, and answers its result, or the
   * deadline's or the caller's giving up, whichever comes first. A read's handler sees both through
   * its signal; a write's sees neither once it has started, and commits (with its key) even after
   * the caller has stopped waiting.
   */
  race(verb: Verb, input: unknown, caller: Caller, signal: AbortSignal | undefined, work: (waiting: AbortSignal, deadline: AbortSignal) => Promise<Answered>): Promise<Answered>;
}

export function createDeadlines(onWritten: OnWritten | undefined): Deadlines {
  let abandoned = 0;
  /** The caller stops waiting for `work` while it still runs: it counts in `abandoned` until it ends. */
  const abandon = (work: Promise<unknown>) => {
    abandoned += 1;
    void work.then(() => undefined, () => undefined).finally(() => {
      abandoned -= 1;
    });
  };

  function race(verb: Verb, input: unknown, caller: Caller, signal: AbortSignal | undefined, start: (waiting: AbortSignal, deadline: AbortSignal) => Promise<Answered>): Promise<Answered> {
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      deadline.abort(new VerbError('timed_out'));
    }, verb.deadlineMs);
    const waiting = AbortSignal.any([deadline.signal, ...(signal === undefined ? [] : [signal])]);
    const work = start(waiting, deadline.signal);
    let late = false;
    if (verb.risk !== 'read' && onWritten !== undefined) {
      work.then(
        (result) => {
          if (!result.replayed) onWritten({ ran: { verb: verb.name, input, output: result.output }, caller, late });
        },
        () => undefined,
      );
    }
    // A local write runs to its end once asked for: a caller that stops waiting for one is told,
    // once it has ended, what is true — done and staying done, or stopped before anything was done.
    const toldWhenEnded = verb.risk !== 'read' && verb.remote !== true;
    let stopped = false;
    return new Promise((resolve, reject) => {
      const stop = () => {
        late = true;
        if (toldWhenEnded && !deadline.signal.aborted) {
          stopped = true;
          return;
        }
        const reason: unknown = deadline.signal.aborted ? deadline.signal.reason : new VerbError('cancelled');
        abandon(work);
        reject(reason instanceof VerbError ? reason : new VerbError('cancelled'));
      };
      if (waiting.aborted) stop();
      waiting.addEventListener('abort', stop, { once: true });
      work.then(
        (result) => {
          if (stopped) reject(cancelledWrite(caller, true));
          else resolve(result);
        },
        (error: unknown) => {
          reject(stopped ? cancelledWrite(caller, false) : asVerbError(error));
        },
      ).finally(() => {
        clearTimeout(timer);
        waiting.removeEventListener('abort', stop);
      });
    });
  }

  return {
    get abandoned() {
      return abandoned;
    },
    race,
  };
}

/** `raw`, a handler's answer, as its verb's schema makes it; `execution_failed` or `output_too_large` when it is not fit to pass on. */
export async function checkedOutput(verb: Verb, raw: unknown, resultBytesMax: number): Promise<unknown> {
  const parsed = await verb.output.safeParseAsync(raw);
  if (!parsed.success) throw new VerbError('execution_failed');
  const bytes = Buffer.byteLength(JSON.stringify(parsed.data), 'utf8');
  if (bytes > resultBytesMax) throw new VerbError('output_too_large');
  return parsed.data;
}

/**
 * A write its caller stopped waiting for, said as what is true (`acting.stopped-done` where it
 * committed, `acting.stopped-before` where nothing was), in the caller's language.
 */
export function cancelledWrite(caller: Caller, done: boolean): VerbError {
  return new VerbError('cancelled', say(shippedWords().wordsIn(caller.language ?? 'en'), done ? 'acting.stopped-done' : 'acting.stopped-before'));
}

/** What a handler threw, as the typed error its caller is told: its own refusal, or `execution_failed`. */
export function asVerbError(error: unknown): VerbError {
  if (error instanceof VerbError) return error;
  if (error instanceof VerbInputError) return new VerbError('invalid_input', error.message, { cause: error });
  return new VerbError('execution_failed', undefined, { cause: error });
}
