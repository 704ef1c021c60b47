/**
 * The model steps of a turn, kept under its turn key so a retry replays them (migration 024). Run
 * `claimStep` and `recordedStep` in the person's transaction (`asPerson`); `sweepTurnSteps` as the
 * server.
 */
import type { Database } from './database';
import type { Queryable } from './queryable';
import { iso, jsonOf } from './rows';

/** One tool call as the model asked for it: its id, the verb's tool name, its arguments as sent. */
interface StepCall {
  id: string;
  name: string;
  arguments: string;
}

/** What one model step said and asked for. */
export interface TurnStep {
  text: string;
  toolCalls: StepCall[];
}

interface StepRow {
  text: string;
  tool_calls: unknown;
}

function stepOf(row: StepRow): TurnStep {
  const calls = jsonOf(row.tool_calls);
  return { text: row.text, toolCalls: Array.isArray(calls) ? (calls as StepCall[]) : [] };
}

/** Step `step` of the turn as recorded, or undefined when no try of the turn has finished it yet. */
async function recordedStep(tx: Queryable, turn: { person: string; turnKey: string; step: number }): Promise<TurnStep | undefined> {
  const { rows } = await tx.query<StepRow>('select text, tool_calls from turn_steps where person = $1 and turn_key = $2 and step = $3', [turn.person, turn.turnKey, turn.step]);
  const row = rows[0];
  return row === undefined ? undefined : stepOf(row);
}

/** A step as recorded, and whether this try recorded it (`mine`) or an earlier try of the turn had. */
export interface ClaimedStep extends TurnStep {
  mine: boolean;
}

/**
 * Records `said` as step `step` of the turn at `nowMs`, unless a try of it recorded that step first;
 * answers the step as recorded — the first try's, whichever try asks.
 */
async function claimStep(tx: Queryable, turn: { person: string; turnKey: string; step: number }, said: TurnStep, nowMs: number): Promise<ClaimedStep> {
  const { rows } = await tx.query<StepRow>(
    `insert into turn_steps (person, turn_key, step, text, tool_calls, created_at) values ($1, $2, $3, $4, $5, $6)
     on conflict (person, turn_key, step) do nothing
     returning text, tool_calls`,
    [turn.person, turn.turnKey, turn.step, said.text, JSON.stringify(said.toolCalls), iso(nowMs)],
  );
  const mine = rows[0];
  if (mine !== undefined) return { ...stepOf(mine), mine: true };
  const earlier = await recordedStep(tx, turn);
  return earlier === undefined ? { ...said, mine: true } : { ...earlier, mine: false };
}

/** Clears every turn's steps, and the memories it forgot, recorded before `beforeMs`; answers how many steps went. Server only. */
export async function sweepTurnSteps(tx: Queryable, beforeMs: number): Promise<number> {
  const before = iso(beforeMs);
  await tx.query('delete from turn_forgets where created_at < $1', [before]);
  const { rows } = await tx.query<{ n: number }>('with swept as (delete from turn_steps where created_at < $1 returning 1) select count(*)::int as n from swept', [before]);
  return rows[0]?.n ?? 0;
}

/** The steps of one turn of `person`'s, kept at the clock's now, each claim and each read its own transaction. */
export function turnStepStore(
  db: Database,
  person: string,
  turnKey: string,
  clock: () => number,
): { claim: (step: number, said: TurnStep) => Promise<ClaimedStep>; recorded: (step: number) => Promise<TurnStep | undefined> } {
  return {
    claim: (step, said) => db.asPerson(person, (tx) => claimStep(tx, { person, turnKey, step }, said, clock())),
    recorded: (step) => db.asPerson(person, (tx) => recordedStep(tx, { person, turnKey, step })),
  };
}
