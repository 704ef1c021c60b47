/**
 * Work that outlives a turn, in one server instance: the worker that takes runs one step at a time,
 * the clock that starts a schedule's run at each occurrence, the services the `tasks` app uses to
 * start one, and what a run tells the person — its progress into their presence window (said by the
 * active page between turns), what it came to as a notice (said once, on the page open now or on the
 * next visit). Every instance over one database runs one of these; the rows are the queue.
 */
import { admits } from '../audience';
import { keptOnDevices } from '../people/people';
import type { Bot } from '../bots';
import { BASE_LANGUAGE } from '../words/loadWords';
import { say } from '../words/words';
import type { Words } from '../words/words';
import type { SpendLedger } from '../chat/admission';
import { admitSpend } from '../chat/admission';
import type { Database } from '../db/database';
import { scheduleNotice } from '../db/notices';
import type { WindowEvent } from '../../common/presence/protocol';
import type { Executor } from '../verbs/executor';
import type { Registry } from '../verbs/registry';
import { scopeOf } from '../verbs/scope';
import type { Verb } from '../verbs/verb';
import { firing } from './recurrence';
import { scriptFor, scriptedModel } from './runModel';
import type { Gate } from '../gate';
import { spentOn } from '../gate';
import { STAND_IN } from '../chat/doorTypes';
import type { RunModel } from './runModel';
import { isWaitingOn, insertRun, lapsedWaits, readRun, readSteps, resumeWaiting } from './runs';
import { nextStep } from './nextStep';
import type { PendingAction } from '../verbs/pendingActions';
import { dueSchedules, moveClock } from './schedules';
import { DAY_MS, IDLE_DAYS_DEFAULT, markSeen } from './seen';
import type { Budget, RunPlan, RunServices, ToolOutcome } from './types';
import { RunRefused, createWorker } from './worker';
import type { RunEvent, Worker } from './worker';

/** A run's budget beside its bot's per-answer limits: more steps, minutes and money than one answer. */
const RUN_BUDGET = Object.freeze({
  /** Most model and tool steps. */
  maxSteps: 40,
  /** Longest it may run, from its first step. */
  maxMinutes: 30,
  /** Its spend as so many of the bot's per-answer spend. */
  answersOfSpend: 10,
});

/** `CONFAB_SITE_SCHEDULES`' default: most active schedules the whole site keeps. */
const SITE_SCHEDULES_DEFAULT = 1000;

/** How often schedules are looked at, in ms. */
const SCHEDULE_LOOK_MS = 15_000;

/** The app whose notices carry what runs came to. */
const NOTICE_APP = 'tasks';

export interface RunServiceDeps {
  db: Database;
  executor: Executor;
  registry: Registry;
  bots: ReadonlyMap<string, Bot>;
  /** The words the bot called `slug` says in Confab's own name, in `language` (null: the bot's own). */
  wordsForBot: (slug: string, language: string | null) => Words;
  /** No model may be bought: runs carry the stand-in's script. */
  scripted: boolean;
  /** The model for runs that carry no script, before metering. */
  model?: RunModel;
  /** Each model call of a run is reserved and settled here, under the person's and the site's ceilings. */
  ledger?: SpendLedger;
  /**
   * The one gate (`server/gate.ts`): each model step (`runStep`) and each schedule's firing
   * (`scheduleFiring`) is admitted there, as background work; in place of `ledger` when given.
   */
  gate?: Pick<Gate, 'admit' | 'admitIn'>;
  /** Whether the price table knows `model` (an unpriced model's cost is 0 without being free). */
  priced?: (model: string) => boolean;
  publish: (person: string, bot: string, events: readonly WindowEvent[]) => Promise<unknown>;
  /** This instance's name on the leases it holds. */
  owner: string;
  /**
   * The instance's own id, kept across restarts (`instanceId`): leases held under it by an earlier
   * process of this instance are taken back at start rather than waited out. Default: none.
   */
  instance?: string;
  /** Days a person may go unseen before their schedules pause (`CONFAB_IDLE_DAYS`). Default `IDLE_DAYS_DEFAULT`. */
  idleDays?: number;
  /** Most active schedules on the site (`CONFAB_SITE_SCHEDULES`). Default `SITE_SCHEDULES_DEFAULT`. */
  siteSchedules?: number;
  clock: () => number;
  /** Worker timings (tests shorten them). */
  leaseMs?: number;
  pollMs?: number;
  scheduleLookMs?: number;
  /** How long a scripted run's model step takes, in ms, as a model's would (tests: 0). Default 600. */
  scriptedStepMs?: number;
  log?: (line: { event: 'runs.failed'; what: string; error: string }) => void;
}

/** A pending action as a run sees it: its id, and the run waiting on it. */
type AskedOfRun = Pick<PendingAction, 'id' | 'run'>;

/** What the confirmation route tells a run that asked: whether it still asks, and the person's answer. */
export interface RunAnswers {
  /** Whether the run still waits on `action` (not cancelled meanwhile): if not, the question is closed. */
  stillAsked(action: AskedOfRun): Promise<boolean>;
  /** The answer, written as the run's step; the run is queued again. */
  answered(action: AskedOfRun, outcome: ToolOutcome, writeKey: string | null): Promise<void>;
}

export interface RunService {
  services: RunServices;
  answers: RunAnswers;
  worker: Worker;
  /** Looks at the schedules now: each due one starts its run. */
  lookAtSchedules(): Promise<void>;
  /**
   * The person is seen (a grant minted for them, for `bot`): if their schedules were paused while
   * they were away, they are told so by a notice on `bot`'s page — the schedules run again from now.
   */
  seen(person: string, bot: string): Promise<void>;
  start(): void;
  /** Stops between steps; leases lapse for another instance to carry on. */
  stop(): Promise<void>;
}

export function runService(deps: RunServiceDeps): RunService {
  const log = deps.log ?? ((line) => { console.error(JSON.stringify(line)); });
  // A run does not start runs or open skills: those verbs are kept out before the cap, not after.
  const notInRuns = new Set(deps.registry.verbs.filter((verb) => verb.name.startsWith(`${NOTICE_APP}.`) || verb.name.startsWith('skills.')).map((verb) => verb.name));
  const verbsOf = (bot: Bot | undefined): Verb[] =>
    bot === undefined ? [] : scopeOf(deps.registry, { botApps: bot.apps, recentApps: [], hidden: notInRuns }).verbs.map((s) => s.verb);

  function plan(slug: string, asked: string): RunPlan | undefined {
    const bot = deps.bots.get(slug);
    if (bot === undefined) return undefined;
    const budget: Budget = { maxSteps: RUN_BUDGET.maxSteps, maxMinutes: RUN_BUDGET.maxMinutes, maxSpendUsd: bot.limits.spend * RUN_BUDGET.answersOfSpend };
    return { script: deps.scripted ? scriptFor(asked, verbsOf(bot)) : null, budget };
  }

  /** What a person may start: only what the bot's `work:` admits them to (a schedule's firing was admitted when it was made). */
  const planFor: RunServices['plan'] = async (caller, asked) => {
    const bot = deps.bots.get(caller.bot);
    if (bot === undefined) return undefined;
    // A grant minted before its person made a passkey still says cookie: the database says what they are now.
    const kind = caller.kind === undefined || caller.kind === 'cookie' ? ((await keptOnDevices(caller.tx)) ? 'passkey' : 'cookie') : caller.kind;
    if (!admits(bot.work, { kind, owner: false, name: null })) return 'people-only';
    return plan(caller.bot, asked);
  };

  const stepMs = deps.scriptedStepMs ?? 600;
  const pokeSoon = () => {
    // After the transaction that queued it has committed.
    setTimeout(() => void worker.poke().catch(() => undefined), 50);
  };
  const worker = createWorker({
    db: deps.db,
    executor: deps.executor,
    verbsFor: (run) => verbsOf(deps.bots.get(run.bot)),
    wordsFor: (run) => deps.wordsForBot(run.bot, run.language),
    languageFor: (run) => run.language ?? deps.bots.get(run.bot)?.voice.language ?? BASE_LANGUAGE,
    ...(deps.model === undefined ? {} : { model: metered(deps.model, true) }),
    scripted: metered(scriptedModel, false),
    owner: deps.owner,
    ...(deps.instance === undefined ? {} : { instance: deps.instance }),
    clock: deps.clock,
    ...(deps.leaseMs === undefined ? {} : { leaseMs: deps.leaseMs }),
    ...(deps.pollMs === undefined ? {} : { pollMs: deps.pollMs }),
    ...(stepMs > 0 ? { scriptedStepMs: stepMs } : {}),
    onEvent: (event) => {
      void tell(event).catch((error: unknown) => {
        log({ event: 'runs.failed', what: 'telling', error: error instanceof Error ? error.name : 'unknown' });
      });
    },
  });

  /**
   * A run's model calls under the ceilings: each admitted by the one gate (`runStep`, background
   * work) before it is asked, settled once it has answered. `siteKeys`: a provider's model, bought
   * only with AGENTS_LIVE=1; the stand-in's script is not, but is still held to the windows.
   */
  function metered(model: RunModel, siteKeys: boolean): RunModel {
    const ledger = deps.ledger;
    const gate = deps.gate;
    if (ledger === undefined && gate === undefined) return model;
    return {
      async reply(run, steps, verbs, signal, speech) {
        const bot = deps.bots.get(run.bot);
        if (bot === undefined) throw new Error(`No bot ${run.bot}.`);
        const spent = steps.reduce((sum, step) => sum + step.spentUsd, 0);
        const ask = {
          person: run.person,
          bot: run.bot,
          limits: bot.limits,
          spendHoldUsd: siteKeys ? Math.max(0, Math.min(bot.limits.spend, run.maxSpendUsd - spent)) : 0,
          spendHoldMs: bot.limits.minutes * 60_000,
          nowMs: deps.clock(),
        };
        const admission = gate !== undefined ? await gate.admit({ kind: 'runStep', siteKeys, ...ask }) : await admitSpend(ledger as SpendLedger, ask);
        if (!admission.ok) throw new RunRefused(admission.sentence);
        try {
          const reply = await model.reply(run, steps, verbs, signal, speech);
          await admission.settle({ provider: reply.provider ?? (siteKeys ? null : STAND_IN), model: reply.model, ended: 'stop', estimated: false, costUsd: reply.spentUsd, priced: deps.priced?.(reply.model) ?? true, nowMs: deps.clock(), promptTokens: reply.usage?.promptTokens ?? 0, completionTokens: reply.usage?.completionTokens ?? 0 });
          return reply;
        } catch (error) {
          if (!admission.settled) await admission.settle({ provider: null, model: null, ended: 'failed', estimated: false, costUsd: 0, priced: true, nowMs: deps.clock(), promptTokens: 0, completionTokens: 0 });
          throw error;
        }
      },
    };
  }

  /** What a run's event tells the person: progress into the window; the ending as a notice, then a word to fetch it. */
  async function tell(event: RunEvent): Promise<void> {
    if (event.event === 'run.waiting') {
      await deps.publish(event.person, event.bot, [{ kind: 'run', run: event.runId, sentence: event.action.question, ended: false, ask: event.action }]);
    } else if (event.event === 'run.step') {
      const sentence = event.kind === 'model' ? (event.phase ?? null) : event.kind === 'tool' && event.ok === true ? progress(deps.wordsForBot(event.bot, event.language), event.toolSteps ?? 1) : null;
      if (sentence !== null) await deps.publish(event.person, event.bot, [{ kind: 'run', run: event.runId, sentence, ended: false }]);
    } else if (event.event === 'run.ended') {
      await deps.db.asPerson(event.person, (tx) => scheduleNotice(tx, { person: event.person, bot: event.bot, app: NOTICE_APP, text: event.answer, dueAtMs: event.atMs }));
      await deps.publish(event.person, event.bot, [{ kind: 'run', run: event.runId, sentence: null, ended: true }]);
    }
  }

  const answers: RunAnswers = {
    async stillAsked(action) {
      return action.run != null && (await deps.db.asServer((tx) => isWaitingOn(tx, action.run as string, action.id)));
    },
    async answered(action, outcome, writeKey) {
      const runId = action.run;
      if (runId == null) return;
      const nowMs = deps.clock();
      const resumed = await deps.db.asServer(async (tx) => {
        const run = await readRun(tx, runId);
        if (run === undefined) return false;
        const steps = await readSteps(tx, runId);
        const spentUsd = steps.reduce((sum, step) => sum + step.spentUsd, 0);
        // The call it waited on is the one the decision would run next, were it running.
        const decision = nextStep({ run: { ...run, state: 'running' }, steps, nowMs, spentUsd });
        if (decision.next !== 'run_tool') return false;
        const body = { kind: 'tool' as const, callId: decision.call.id, verb: decision.call.verb, input: decision.call.input, outcome };
        return resumeWaiting(tx, runId, action.id, { seq: steps.length + 1, body, writeKey, spentUsd: 0 }, nowMs);
      });
      if (resumed) pokeSoon();
    },
  };

  /** Runs whose question lapsed unanswered go on without that call, saying so. */
  async function lookAtLapsedQuestions(): Promise<void> {
    const lapsed = await deps.db.asServer((tx) => lapsedWaits(tx, deps.clock()));
    for (const { id, actionId } of lapsed) {
      const action: AskedOfRun = { id: actionId, run: id };
      const run = await deps.db.asServer((tx) => readRun(tx, id));
      await answers.answered(action, { ok: false, error: 'expired', message: say(deps.wordsForBot(run?.bot ?? '', run?.language ?? null), 'runs.unanswered') }, null);
    }
  }

  const idleMs = (deps.idleDays ?? IDLE_DAYS_DEFAULT) * DAY_MS;

  async function seen(person: string, bot: string): Promise<void> {
    const nowMs = deps.clock();
    const pausedAtMs = await deps.db.asServer((tx) => markSeen(tx, person, nowMs));
    if (pausedAtMs === null) return;
    const text = say(deps.wordsForBot(bot, null), 'runs.paused-while-away');
    await deps.db.asPerson(person, (tx) => scheduleNotice(tx, { person, bot, app: NOTICE_APP, text, dueAtMs: nowMs }));
  }

  async function lookAtSchedules(): Promise<void> {
    await lookAtLapsedQuestions();
    const nowMs = deps.clock();
    const started = await deps.db.asServer(async (tx) => {
      let any = false;
      for (const schedule of await dueSchedules(tx, nowMs, { idleMs })) {
        // A wake its bot's file no longer declares (changed or removed) was allowed as it was: it is over.
        if (schedule.wake !== null && deps.bots.get(schedule.bot)?.hears?.some((wake) => wake.key === schedule.wake) !== true) {
          await moveClock(tx, schedule.id, null, null);
          continue;
        }
        const look = firing(schedule.recurrence, schedule.nextAtMs, nowMs);
        if (look.fire) {
          const planned = plan(schedule.bot, schedule.asked);
          // A run still busy in that conversation: this occurrence passes, the next one fires.
          // A firing is admitted by the one gate, in this transaction: refused (the person's or the
          // background's windows are full), this occurrence passes, and the next one is looked at.
          const bot = deps.bots.get(schedule.bot);
          const fired =
            planned === undefined || bot === undefined || deps.gate === undefined
              ? undefined
              : await deps.gate.admitIn(tx, { kind: 'scheduleFiring', person: schedule.person, bot: schedule.bot, limits: bot.limits, spendHoldUsd: 0, spendHoldMs: 0, siteKeys: false, nowMs });
          if (fired !== undefined && !fired.ok) log({ event: 'runs.failed', what: `schedule refused by ${fired.by}`, error: 'refused' });
          if (planned !== undefined && fired?.ok !== false) {
            await fired?.settle(spentOn('schedule', 'firing', 0, nowMs));
            const id = await insertRun(
              tx,
              { person: schedule.person, bot: schedule.bot, conversationKey: schedule.conversationKey, asked: schedule.asked, script: planned.script, timeZone: schedule.recurrence.zone, ...(schedule.language === null ? {} : { language: schedule.language }), schedule: schedule.id, ...planned.budget },
              nowMs,
            );
            any ||= id !== undefined;
          }
        }
        await moveClock(tx, schedule.id, look.nextAtMs, look.fire ? nowMs : null);
      }
      return any;
    });
    if (started) void worker.poke().catch(() => undefined);
  }

  let scheduleTimer: ReturnType<typeof setInterval> | undefined;
  return {
    services: { plan: planFor, queued: pokeSoon, siteSchedules: deps.siteSchedules ?? SITE_SCHEDULES_DEFAULT },
    answers,
    worker,
    lookAtSchedules,
    seen,
    start() {
      worker.start();
      const look = () => void lookAtSchedules().catch((error: unknown) => {
        log({ event: 'runs.failed', what: 'schedules', error: error instanceof Error ? error.name : 'unknown' });
      });
      look();
      scheduleTimer = setInterval(look, deps.scheduleLookMs ?? SCHEDULE_LOOK_MS);
    },
    async stop() {
      clearInterval(scheduleTimer);
      await worker.stop();
    },
  };
}

/** "I'm still on it: 2 steps done so far.", in `words`' language. */
function progress(words: Words, toolSteps: number): string {
  return toolSteps === 1 ? say(words, 'runs.progress-one') : say(words, 'runs.progress', { n: String(toolSteps) });
}

