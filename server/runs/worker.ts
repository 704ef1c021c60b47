/**
 * The worker: inside the server process, a few runs at once. It claims a queued run (or one whose
 * lease lapsed), then holds that run by its id until it ends — it never asks for work again between
 * steps — taking one step at a time as `nextStep` decides: one model call, one tool call through
 * the one executor, or the saying of the answer, each written down before the next. While it works
 * it renews its lease; a worker that dies stops renewing, its lease lapses, and any instance's
 * worker over the same database claims the run and carries on from the last step written.
 *
 * A tool step's write uses the key `writeKeyOf(run, seq)`, so a step run again after a crash (the
 * effect committed, the step not yet written) is replayed by the executor rather than done twice.
 * On `stop` it finishes the step in hand, writes it, and lets go of the run, which any instance's
 * worker may then claim at once.
 */
import type { Database } from '../db/database';
import { taintOf } from '../verbs/executor';
import type { Executor } from '../verbs/executor';
import type { Verb } from '../verbs/verb';
import { nextStep } from './nextStep';
import type { Decision } from './nextStep';
import { scriptedModel } from './runModel';
import type { RunModel } from './runModel';
import type { PendingActionEvent } from '../../common/acting/protocol';
import { resolveOptions } from '../../common/options';
import type { Limit, Limits } from '../../common/options';
import { BASE_LANGUAGE } from '../words/loadWords';
import { say } from '../words/words';
import type { Words } from '../words/words';
import { keepPending } from '../verbs/pendingActions';
import { claimRun, endRun, letGoOfRun, readRun, readSteps, renewLease, takeBackLeases, waitOnAction, writeStep } from './runs';
import type { Ending, Run, RunStep, StepBody } from './types';

/** What a run tells a listener (the presence window, a bench), as dotted facts. Never its words but the ending's. */
export type RunEvent =
  | { event: 'run.claimed'; runId: string; person: string; bot: string; owner: string; atMs: number }
  | { event: 'run.step-begun'; runId: string; seq: number; owner: string; atMs: number }
  | {
      event: 'run.step';
      runId: string;
      person: string;
      bot: string;
      /** The language the run speaks in (`Run.language`). */
      language: string | null;
      seq: number;
      kind: StepBody['kind'];
      verb?: string;
      ok?: boolean;
      /** A tool step: how many tool steps the run has taken, this one included. */
      toolSteps?: number;
      /** A model step that asked for tools and said what it is doing ("Reading your list first."): the phase it named. */
      phase?: string;
      atMs: number;
    }
  | { event: 'run.ended'; runId: string; person: string; bot: string; ending: Ending; answer: string; atMs: number }
  /** It stopped at the confirmation gate: the person is asked `action.question`, and it waits for the answer. */
  | { event: 'run.waiting'; runId: string; person: string; bot: string; action: PendingActionEvent; atMs: number };

export interface WorkerOptions {
  db: Database;
  executor: Executor;
  /** The verbs a run may call (its bot's scope); no other runs. */
  verbsFor: (run: Run) => readonly Verb[];
  /** The words a run says in Confab's own name: its person's language's, else its bot's. */
  wordsFor: (run: Run) => Words;
  /** The language a run speaks in: its person's, else its bot's (what `wordsFor` is in). Default: the run's own, else `en`. */
  languageFor?: (run: Run) => string;
  /** The model for runs that carry no script; default: none, so such a run fails with a sentence. */
  model?: RunModel;
  /** The model for runs that carry a script (the stand-in's, metered by the gate); default `scriptedModel`. */
  scripted?: RunModel;
  /** This worker's name on the leases it holds: unique per process (a host and pid, a UUID). */
  owner: string;
  /**
   * The instance's own id, kept across restarts in its data folder (`instanceId`): the leases it
   * holds are named `<instance>:<owner>`, and before its first claim it takes back at once the runs
   * an earlier process of the same instance held, rather than waiting out their leases. Other
   * instances still wait for the lease to lapse. Default: none (nothing is taken back).
   */
  instance?: string;
  /** Now, in ms since the epoch. */
  clock: () => number;
  /** Most runs worked at once. Default `WORKER_DEFAULTS.concurrency`. */
  concurrency?: number;
  /** How long a claim lasts without renewal, in ms; renewed every third of it. Default `WORKER_DEFAULTS.leaseMs`. */
  leaseMs?: number;
  /** How often it looks for work when it has room, in ms. Default `WORKER_DEFAULTS.pollMs`. */
  pollMs?: number;
  onEvent?: (event: RunEvent) => void;
  /**
   * How long a scripted run's model step takes, in ms, as a model's would, so what is said while it
   * works is heard as it will be with one. Default 0.
   */
  scriptedStepMs?: number;
  /** Called after each step is written, before the next is decided: where a test cancels or kills. */
  afterStep?: (run: Run, step: RunStep) => Promise<void> | void;
  /**
   * While a model step is in hand, how often it looks whether its run was cancelled, in ms: the
   * step's signal is aborted then, and at the run's `maxMinutes`, so neither waits for the model.
   * Default `WORKER_DEFAULTS.watchMs`.
   */
  watchMs?: number;
  /** Calls `run` after `delayMs`; answers a way to cancel it. Default: `setTimeout` (tests pass a manual clock's). */
  after?: (delayMs: number, run: () => void) => () => void;
}

/** The worker's counts and timings, each explained on its field in `WorkerOptions`. */
type WorkerSettings = Required<Pick<WorkerOptions, 'concurrency' | 'leaseMs' | 'pollMs' | 'watchMs'>>;

const WORKER_DEFAULTS: Readonly<WorkerSettings> = Object.freeze({ concurrency: 3, leaseMs: 30_000, pollMs: 1_000, watchMs: 500 });

const WHOLE: Limit = { min: 1, whole: true };
const LIMITS: Limits<WorkerSettings> = { concurrency: WHOLE, leaseMs: WHOLE, pollMs: WHOLE, watchMs: WHOLE };

/** Why a model step's signal was aborted by the worker: the run was cancelled, or its minutes ran out. */
class StepStopped extends Error {
  override readonly name = 'StepStopped';
  constructor(readonly why: 'cancelled' | 'out_of_time') {
    super(why === 'cancelled' ? 'The run was cancelled while its model step was in hand.' : 'The run reached its maxMinutes while its model step was in hand.');
  }
}

const realAfter = (delayMs: number, run: () => void): (() => void) => {
  const timer = setTimeout(run, delayMs);
  return () => {
    clearTimeout(timer);
  };
};

/** How long a run's question waits for the person's answer, in ms: a day, not a turn's minute. */
const RUN_QUESTION_MS = 24 * 60 * 60 * 1000;

export interface Worker {
  /** Starts looking for work every `pollMs` (again, after a stop). */
  start(): void;
  /** Looks for work now (a run was just queued). Resolves once it has claimed what it has room for. */
  poke(): Promise<void>;
  /** Stops between steps: each run in hand writes the step it is taking, then is let go for any instance to claim. */
  stop(): Promise<void>;
  /** As if the process died: nothing more is written or renewed, from this moment. */
  kill(): void;
  /** Runs held now. */
  readonly active: number;
}

/** The idempotency key of the write a run's step `seq` makes: the same whoever takes that step. */
export function writeKeyOf(runId: string, seq: number): string {
  return `run-${runId}-${String(seq)}`;
}

/** A model call the person's or the site's ceilings would not admit: the run stops, saying the ceiling's sentence. */
export class RunRefused extends Error {
  override readonly name = 'RunRefused';
  constructor(readonly sentence: string) {
    super(sentence);
  }
}


/** The words a run that stopped for its budget says. */
const BUDGET_WORDS = { out_of_steps: 'runs.out-of-steps', out_of_money: 'runs.out-of-money', out_of_time: 'runs.out-of-time' } as const;

export function createWorker(options: WorkerOptions): Worker {
  const settings = resolveOptions('worker', WORKER_DEFAULTS, options, LIMITS);
  const after = options.after ?? realAfter;
  const languageFor = options.languageFor ?? ((run: Run) => run.language ?? BASE_LANGUAGE);
  const { db, clock } = options;
  const owner = options.instance === undefined ? options.owner : `${options.instance}:${options.owner}`;
  let tookBack = options.instance === undefined;
  const emit = (event: RunEvent) => options.onEvent?.(event);
  const active = new Set<Promise<void>>();
  let stopping = false;
  let dead = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let filling: Promise<void> | undefined;

  function poke(): Promise<void> {
    filling ??= fill().finally(() => {
      filling = undefined;
    });
    return filling;
  }

  async function fill(): Promise<void> {
    if (!tookBack && options.instance !== undefined) {
      const instance = options.instance;
      await db.asServer((tx) => takeBackLeases(tx, instance, owner, clock()));
      tookBack = true;
    }
    while (!stopping && !dead && active.size < settings.concurrency) {
      const nowMs = clock();
      const run = await db.asServer((tx) => claimRun(tx, owner, nowMs, nowMs + settings.leaseMs));
      // `dead` is set by kill() while the claim is awaited.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (run === undefined || dead) return;
      emit({ event: 'run.claimed', runId: run.id, person: run.person, bot: run.bot, owner, atMs: clock() });
      const working: Promise<void> = work(run).finally(() => {
        active.delete(working);
        if (!stopping && !dead) void poke();
      });
      active.add(working);
    }
  }

  async function work(claimed: Run): Promise<void> {
    let lost = false;
    const renewal = setInterval(() => {
      if (dead) return;
      const nowMs = clock();
      db.asServer((tx) => renewLease(tx, claimed.id, owner, nowMs, nowMs + settings.leaseMs)).then(
        (held) => {
          if (!held) lost = true;
        },
        () => undefined,
      );
    }, Math.max(1, Math.floor(settings.leaseMs / 3)));
    const write = async (step: RunStep): Promise<boolean> => {
      if (dead || lost) return false;
      return db.asServer((tx) => writeStep(tx, claimed.id, owner, step, clock()));
    };
    const end = async (ending: Ending, sentence: string, seq: number): Promise<void> => {
      if (!(await write({ seq, body: { kind: 'say', text: sentence, ending }, writeKey: null, spentUsd: 0 }))) return;
      await finish(ending, sentence);
    };
    const finish = async (ending: Ending, answer: string): Promise<void> => {
      if (dead || lost) return;
      if (await db.asServer((tx) => endRun(tx, claimed.id, owner, ending, answer, clock()))) {
        emit({ event: 'run.ended', runId: claimed.id, person: claimed.person, bot: claimed.bot, ending, answer, atMs: clock() });
      }
    };
    try {
      for (;;) {
        // Set by kill(), a lapsed lease or stop() while a step was awaited.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (dead || lost || stopping) return;
        const { run, steps } = await db.asServer(async (tx) => ({ run: await readRun(tx, claimed.id), steps: await readSteps(tx, claimed.id) }));
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
        if (run === undefined || run.leaseOwner !== owner || dead) return;
        const seq = steps.length + 1;
        const spentUsd = steps.reduce((sum, step) => sum + step.spentUsd, 0);
        const decision = nextStep({ run, steps, nowMs: clock(), spentUsd });
        emit({ event: 'run.step-begun', runId: run.id, seq, owner, atMs: clock() });
        const step = await take(run, steps, seq, decision);
        if (step === 'ended') {
          return;
        }
        // The model step was stopped (cancelled, out of minutes): the next decision says so.
        if (step === 'again') continue;
        if (!(await write(step))) return;
        const body = step.body;
        emit({
          event: 'run.step',
          runId: run.id,
          person: run.person,
          bot: run.bot,
          language: run.language,
          seq,
          kind: body.kind,
          ...(body.kind === 'tool' ? { verb: body.verb, ok: body.outcome.ok, toolSteps: steps.filter((s) => s.body.kind === 'tool').length + 1 } : {}),
          ...(body.kind === 'model' && body.toolCalls.length > 0 && body.text !== '' ? { phase: body.text } : {}),
          atMs: clock(),
        });
        await options.afterStep?.(run, step);
      }
    } catch (error) {
      // The run cannot go on (a ceiling, the model's provider refused, the database failed): it ends with a sentence.
      const seq = await db.asServer((tx) => readSteps(tx, claimed.id)).then((steps) => steps.length + 1);
      await (error instanceof RunRefused ? end('out_of_budget', error.sentence, seq) : end('failed', say(options.wordsFor(claimed), 'runs.failed'), seq)).catch(() => undefined);
    } finally {
      clearInterval(renewal);
      // Stopped between steps: the run is any instance's to carry on at once, not after its lease.
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition
      if (stopping && !dead && !lost) await db.asServer((tx) => letGoOfRun(tx, claimed.id, owner, clock())).catch(() => undefined);
    }

    /**
     * A signal for the model step in hand, aborted when the run is cancelled (looked at every
     * `watchMs`) or reaches its `maxMinutes`; answers it and a way to stop watching.
     */
    function stepSignal(run: Run): { signal: AbortSignal; done: () => void } {
      const controller = new AbortController();
      const cancels: (() => void)[] = [];
      let over = false;
      const watching = () => !over && !controller.signal.aborted && !dead;
      if (run.startedAtMs !== null) {
        const leftMs = Math.max(0, run.startedAtMs + run.maxMinutes * 60_000 - clock());
        cancels.push(after(leftMs, () => { controller.abort(new StepStopped('out_of_time')); }));
      }
      let stopLooking: () => void = () => undefined;
      const look = () => {
        stopLooking = after(settings.watchMs, () => {
            if (!watching()) return;
            db.readAsServer((reader) => readRun(reader, run.id)).then(
              (now) => {
                if (!watching()) return;
                if (now?.state === 'cancelled') controller.abort(new StepStopped('cancelled'));
                else look();
              },
              () => {
                if (watching()) look();
              },
            );
          });
      };
      look();
      return {
        signal: controller.signal,
        done: () => {
          over = true;
          stopLooking();
          for (const cancel of cancels) cancel();
        },
      };
    }

    /** The step `decision` names, taken (not yet written); 'ended' when the run has ended instead, 'again' when its model step was stopped. */
    async function take(run: Run, steps: readonly RunStep[], seq: number, decision: Decision): Promise<RunStep | 'ended' | 'again'> {
      switch (decision.next) {
        case 'finished':
          await finish('finished', decision.answer);
          return 'ended';
        case 'cancelled':
          await end('cancelled', say(options.wordsFor(run), 'runs.cancelled'), seq);
          return 'ended';
        case 'out_of_steps':
        case 'out_of_money':
        case 'out_of_time':
          await end('out_of_budget', say(options.wordsFor(run), BUDGET_WORDS[decision.next]), seq);
          return 'ended';
        case 'say':
          return { seq, body: { kind: 'say', text: decision.text, ending: 'finished' }, writeKey: null, spentUsd: 0 };
        case 'call_model': {
          const model = run.script !== null ? (options.scripted ?? scriptedModel) : options.model;
          if (model === undefined) {
            await end('failed', say(options.wordsFor(run), 'runs.no-model'), seq);
            return 'ended';
          }
          if (run.script !== null && (options.scriptedStepMs ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, options.scriptedStepMs));
          const step = stepSignal(run);
          let reply;
          try {
            reply = await model.reply(run, steps, options.verbsFor(run), step.signal, { words: options.wordsFor(run), language: languageFor(run) });
          } catch (error) {
            if (step.signal.aborted) return 'again';
            throw error;
          } finally {
            step.done();
          }
          return { seq, body: { kind: 'model', model: reply.model, text: reply.text, toolCalls: reply.toolCalls }, writeKey: null, spentUsd: reply.spentUsd };
        }
        case 'run_tool': {
          const writeKey = writeKeyOf(run.id, seq);
          const caller = { person: run.person, bot: run.bot, via: 'model' as const, timeZone: run.timeZone, language: languageFor(run) };
          const outcome = await options.executor.execute({
            verb: decision.call.verb,
            input: decision.call.input,
            caller,
            scope: new Set(options.verbsFor(run).map((verb) => verb.name)),
            idempotencyKey: writeKey,
            // Nobody waits for a run: its outside calls count in the gate's background share.
            byRun: true,
            ...(run.conversationKey === null ? {} : { conversationKey: run.conversationKey }),
            // Once the run has read an outside app's result, every write of it asks first.
            turn: taintOf(options.executor.registry, steps.flatMap((step) => (step.body.kind === 'tool' ? [{ verb: step.body.verb, ok: step.body.outcome.ok }] : []))),
          });
          if (!outcome.ok && outcome.error.code === 'confirmation_required') {
            // The confirmation gate: the call waits for the person's yes, held for the run, and the run lets go.
            const input = outcome.input ?? decision.call.input;
            const action = await db.asPerson(run.person, async (tx) => {
              const question = await options.executor.question(tx, decision.call.verb, input, caller, options.wordsFor(run));
              return keepPending(tx, { person: run.person, bot: run.bot, verb: decision.call.verb, input, question, timeZone: run.timeZone, conversationKey: run.conversationKey, expiresAtMs: clock() + RUN_QUESTION_MS, run: run.id, language: run.language });
            });
            if (!dead && !lost && (await db.asServer((tx) => waitOnAction(tx, run.id, owner, action.id, clock())))) {
              emit({ event: 'run.waiting', runId: run.id, person: run.person, bot: run.bot, action: { id: action.id, verb: action.verb, question: action.question, expiresAtMs: action.expiresAtMs }, atMs: clock() });
            }
            return 'ended';
          }
          return {
            seq,
            body: {
              kind: 'tool',
              callId: decision.call.id,
              verb: decision.call.verb,
              input: decision.call.input,
              outcome: outcome.ok ? { ok: true, output: outcome.output } : { ok: false, error: outcome.error.code, message: outcome.error.sentence },
            },
            writeKey,
            spentUsd: 0,
          };
        }
      }
    }
  }

  return {
    start() {
      // Started again after a stop (not after a kill): it looks for work again.
      if (timer !== undefined || dead) return;
      stopping = false;
      timer = setInterval(() => {
        void poke().catch(() => undefined);
      }, settings.pollMs);
      void poke().catch(() => undefined);
    },
    poke,
    async stop() {
      stopping = true;
      clearInterval(timer);
      timer = undefined;
      await filling?.catch(() => undefined);
      await Promise.all([...active]);
    },
    kill() {
      dead = true;
      clearInterval(timer);
    },
    get active() {
      return active.size;
    },
  };
}
