/** A run and its steps as the worker and the decision between steps see them (rows of migration 016). */
import type { PersonKind } from '../person';
import type { Queryable } from '../db/queryable';

export type RunState = 'queued' | 'running' | 'waiting' | 'finished' | 'failed' | 'cancelled' | 'out_of_budget';

/** States a run does not leave. */
export const ENDED_STATES: ReadonlySet<RunState> = new Set(['finished', 'failed', 'cancelled', 'out_of_budget']);

/** One verb call as a model (or a script) asks for it. */
export interface AskedCall {
  /** The call's id in the conversation with the model (`call_…`); a tool step names it. */
  id: string;
  /** `<app>.<verb>`. */
  verb: string;
  input: unknown;
}

/** A verb call a run's script names, before it is asked for. */
export interface ScriptedCall {
  verb: string;
  input: unknown;
}

/**
 * "Go through my shopping list and remind me about each thing": a read, then `clause` once for each
 * item the read answered (`{item}` in it stands for the item), recognised as the person's words are.
 */
interface ScriptedEach {
  each: ScriptedCall;
  clause: string;
}

export type ScriptEntry = ScriptedCall | ScriptedEach;

/** What a run would start with: its stand-in script (null when a model decides) and its budget. */
export interface RunPlan {
  script: ScriptEntry[] | null;
  budget: Budget;
}

/** What a server hands the `tasks` app (`AppServices.runs`): how a bot takes work on. */
export interface RunServices {
  /**
   * The run `caller.bot` would start for the caller, asked `asked`: the one door every schedule and
   * long run a person makes passes. `people-only` when the bot's `work:` does not admit how the caller
   * is known (a bare cookie, unless it says anyone); undefined when the bot cannot take work on.
   */
  plan(caller: { bot: string; kind?: PersonKind; tx: Queryable }, asked: string): Promise<RunPlan | 'people-only' | undefined>;
  /** A run was just queued: the worker looks for it soon rather than at its next poll. */
  queued(): void;
  /** Most active schedules the whole site may keep (`CONFAB_SITE_SCHEDULES`). */
  siteSchedules: number;
}

export interface Budget {
  /** Most model and tool steps the run may take (saying the answer is not counted). */
  maxSteps: number;
  /** Most USD its model calls may cost. */
  maxSpendUsd: number;
  /** Longest it may run, in minutes, counted from when a worker first took it. */
  maxMinutes: number;
}

export interface Run extends Budget {
  id: string;
  person: string;
  bot: string;
  conversationKey: string | null;
  /** What was asked, in the person's words. */
  asked: string;
  /** The stand-in's script, when no model decides. */
  script: readonly ScriptEntry[] | null;
  /** The person's IANA zone when they asked, for the verbs it calls. */
  timeZone: string;
  /** The language the person asked in (its words are said in it); null: the bot's own. */
  language: string | null;
  /** The schedule that started it, if one did. */
  schedule: string | null;
  state: RunState;
  leaseOwner: string | null;
  /** ms since the epoch. */
  leaseUntilMs: number | null;
  answer: string | null;
  /** ms since the epoch; null until a worker first took it. */
  startedAtMs: number | null;
  createdAtMs: number;
}

/** What a tool step's verb call came to, as the model is told it. */
export type ToolOutcome = { ok: true; output: unknown } | { ok: false; error: string; message: string };

export type StepBody =
  | { kind: 'model'; model: string; text: string; toolCalls: readonly AskedCall[] }
  | { kind: 'tool'; callId: string; verb: string; input: unknown; outcome: ToolOutcome }
  | { kind: 'say'; text: string; ending: Ending };

export interface RunStep {
  /** 1, 2, 3… within the run. */
  seq: number;
  body: StepBody;
  /** The idempotency key a tool step's write used. */
  writeKey: string | null;
  /** USD this step cost (a model call's). */
  spentUsd: number;
}

/** How a run ended, as its last state. */
export type Ending = 'finished' | 'failed' | 'cancelled' | 'out_of_budget';
