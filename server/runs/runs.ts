/**
 * The SQL of runs and their steps (migration 016), each function taking its connection first.
 * Times are passed in (ms since the epoch, from the caller's clock) rather than read with `now()`,
 * so a lease means the same thing to every instance's worker and to a test's clock.
 */
import type { Queryable } from '../db/queryable';
import { iso, msOf } from '../db/rows';
import type { Budget, Ending, Run, RunState, RunStep, ScriptEntry, StepBody } from './types';

interface RunRow {
  id: string;
  person: string;
  bot: string;
  conversation: string | null;
  asked: string;
  script: ScriptEntry[] | null;
  time_zone: string;
  language: string | null;
  schedule: string | null;
  max_steps: number;
  max_spend_usd: string | number;
  max_minutes: number;
  state: RunState;
  lease_owner: string | null;
  lease_until: Date | string | null;
  answer: string | null;
  started_at: Date | string | null;
  created_at: Date | string;
}

interface StepRow {
  seq: number;
  kind: StepBody['kind'];
  /** The step's body without its kind, as stored. */
  body: Record<string, unknown>;
  write_key: string | null;
  spent_usd: string | number;
}

const RUN_COLUMNS = 'id, person, bot, conversation, asked, script, time_zone, language, schedule, max_steps, max_spend_usd, max_minutes, state, lease_owner, lease_until, answer, started_at, created_at';

function runOf(row: RunRow): Run {
  return {
    id: row.id,
    person: row.person,
    bot: row.bot,
    conversationKey: row.conversation,
    asked: row.asked,
    script: row.script,
    timeZone: row.time_zone,
    language: row.language,
    schedule: row.schedule,
    maxSteps: row.max_steps,
    maxSpendUsd: Number(row.max_spend_usd),
    maxMinutes: row.max_minutes,
    state: row.state,
    leaseOwner: row.lease_owner,
    leaseUntilMs: msOf(row.lease_until),
    answer: row.answer,
    startedAtMs: msOf(row.started_at),
    createdAtMs: msOf(row.created_at),
  };
}

function stepOf(row: StepRow): RunStep {
  return { seq: row.seq, body: { ...row.body, kind: row.kind } as StepBody, writeKey: row.write_key, spentUsd: Number(row.spent_usd) };
}

export interface NewRun extends Budget {
  person: string;
  bot: string;
  conversationKey: string | null;
  asked: string;
  script: readonly ScriptEntry[] | null;
  /** Default UTC. */
  timeZone?: string;
  /** The language the person asked in; default: the bot's own. */
  language?: string;
  /** The schedule starting it (the server's insert only). */
  schedule?: string;
}

/**
 * Queues a run; answers its id, or undefined when one of the person's runs with that bot is busy in
 * that conversation (the `runs_one_busy` index: one at a time, whoever starts it). As the server, or
 * as the person in their own transaction (the `tasks.start` verb).
 */
export async function insertRun(tx: Queryable, run: NewRun, nowMs: number): Promise<string | undefined> {
  const { rows } = await tx.query<{ id: string }>(
    `insert into runs (person, bot, conversation, asked, script, max_steps, max_spend_usd, max_minutes, time_zone, language, ${run.schedule === undefined ? '' : 'schedule, '}created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ${run.schedule === undefined ? '' : '$12, '}$11, $11)
     on conflict (person, bot, coalesce(conversation, '')) where state in ('queued', 'running', 'waiting') do nothing
     returning id`,
    [
      run.person,
      run.bot,
      run.conversationKey,
      run.asked,
      run.script === null ? null : JSON.stringify(run.script),
      run.maxSteps,
      run.maxSpendUsd,
      run.maxMinutes,
      run.timeZone ?? 'UTC',
      run.language ?? null,
      iso(nowMs),
      ...(run.schedule === undefined ? [] : [run.schedule]),
    ],
  );
  return rows[0]?.id;
}

/** The person's latest run with `bot` in that conversation (any conversation when null), busy or not. As the person. */
export async function latestRun(tx: Queryable, bot: string, conversationKey: string | null): Promise<Run | undefined> {
  const { rows } = await tx.query<RunRow>(
    `select ${RUN_COLUMNS} from runs where bot = $1 and ($2::text is null or coalesce(conversation, '') = $2)
      order by (state in ('queued', 'running', 'waiting')) desc, created_at desc limit 1`,
    [bot, conversationKey],
  );
  const row = rows[0];
  return row === undefined ? undefined : runOf(row);
}

/**
 * Takes the oldest run that is queued, or running with a lease that lapsed before `nowMs`, for
 * `owner` until `leaseUntilMs`. `for update skip locked` keeps two instances over one Postgres
 * from taking the same row (PGlite is one session, whose transactions run one at a time, so there
 * it is the queue that decides); the update's own `where` says again what may be taken, so a row
 * that changed between the two is not.
 */
export async function claimRun(tx: Queryable, owner: string, nowMs: number, leaseUntilMs: number): Promise<Run | undefined> {
  const { rows } = await tx.query<RunRow>(
    `update runs set state = 'running', lease_owner = $1, lease_until = $3, started_at = coalesce(started_at, $2), updated_at = $2
      where id = (
        select id from runs
         where state = 'queued' or (state = 'running' and (lease_until is null or lease_until < $2))
         order by created_at, id
         limit 1
         for update skip locked)
        and (state = 'queued' or (state = 'running' and (lease_until is null or lease_until < $2)))
      returning ${RUN_COLUMNS}`,
    [owner, iso(nowMs), iso(leaseUntilMs)],
  );
  const row = rows[0];
  return row === undefined ? undefined : runOf(row);
}

/**
 * At a restart, the runs an earlier process of `instance` held (leases named `<instance>:…` other
 * than `owner`'s own) are let go at once, for `owner` to claim rather than wait out their leases;
 * answers how many. That process is gone: an instance id is one process's at a time.
 */
export async function takeBackLeases(tx: Queryable, instance: string, owner: string, nowMs: number): Promise<number> {
  const { rows } = await tx.query(
    `update runs set lease_until = null, updated_at = $3
      where state = 'running' and starts_with(lease_owner, $1 || ':') and lease_owner <> $2 returning id`,
    [instance, owner, iso(nowMs)],
  );
  return rows.length;
}

/**
 * Lets go of `owner`'s running run at a stop, its step in hand written: any instance may claim it at
 * once instead of waiting out the lease. A run that ended or waits for the person is left as it is.
 */
export async function letGoOfRun(tx: Queryable, id: string, owner: string, nowMs: number): Promise<void> {
  await tx.query("update runs set lease_until = null, updated_at = $3 where id = $1 and lease_owner = $2 and state = 'running'", [id, owner, iso(nowMs)]);
}

/** Extends `owner`'s lease; false when it is not theirs any more (taken by another after it lapsed). */
export async function renewLease(tx: Queryable, id: string, owner: string, nowMs: number, leaseUntilMs: number): Promise<boolean> {
  const { rows } = await tx.query('update runs set lease_until = $3, updated_at = $4 where id = $1 and lease_owner = $2 returning id', [id, owner, iso(leaseUntilMs), iso(nowMs)]);
  return rows.length > 0;
}

/** Everybody's runs, those not over first, then newest first, for the operator (`npm run admin`). As the server. */
export async function listAllRuns(tx: Queryable, limit = 100): Promise<Run[]> {
  const { rows } = await tx.query<RunRow>(
    `select ${RUN_COLUMNS} from runs order by (state in ('queued', 'running', 'waiting')) desc, created_at desc, id limit $1`,
    [limit],
  );
  return rows.map(runOf);
}

export async function readRun(tx: Queryable, id: string): Promise<Run | undefined> {
  const { rows } = await tx.query<RunRow>(`select ${RUN_COLUMNS} from runs where id = $1`, [id]);
  const row = rows[0];
  return row === undefined ? undefined : runOf(row);
}

export async function readSteps(tx: Queryable, id: string): Promise<RunStep[]> {
  const { rows } = await tx.query<StepRow>('select seq, kind, body, write_key, spent_usd from run_steps where run = $1 order by seq', [id]);
  return rows.map(stepOf);
}

/**
 * Writes step `seq` if `owner` still holds the run and no step `seq` is there yet; false
 * otherwise (the run was taken over, and this worker must stop without writing anything more).
 */
export async function writeStep(tx: Queryable, id: string, owner: string, step: RunStep, nowMs: number): Promise<boolean> {
  const { kind, ...body } = step.body;
  const { rows } = await tx.query(
    `insert into run_steps (run, seq, kind, body, write_key, spent_usd, created_at)
     select $1, $3, $4, $5, $6, $7, $8 where exists (select 1 from runs where id = $1 and lease_owner = $2)
     on conflict (run, seq) do nothing
     returning seq`,
    [id, owner, step.seq, kind, JSON.stringify(body), step.writeKey, step.spentUsd, iso(nowMs)],
  );
  return rows.length > 0;
}

/** Ends the run `owner` holds with `ending` and its sentence, and lets the lease go. A cancelled run stays cancelled. */
export async function endRun(tx: Queryable, id: string, owner: string, ending: Ending, answer: string, nowMs: number): Promise<boolean> {
  const { rows } = await tx.query(
    `update runs set state = case when state = 'cancelled' then 'cancelled' else $3 end, answer = $4, lease_owner = null, lease_until = null, updated_at = $5
      where id = $1 and lease_owner = $2 returning id`,
    [id, owner, ending, answer, iso(nowMs)],
  );
  return rows.length > 0;
}

/**
 * The person's cancel, in their own transaction (the policy allows nothing else): true when a run
 * of theirs that was not over is now cancelled. A worker holding it stops before its next step.
 */
export async function cancelRun(tx: Queryable, id: string, nowMs: number): Promise<boolean> {
  const { rows } = await tx.query("update runs set state = 'cancelled', updated_at = $2 where id = $1 and state in ('queued', 'running', 'waiting') returning id", [id, iso(nowMs)]);
  return rows.length > 0;
}

/** The run `owner` holds waits for the person's answer to `actionId`, held by nobody meanwhile. */
export async function waitOnAction(tx: Queryable, id: string, owner: string, actionId: string, nowMs: number): Promise<boolean> {
  const { rows } = await tx.query(
    `update runs set state = 'waiting', waiting_action = $3, lease_owner = null, lease_until = null, updated_at = $4
      where id = $1 and lease_owner = $2 and state = 'running' returning id`,
    [id, owner, actionId, iso(nowMs)],
  );
  return rows.length > 0;
}

/** Whether the run is waiting on `actionId` (not cancelled meanwhile, not answered already). */
export async function isWaitingOn(tx: Queryable, id: string, actionId: string): Promise<boolean> {
  const { rows } = await tx.query("select 1 from runs where id = $1 and state = 'waiting' and waiting_action = $2", [id, actionId]);
  return rows.length > 0;
}

/**
 * The answer to what the run waited on, written as its step, and the run queued again for a worker:
 * once (a run no longer waiting on `actionId` is left as it is). As the server.
 */
export async function resumeWaiting(tx: Queryable, id: string, actionId: string, step: RunStep, nowMs: number): Promise<boolean> {
  const { rows } = await tx.query(
    `update runs set state = 'queued', waiting_action = null, updated_at = $3 where id = $1 and state = 'waiting' and waiting_action = $2 returning id`,
    [id, actionId, iso(nowMs)],
  );
  if (rows.length === 0) return false;
  const { kind, ...body } = step.body;
  await tx.query(
    'insert into run_steps (run, seq, kind, body, write_key, spent_usd, created_at) values ($1, $2, $3, $4, $5, $6, $7) on conflict (run, seq) do nothing',
    [id, step.seq, kind, JSON.stringify(body), step.writeKey, step.spentUsd, iso(nowMs)],
  );
  return true;
}

/** Runs waiting on a question nobody answered before it lapsed at `nowMs`, with the action each waits on. */
export async function lapsedWaits(tx: Queryable, nowMs: number): Promise<{ id: string; actionId: string }[]> {
  const { rows } = await tx.query<{ id: string; action: string }>(
    `select r.id, r.waiting_action as action from runs r join pending_actions a on a.id = r.waiting_action
      where r.state = 'waiting' and a.state = 'pending' and a.expires_at <= $1 limit 20`,
    [iso(nowMs)],
  );
  return rows.map((row) => ({ id: row.id, actionId: row.action }));
}
