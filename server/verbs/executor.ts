/**
 * The one executor. Every verb call — the model's in the chat door, an MCP client's, a pending
 * action the person approved — comes through `execute`, which in order:
 *
 * 1. finds the verb (`unknown_verb`) and checks it is in the caller's scope (`not_in_scope`);
 * 2. validates the arguments with the verb's schema (`invalid_input`);
 * 3. applies policy: a `confirm` verb runs only with an approval the person gave (`confirmation_required`);
 *    a write needs an idempotency key. A verb whose `confirm` is a function is asked about only when
 *    it answers true, which the executor asks in the person's transaction just before the handler
 *    would run (it reads their rows: "more than one memory would go"), so what it counted is what
 *    the handler finds;
 * 4. runs the handler in the person's own transaction under a deadline with an AbortSignal
 *    (`timed_out`, `cancelled`; a handler that throws is `execution_failed`);
 * 5. validates the result (`execution_failed`) and caps its size (`output_too_large`);
 * 6. logs the outcome as one JSON line that holds no argument and no result.
 *
 * Writes are idempotent: the key, a digest of the input and the result are recorded in the same
 * transaction as the effect, so a retried call returns the first result and never repeats the
 * effect, and the same key with another input is refused (`key_reused`). A write that has started
 * runs to completion whatever the caller does; a caller that stops waiting is told `cancelled` or
 * `timed_out`, and a retry with the same key learns the outcome.
 *
 * A `remote` verb (an outside app's) calls out of the server, so it never holds the person's
 * transaction while it waits on another: a write claims its key first (its own transaction), then
 * calls, then records the result (another); a retry finds the claim and waits for the result or,
 * once it has come, replays it. A remote write is cancelled at its deadline (the other end is told),
 * and its claim let go, so a retry tries again: whether a call cut off mid-flight landed at the other
 * end, only the other end knows. A claim left by a process that ended mid-call (older than its
 * deadline and `CLAIM_GRACE_MS`) is `outcome_unknown`: said, and not tried again.
 *
 * Who is asked first is one rule (`asksOf`): a verb's `confirm`; a write that `changesMany`; and
 * every write in a turn (or run) after an outside app's result was read in it (`TurnTaint`).
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Database } from '../db/database';
import type { Gate } from '../gate';
import type { Queryable } from '../db/queryable';
import { sweepTurnSteps } from '../db/turnSteps';
import { spendApproval } from './approval';
import type { Approval } from './approval';
import { VerbError, VerbInputError } from './errors';
import type { VerbErrorCode } from './errors';
import { appOf } from './registry';
import type { Registry } from './registry';
import type { AppServices, AskContext, Caller, Ran, Verb, VerbContext } from './verb';
import { asksFirst } from './verb';
import { shippedWords } from '../words/loadWords';
import { say } from '../words/words';
import type { Words } from '../words/words';

/** Largest result of one call, as UTF-8 JSON, in bytes. */
export const RESULT_BYTES_MAX = 16 * 1024;
/** How long one narrator may take, in ms. */
export const NARRATOR_MS = 300;
/**
 * Most handlers that may still be running after their caller stopped waiting (a deadline, a
 * cancel), per server, before new calls are refused `overloaded` (seed 001's
 * `MAX_ABANDONED_TOOL_HANDLERS`): a handler that ignores its signal cannot pile up without end.
 */
export const MAX_ABANDONED_HANDLERS = 3;
/** An idempotency key: 16–64 characters of A–Z a–z 0–9 - _ (a UUID works). */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{16,64}$/;
/**
 * How long a write's key and result are kept, in ms: as long as a retry of its turn can come (a
 * page retries a turn within seconds; a day covers a laptop shut mid-turn). `sweepKeys` then
 * clears them, so the same key after that runs anew.
 */
export const IDEMPOTENCY_KEPT_MS = 24 * 60 * 60 * 1000;
/** Namespace of the per-key lock (first key of the two-key advisory lock); no other lock uses it. */
const IDEMPOTENCY_LOCK = 0x56_45_52_42; // "VERB"
/** How often a retry of a remote write still under way looks for its result, in ms. */
const CLAIM_POLL_MS = 50;
/**
 * How long past its verb's deadline a remote write's claim may still be waiting for its result
 * before it counts as left by a process that ended mid-call (its outcome unknown), in ms.
 */
export const CLAIM_GRACE_MS = 5000;

/** What a remote verb's handler has for a transaction: none, and it says so. */
const NO_TRANSACTION: Queryable = {
  query: () => Promise.reject(new Error('A remote verb runs outside the person’s transaction; it cannot query the database.')),
};

export interface Call {
  /** `<app>.<verb>`. */
  verb: string;
  /** The arguments as they came: validated here, never trusted. */
  input: unknown;
  caller: Caller;
  /** The verbs this call may use; unset: every verb (MCP, where the token's bots decide). */
  scope?: ReadonlySet<string>;
  /**
   * Verbs this caller was not offered that must read as nonexistent (`unknown_verb`), not merely
   * out of scope: a skill's verbs before the skill is opened.
   */
  hidden?: ReadonlySet<string>;
  /** Required for writes. */
  idempotencyKey?: string;
  /** The page's key for the conversation, so its recently used apps stay in scope. */
  conversationKey?: string;
  /** Only the confirmation route has one. */
  approval?: Approval;
  /** The caller giving up: barge-in, an MCP cancel, a client gone. */
  signal?: AbortSignal;
  /** Made by a run's step, which nobody waits for: its outside calls count in the background share (`server/gate.ts`). */
  byRun?: boolean;
  /**
   * The turn (or run) this call is one of, shared by all its calls: once one of them has read an
   * outside app's result, every write after it asks first (`asksOf`). Unset: a call on its own (MCP,
   * an approval).
   */
  turn?: TurnTaint;
}

/**
 * What a turn (or a run) has read from outside Confab. Set by the executor when a remote verb's
 * result comes back (the model reads it next); never cleared within the turn.
 */
export interface TurnTaint {
  /** The outside app whose result was read first, when one was. */
  outsideApp?: string;
}

/**
 * A run's taint from the calls its steps made so far (`called`, in order): the first outside app
 * whose result it read. A run outlives a process, so its taint is read from its steps, not kept.
 */
export function taintOf(registry: Pick<Registry, 'verb'>, called: readonly { verb: string; ok: boolean }[]): TurnTaint {
  const outside = called.find((each) => each.ok && registry.verb(each.verb)?.remote === true);
  return outside === undefined ? {} : { outsideApp: appOf(outside.verb) };
}

/**
 * Whether the person is asked before `verb` runs in `call` — the one risk rule, whatever the app:
 * a write after an outside result was read in the turn, always (an outside word cannot act
 * unasked); a verb's own `confirm`; a write that changes many things (`changesMany`), sometimes —
 * decided in the person's transaction just before the handler would run.
 */
export function asksOf(verb: Verb, call: Pick<Call, 'turn'>): 'always' | 'sometimes' | 'never' {
  if (verb.risk !== 'read' && call.turn?.outsideApp !== undefined) return 'always';
  return asksFirst(verb);
}

export type Outcome =
  | { ok: true; verb: Verb; input: unknown; output: unknown; replayed: boolean }
  | { ok: false; verb: Verb | undefined; error: VerbError; /** The validated input, when it got that far (a pending action keeps it). */ input?: unknown };

/** One log line per call: never an argument, a result, a key or what a handler threw. */
export interface VerbLogLine {
  event: 'verb.called';
  verb: string;
  via: Caller['via'];
  outcome: 'ok' | VerbErrorCode;
  replayed?: boolean;
  ms: number;
}

export interface ExecutorDeps {
  registry: Registry;
  db: Database;
  services: AppServices;
  /** Now, in ms since the epoch. */
  clock: () => number;
  log?: (line: VerbLogLine | { event: 'narrator.failed'; verb: string; error: string }) => void;
  /** Default `RESULT_BYTES_MAX`. */
  resultBytesMax?: number;
  /** Default `NARRATOR_MS`. */
  narratorMs?: number;
  /** Most handlers still running after their caller gave up on them before new calls are refused `overloaded`. Default `MAX_ABANDONED_HANDLERS`. */
  maxAbandonedHandlers?: number;
  /**
   * Told of each write that committed (not a replay), once it has: `late` when its caller had
   * stopped waiting (talked over, timed out) and was told so — the only word there is of it then.
   */
  onWritten?: (written: { ran: Ran; caller: Caller; late: boolean }) => void;
  /** The words of a caller's bot in their language, for what the executor says itself (`acting.outcome-unknown`); default: English. */
  wordsFor?: (caller: Caller) => Words;
  /** The one gate, which admits every outside call a remote verb makes; unset, remote verbs reach nothing. */
  gate?: Pick<Gate, 'effectsOf'>;
}

export interface Executor {
  readonly registry: Registry;
  execute(call: Call): Promise<Outcome>;
  /**
   * The sentences of the narrators that follow a verb that succeeded, in order; each under its
   * deadline, a failure or a late one dropped.
   */
  narrate(ran: Ran, caller: Caller, signal?: AbortSignal): Promise<string[]>;
  /** The apps this person used with this bot in the conversation `conversationKey`, most recent first. */
  recentApps(caller: Caller, conversationKey: string | undefined): Promise<string[]>;
  /**
   * The digests (`digestOf`) of the inputs `verb` was called with in the conversation
   * `conversationKey`, by this person with this bot: which skills were opened (`skills.open`).
   */
  inputsCalled(caller: Caller, conversationKey: string | undefined, verb: string): Promise<string[]>;
  /**
   * Clears every write's key and result recorded more than `IDEMPOTENCY_KEPT_MS` before `nowMs`
   * (ms since the epoch), every person's, as the server, and the turns' recorded model steps of the
   * same age (`turn_steps`); answers how many keys were cleared.
   */
  sweepKeys(nowMs: number): Promise<number>;
  /**
   * What the person is asked before `verb` runs with `input` — its `ask` (or `acting.go-ahead`),
   * then `acting.confirm` ("Say yes or no.") in `words`, the turn's — in their own transaction
   * `tx`, the one the pending action is kept in.
   */
  question(tx: Queryable, verb: string, input: unknown, caller: Caller, words: Words): Promise<string>;
}

const stderr = (line: unknown) => {
  console.error(JSON.stringify(line));
};

export function createExecutor(deps: ExecutorDeps): Executor {
  const log = deps.log ?? stderr;
  const resultBytesMax = deps.resultBytesMax ?? RESULT_BYTES_MAX;
  const narratorMs = deps.narratorMs ?? NARRATOR_MS;
  const maxAbandoned = deps.maxAbandonedHandlers ?? MAX_ABANDONED_HANDLERS;
  /** Handlers still running whose caller was told they timed out or were cancelled. */
  let abandoned = 0;
  /** The caller stops waiting for `work` while it still runs: it counts against `maxAbandoned` until it ends. */
  const abandon = (work: Promise<unknown>) => {
    abandoned += 1;
    void work.then(() => undefined, () => undefined).finally(() => {
      abandoned -= 1;
    });
  };

  async function execute(call: Call): Promise<Outcome> {
    const startedMs = deps.clock();
    const verb = call.hidden?.has(call.verb) === true ? undefined : deps.registry.verb(call.verb);
    let input: unknown;
    const state = { replayed: false };
    const outcome = await (async (): Promise<Outcome> => {
      try {
        if (verb === undefined) throw new VerbError('unknown_verb');
        if (call.scope !== undefined && !call.scope.has(verb.name)) throw new VerbError('not_in_scope');
        const parsed = verb.input.safeParse(call.input ?? {});
        if (!parsed.success) throw new VerbError('invalid_input', invalidSentence(parsed.error));
        input = parsed.data;
        const key = call.idempotencyKey;
        if (verb.risk !== 'read' && (key === undefined || !IDEMPOTENCY_KEY.test(key))) {
          throw new VerbError('invalid_input', 'A change needs an idempotency key of 16 to 64 letters, digits, dashes or underscores.');
        }
        // Spent last, once everything else about the call has passed: a refused call keeps its approval unspent.
        const asks = asksOf(verb, call);
        const approved = asks !== 'never' && spendApproval(call.approval, verb.name);
        if (asks === 'always' && !approved) throw new VerbError('confirmation_required');
        if (call.signal?.aborted === true) throw verb.risk === 'read' ? new VerbError('cancelled') : cancelledWrite(call.caller, false);
        const asked = asks === 'sometimes' && !approved ? askedWhen(verb) : undefined;
        // What a question names is fixed as it is decided (`pin`): the pending action keeps that input, so a yes runs exactly it.
        const confirmWhen =
          asked === undefined
            ? undefined
            : async (given: unknown, context: AskContext) => {
                const asking = await asked(given, context);
                if (asking && verb.pin !== undefined) input = await verb.pin(given, context);
                return asking;
              };
        // Handlers that would not stop hold what they hold (a connection, a transaction): past the cap, nothing new starts.
        if (abandoned >= maxAbandoned) throw new VerbError('overloaded');
        const result = await runUnderDeadline(verb, input, call, startedMs, key, confirmWhen);
        state.replayed = result.replayed;
        // An outside app's words are about to reach the model: from now on in this turn, every write asks first.
        if (verb.remote === true && call.turn !== undefined) call.turn.outsideApp ??= appOf(verb.name);
        return { ok: true, verb, input, output: result.output, replayed: result.replayed };
      } catch (error) {
        return { ok: false, verb, error: asVerbError(error), ...(input === undefined ? {} : { input }) };
      }
    })();
    log({
      event: 'verb.called',
      verb: verb?.name ?? 'unknown',
      via: call.caller.via,
      outcome: outcome.ok ? 'ok' : outcome.error.code,
      ...(state.replayed ? { replayed: true } : {}),
      ms: deps.clock() - startedMs,
    });
    return outcome;
  }

  /**
   * Runs the handler in the person's transaction and races it against the deadline and the
   * caller's signal. A read's handler sees both through its signal; a write's sees neither once it
   * has started, and commits (with its key) even after the caller has stopped waiting.
   */
  function runUnderDeadline(
    verb: Verb,
    input: unknown,
    call: Call,
    startedMs: number,
    key: string | undefined,
    confirmWhen: ((input: unknown, context: AskContext) => Promise<boolean>) | undefined,
  ): Promise<{ output: unknown; replayed: boolean }> {
    const deadline = new AbortController();
    const timer = setTimeout(() => {
      deadline.abort(new VerbError('timed_out'));
    }, verb.deadlineMs);
    const waiting = AbortSignal.any([deadline.signal, ...(call.signal === undefined ? [] : [call.signal])]);
    if (verb.remote === true) return raceWaiting(verb, runRemote(verb, input, call, startedMs, key, waiting, deadline.signal), waiting, deadline, timer, input, call);
    const handlerSignal = verb.risk === 'read' ? waiting : new AbortController().signal;
    const inTransaction = (prepared: unknown) => deps.db.asPerson(call.caller.person, async (tx) => {
      const context: VerbContext = {
        ...call.caller,
        signal: handlerSignal,
        nowMs: startedMs,
        tx,
        services: deps.services,
        ...(call.conversationKey === undefined ? {} : { conversationKey: call.conversationKey }),
        ...(prepared === undefined ? {} : { prepared }),
      };
      if (verb.risk === 'read') {
        const output = await checkedOutput(verb, await verb.run(input, context));
        await record(tx, verb, call, input, undefined, undefined, startedMs);
        return { output, replayed: false };
      }
      // A write nobody waits for any more never starts: its caller gave up, or its deadline passed,
      // while it waited for its transaction (the caller was told so; a retry with its key runs it).
      if (waiting.aborted) throw new VerbError(deadline.signal.aborted ? 'timed_out' : 'cancelled');
      const keyed = key as string;
      const earlier = await earlierWrite(tx, verb, input, call, keyed);
      if (earlier !== undefined) return { output: earlier.output, replayed: true };
      // Policy that reads the person's rows; asking rolls this transaction back, so nothing is written.
      if (confirmWhen !== undefined && (await confirmWhen(input, context))) throw new VerbError('confirmation_required');
      const output = await checkedOutput(verb, await verb.run(input, context));
      await record(tx, verb, call, input, keyed, output, startedMs);
      return { output, replayed: false };
    });
    const work = (async () => {
      const prepared = verb.prepare === undefined ? undefined : await verb.prepare(input, { ...call.caller, signal: waiting, nowMs: startedMs, services: deps.services });
      return inTransaction(prepared);
    })();
    return raceWaiting(verb, work, waiting, deadline, timer, input, call);
  }

  /** Answers `work`, or the deadline's or the caller's giving up, whichever comes first; a write is told of once committed. */
  function raceWaiting(
    verb: Verb,
    work: Promise<{ output: unknown; replayed: boolean }>,
    waiting: AbortSignal,
    deadline: AbortController,
    timer: ReturnType<typeof setTimeout>,
    input: unknown,
    call: Call,
  ): Promise<{ output: unknown; replayed: boolean }> {
    let late = false;
    if (verb.risk !== 'read' && deps.onWritten !== undefined) {
      const told = deps.onWritten;
      work.then(
        (result) => {
          if (!result.replayed) told({ ran: { verb: verb.name, input, output: result.output }, caller: call.caller, late });
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
          if (stopped) reject(cancelledWrite(call.caller, true));
          else resolve(result);
        },
        (error: unknown) => {
          reject(stopped ? cancelledWrite(call.caller, false) : asVerbError(error));
        },
      ).finally(() => {
        clearTimeout(timer);
        waiting.removeEventListener('abort', stop);
      });
    });
  }

  /**
   * A remote verb's call, outside the person's transaction. A read runs with the caller's signal
   * and is recorded after. A write claims its key (a row with no result yet), calls with its
   * deadline's signal, and records the result; a failure lets the claim go. A claim already there
   * is this write's own retry: it waits for that result and replays it.
   */
  async function runRemote(verb: Verb, input: unknown, call: Call, startedMs: number, key: string | undefined, waiting: AbortSignal, deadline: AbortSignal): Promise<{ output: unknown; replayed: boolean }> {
    // What it may spend, admitted by the one gate: without a gate, a remote verb reaches nothing (`effectsIn`).
    const effects = deps.gate?.effectsOf(call.caller, call.byRun === true);
    const context = (signal: AbortSignal): VerbContext => ({ ...call.caller, signal, nowMs: startedMs, tx: NO_TRANSACTION, services: deps.services, ...(effects === undefined ? {} : { effects }) });
    if (verb.risk === 'read') {
      const output = await checkedOutput(verb, await verb.run(input, context(waiting)));
      await deps.db.asPerson(call.caller.person, (tx) => record(tx, verb, call, input, undefined, undefined, startedMs));
      return { output, replayed: false };
    }
    const keyed = key as string;
    for (;;) {
      const claim = await deps.db.asPerson(call.caller.person, async (tx) => {
        const earlier = await earlierWrite(tx, verb, input, call, keyed);
        if (earlier === undefined) {
          if (waiting.aborted) throw new VerbError(deadline.aborted ? 'timed_out' : 'cancelled');
          await record(tx, verb, call, input, keyed, CLAIMED, startedMs);
          return { claimed: true as const };
        }
        return { claimed: false as const, output: earlier.output };
      });
      if (!claim.claimed) {
        if (claim.output !== null) return { output: claim.output, replayed: true };
        // A claim older than its call could live was left by a process that ended mid-call (a crash):
        // whether the other end did it, nobody here can tell, so it is said, and not tried again.
        if (deps.clock() - (await claimedAtMs(call.caller.person, keyed)) > verb.deadlineMs + CLAIM_GRACE_MS) {
          throw new VerbError('outcome_unknown', ...(deps.wordsFor === undefined ? [] : [say(deps.wordsFor(call.caller), 'acting.outcome-unknown')]));
        }
        // The same write is under way (its first try, still waiting on the other end): wait for its result.
        await sleepUnless(CLAIM_POLL_MS, waiting);
        continue;
      }
      let output: unknown;
      try {
        // The write's key goes with it, for an other end that honours one (OpenAPI's `Idempotency-Key`).
        output = await checkedOutput(verb, await verb.run(input, { ...context(deadline), idempotencyKey: keyed }));
      } catch (error) {
        await deps.db.asServer((tx) => tx.query('delete from verb_calls where person = $1 and idem_key = $2 and output is null', [call.caller.person, keyed]));
        throw error;
      }
      await deps.db.asServer((tx) => tx.query('update verb_calls set output = $3 where person = $1 and idem_key = $2', [call.caller.person, keyed, JSON.stringify(output)]));
      return { output, replayed: false };
    }
  }

  /** When the remote write claimed under `key` was claimed, in ms since the epoch (the executor's clock). */
  async function claimedAtMs(person: string, key: string): Promise<number> {
    const { rows } = await deps.db.asPerson(person, (tx) => tx.query<{ created_at: Date | string }>('select created_at from verb_calls where idem_key = $1', [key]));
    const at = rows[0]?.created_at;
    return at === undefined ? deps.clock() : new Date(at).getTime();
  }

  async function checkedOutput(verb: Verb, raw: unknown): Promise<unknown> {
    const parsed = await verb.output.safeParseAsync(raw);
    if (!parsed.success) throw new VerbError('execution_failed');
    const bytes = Buffer.byteLength(JSON.stringify(parsed.data), 'utf8');
    if (bytes > resultBytesMax) throw new VerbError('output_too_large');
    return parsed.data;
  }

  /**
   * Records a call at `nowMs` (the executor's clock, which the sweep measures against); a keyed one
   * with `CLAIMED` for its output is a remote write's claim, its result to come.
   */
  async function record(tx: Queryable, verb: Verb, call: Call, input: unknown, key: string | undefined, output: unknown, nowMs: number): Promise<void> {
    // The column `conversation` holds the conversation key; it keeps the name migration 003 gave it.
    await tx.query(
      `insert into verb_calls (person, bot, verb, app, conversation, idem_key, input_digest, output, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [call.caller.person, call.caller.bot, verb.name, appOf(verb.name), call.conversationKey ?? null, key ?? null, digestOf(verb.name, input), key === undefined || output === CLAIMED ? null : JSON.stringify(output), new Date(nowMs).toISOString()],
    );
  }

  async function sweepKeys(nowMs: number): Promise<number> {
    const { rows } = await deps.db.asServer((tx) =>
      tx.query<{ n: number }>(
        `with swept as (
           update verb_calls set idem_key = null, output = null
            where idem_key is not null and created_at < $1
           returning 1)
         select count(*)::int as n from swept`,
        [new Date(nowMs - IDEMPOTENCY_KEPT_MS).toISOString()],
      ),
    );
    // A turn's recorded model steps go with its keys: a retry after this runs the turn anew.
    await deps.db.asServer((tx) => sweepTurnSteps(tx, nowMs - IDEMPOTENCY_KEPT_MS));
    return rows[0]?.n ?? 0;
  }

  async function narrate(ran: Ran, caller: Caller, signal?: AbortSignal): Promise<string[]> {
    const narrators = deps.registry.narratorsFor(ran.verb);
    if (narrators.length === 0) return [];
    const sentences: string[] = [];
    for (const narrator of narrators) {
      const deadline = AbortSignal.any([AbortSignal.timeout(narratorMs), ...(signal === undefined ? [] : [signal])]);
      try {
        // A remote narrator's read reaches outside: it is admitted by the gate, as a verb's call is.
        const effects = narrator.remote === true ? deps.gate?.effectsOf(caller, false) : undefined;
        const context = (tx: Queryable) => ({ ...caller, signal: deadline, nowMs: deps.clock(), tx, services: deps.services, ...(effects === undefined ? {} : { effects }) });
        // A remote narrator's read goes out of the server: no transaction is held while it waits.
        const said = await raceSignal(
          narrator.remote === true ? narrator.narrate(ran, context(NO_TRANSACTION)) : deps.db.asPerson(caller.person, (tx) => narrator.narrate(ran, context(tx))),
          deadline,
        );
        if (typeof said === 'string' && said.trim() !== '') sentences.push(said.trim());
      } catch (error) {
        // A narrator is a courtesy: the verb has run, and the conversation goes on without it.
        log({ event: 'narrator.failed', verb: ran.verb, error: error instanceof Error ? error.name : typeof error });
      }
    }
    return sentences;
  }

  async function recentApps(caller: Caller, conversationKey: string | undefined): Promise<string[]> {
    if (conversationKey === undefined || conversationKey === '') return [];
    // On the way to every answer's first token: one read of the caller's own calls, as the person
    // the grant or session names, under row level security (the statement names them too).
    const { rows } = await deps.db.asPerson(caller.person, (reader) =>
      reader.query<{ app: string }>(
        `select app from verb_calls where person = $1 and bot = $2 and conversation = $3
          group by app order by max(seq) desc limit 8`,
        [caller.person, caller.bot, conversationKey],
      ),
    );
    return rows.map((row) => row.app);
  }

  async function inputsCalled(caller: Caller, conversationKey: string | undefined, verb: string): Promise<string[]> {
    if (conversationKey === undefined || conversationKey === '') return [];
    const { rows } = await deps.db.asPerson(caller.person, (reader) =>
      reader.query<{ input_digest: string }>(
        `select distinct input_digest from verb_calls where person = $1 and bot = $2 and conversation = $3 and verb = $4`,
        [caller.person, caller.bot, conversationKey, verb],
      ),
    );
    return rows.map((row) => row.input_digest);
  }

  async function question(tx: Queryable, verbName: string, input: unknown, caller: Caller, words: Words): Promise<string> {
    const ask = deps.registry.verb(verbName)?.ask;
    const asked = ask === undefined ? say(words, 'acting.go-ahead') : await ask(input, { ...caller, tx, nowMs: deps.clock() });
    return `${asked} ${say(words, 'acting.confirm')}`;
  }

  return { registry: deps.registry, execute, narrate, recentApps, inputsCalled, sweepKeys, question };
}

/** When a `sometimes` verb asks: its own `confirm` answers true, or the call changes many things. */
function askedWhen(verb: Verb): (input: unknown, context: AskContext) => Promise<boolean> {
  const { confirm, changesMany } = verb;
  return async (input, context) => (typeof confirm === 'function' && (await confirm(input, context))) || (changesMany !== undefined && (await changesMany(input, context)));
}

/**
 * A write its caller stopped waiting for, said as what is true (`acting.stopped-done` where it
 * committed, `acting.stopped-before` where nothing was), in the caller's language.
 */
function cancelledWrite(caller: Caller, done: boolean): VerbError {
  return new VerbError('cancelled', say(shippedWords().wordsIn(caller.language ?? 'en'), done ? 'acting.stopped-done' : 'acting.stopped-before'));
}

/** A remote write's output while its call is under way: recorded as no result yet. */
const CLAIMED = Symbol('claimed');

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

/**
 * The write recorded under `key` before this call, in `tx` under the key's lock: two calls with one
 * key at once (a retry racing its original, over Postgres) take turns here, so the second finds the
 * first's record rather than failing on the unique key. The same key with another input is
 * `key_reused`.
 */
async function earlierWrite(tx: Queryable, verb: Verb, input: unknown, call: Call, key: string): Promise<{ output: unknown } | undefined> {
  await tx.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [IDEMPOTENCY_LOCK, `${call.caller.person}\n${key}`]);
  const earlier = await earlierCall(tx, key);
  if (earlier !== undefined && earlier.input_digest !== digestOf(verb.name, input)) throw new VerbError('key_reused');
  return earlier;
}

async function earlierCall(tx: Queryable, key: string): Promise<{ input_digest: string; output: unknown } | undefined> {
  const { rows } = await tx.query<{ input_digest: string; output: unknown }>('select input_digest, output from verb_calls where idem_key = $1', [key]);
  return rows[0];
}

/** SHA-256 of the verb and its validated input, keys sorted: the same request digests the same. */
export function digestOf(verb: string, input: unknown): string {
  return createHash('sha256').update(`${verb}\n${canonical(input)}`).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

function raceSignal<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const stop = () => {
      reject(new VerbError('timed_out'));
    };
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', stop);
    });
  });
}

function asVerbError(error: unknown): VerbError {
  if (error instanceof VerbError) return error;
  if (error instanceof VerbInputError) return new VerbError('invalid_input', error.message, { cause: error });
  return new VerbError('execution_failed', undefined, { cause: error });
}

/** The first problem Zod found, as a sentence naming the field and never its value. */
function invalidSentence(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'That request was not quite right, so nothing was done.';
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the request';
  return `That request was not quite right (${field}: ${issue.message.replace(/\.$/, '')}), so nothing was done.`;
}
