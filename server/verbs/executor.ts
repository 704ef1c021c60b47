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
 * 4. runs the handler under a deadline with an AbortSignal (`timed_out`, `cancelled`; a handler
 *    that throws is `execution_failed`);
 * 5. validates the result (`execution_failed`) and caps its size (`output_too_large`);
 * 6. logs the outcome as one JSON line that holds no argument and no result.
 *
 * Writes are idempotent: the key, a digest of the input and the result are recorded in the same
 * transaction as the effect, so a retried call returns the first result and never repeats the
 * effect, and the same key with another input is refused (`key_reused`). A write that has started
 * runs to completion whatever the caller does; a caller that stops waiting is told `cancelled` or
 * `timed_out`, and a retry with the same key learns the outcome.
 *
 * How a handler runs is one of two paths, each in its own file: a local verb's in the person's
 * transaction (`localCall.ts`), a `remote` verb's (an outside app's) outside it, its write's key
 * claimed before it calls out and its result recorded after (`remoteCall.ts`). Both run under the
 * verb's deadline and the caller's signal (`underway.ts`); the table they record in is `verbCalls.ts`.
 *
 * Who is asked first is one rule (`asksOf`): a verb's `confirm`; a write that `changesMany`; and
 * every write in a turn (or run) after an outside app's result was read in it (`TurnTaint`).
 */
import type { z } from 'zod';
import { forModel } from '../../common/modelText';
import type { ModelText } from '../../common/modelText';
import type { Database } from '../db/database';
import type { Queryable } from '../db/queryable';
import { sweepTurnSteps } from '../db/turnSteps';
import { spendApproval } from './approval';
import type { Approval } from './approval';
import { VerbError } from './errors';
import type { VerbErrorCode } from './errors';
import { runLocal } from './localCall';
import type { ConfirmWhen } from './localCall';
import { appOf } from './registry';
import type { Registry } from './registry';
import { NARRATOR_MS, narrate } from './narrate';
import type { NarratorFailed } from './narrate';
import { runRemote } from './remoteCall';
import { asVerbError, cancelledWrite, createDeadlines } from './underway';
import type { EffectsGate, OnWritten, Running } from './underway';
import type { AppServices, Caller, ConfirmContext, Ran, Verb } from './verb';
import { asksFirst } from './verb';
import { appsUsed, inputDigests, sweepCallKeys } from './verbCalls';
import { say } from '../words/words';
import type { Words } from '../words/words';

/** Largest result of one call, as UTF-8 JSON, in bytes. */
const RESULT_BYTES_MAX = 16 * 1024;
/**
 * Most handlers that may still be running after their caller stopped waiting (a deadline, a
 * cancel), per server, before new calls are refused `overloaded` (seed 001's
 * `MAX_ABANDONED_TOOL_HANDLERS`): a handler that ignores its signal cannot pile up without end.
 */
export const MAX_ABANDONED_HANDLERS = 3;
/** An idempotency key: 16–64 characters of A–Z a–z 0–9 - _ (a UUID works). */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{16,64}$/;
/**
 * How long a write's key and result are kept, in ms: as long as a retry of its turn can come (a
 * page retries a turn within seconds; a day covers a laptop shut mid-turn). `sweepKeys` then
 * clears them, so the same key after that runs anew.
 */
export const IDEMPOTENCY_KEPT_MS = 24 * 60 * 60 * 1000;

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
function asksOf(verb: Verb, call: Pick<Call, 'turn'>): 'always' | 'sometimes' | 'never' {
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
  log?: (line: VerbLogLine | NarratorFailed) => void;
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
  onWritten?: OnWritten;
  /** The words of a caller's bot in their language, for what the executor says itself (`acting.outcome-unknown`); default: English. */
  wordsFor?: (caller: Caller) => Words;
  /** The one gate, which admits every outside call a remote verb makes; unset, remote verbs reach nothing. */
  gate?: EffectsGate;
}

export interface Executor {
  readonly registry: Registry;
  /** Handlers still running after their caller stopped waiting (a deadline, a cancel); past `maxAbandonedHandlers`, new calls are refused `overloaded`. */
  readonly abandoned: number;
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
  const maxAbandoned = deps.maxAbandonedHandlers ?? MAX_ABANDONED_HANDLERS;
  const deadlines = createDeadlines(deps.onWritten);
  const callDeps = { ...deps, resultBytesMax };
  const narrating = { ...deps, log, narratorMs: deps.narratorMs ?? NARRATOR_MS };

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
          // Only a caller that chooses its own keys (an MCP client) can miss one: the chat door derives them.
          throw new VerbError('invalid_input', forModel('A change needs an idempotency key of 16 to 64 letters, digits, dashes or underscores.'));
        }
        // Spent last, once everything else about the call has passed: a refused call keeps its approval unspent.
        const asks = asksOf(verb, call);
        const approved = asks !== 'never' && spendApproval(call.approval, verb.name);
        if (asks === 'always' && !approved) throw new VerbError('confirmation_required');
        if (call.signal?.aborted === true) throw verb.risk === 'read' ? new VerbError('cancelled') : cancelledWrite(call.caller, false);
        const asked = asks === 'sometimes' && !approved ? askedWhen(verb) : undefined;
        // What a question names is fixed as it is decided (`pin`): the pending action keeps that input, so a yes runs exactly it.
        const confirmWhen: ConfirmWhen | undefined =
          asked === undefined
            ? undefined
            : async (given: unknown, context: ConfirmContext) => {
                const asking = await asked(given, context);
                if (asking && verb.pin !== undefined) input = await verb.pin(given, context);
                return asking;
              };
        // Handlers that would not stop hold what they hold (a connection, a transaction): past the cap, nothing new starts.
        if (deadlines.abandoned >= maxAbandoned) throw new VerbError('overloaded');
        const result = await deadlines.race(verb, input, call.caller, call.signal, (waiting, deadline) => {
          const running: Running = { verb, input, caller: call.caller, conversationKey: call.conversationKey, key, startedMs, waiting, deadline };
          return verb.remote === true ? runRemote(callDeps, running, call.byRun === true) : runLocal(callDeps, running, confirmWhen);
        });
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

  async function sweepKeys(nowMs: number): Promise<number> {
    const swept = await deps.db.asServer((tx) => sweepCallKeys(tx, nowMs - IDEMPOTENCY_KEPT_MS));
    // A turn's recorded model steps go with its keys: a retry after this runs the turn anew.
    await deps.db.asServer((tx) => sweepTurnSteps(tx, nowMs - IDEMPOTENCY_KEPT_MS));
    return swept;
  }

  async function recentApps(caller: Caller, conversationKey: string | undefined): Promise<string[]> {
    if (conversationKey === undefined || conversationKey === '') return [];
    // On the way to every answer's first token: one read of the caller's own calls, as the person
    // the grant or session names, under row level security (the statement names them too).
    return deps.db.asPerson(caller.person, (reader) => appsUsed(reader, caller, conversationKey));
  }

  async function inputsCalled(caller: Caller, conversationKey: string | undefined, verb: string): Promise<string[]> {
    if (conversationKey === undefined || conversationKey === '') return [];
    return deps.db.asPerson(caller.person, (reader) => inputDigests(reader, caller, conversationKey, verb));
  }

  async function question(tx: Queryable, verbName: string, input: unknown, caller: Caller, words: Words): Promise<string> {
    const ask = deps.registry.verb(verbName)?.ask;
    const asked = ask === undefined ? say(words, 'acting.go-ahead') : await ask(input, { ...caller, tx, nowMs: deps.clock(), words });
    return `${asked} ${say(words, 'acting.confirm')}`;
  }

  return {
    registry: deps.registry,
    get abandoned() {
      return deadlines.abandoned;
    },
    execute,
    narrate: (ran, caller, signal) => narrate(narrating, ran, caller, signal),
    recentApps,
    inputsCalled,
    sweepKeys,
    question,
  };
}

/** When a `sometimes` verb asks: its own `confirm` answers true, or the call changes many things. */
function askedWhen(verb: Verb): (input: unknown, context: ConfirmContext) => Promise<boolean> {
  const { confirm, changesMany } = verb;
  return async (input, context) => (typeof confirm === 'function' && (await confirm(input, context))) || (changesMany !== undefined && (await changesMany(input, context)));
}

/**
 * The first problem Zod found, as a sentence naming the field and never its value: for the model
 * (or the MCP client) whose arguments they were, in Zod's own English, to call again rightly.
 */
function invalidSentence(error: z.ZodError): ModelText {
  const issue = error.issues[0];
  if (issue === undefined) return forModel('That request was not quite right, so nothing was done.');
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : 'the request';
  return forModel(`That request was not quite right (${field}: ${issue.message.replace(/\.$/, '')}), so nothing was done.`);
}
