/**
 * What the voice part (the `tasks.*` verbs to come) calls: start a run, read how it is going as the
 * person, cancel it as the person. Reads and the cancel run in the person's own transaction, so row
 * level security confines them to their runs; only starting (an insert) is the server's.
 */
import type { Database } from '../db/database';
import type { Verb } from '../verbs/verb';
import { scriptFor } from './runModel';
import { cancelRun, insertRun, readRun, readSteps } from './runs';
import type { Budget, Run, RunStep } from './types';

export interface StartRun extends Budget {
  person: string;
  bot: string;
  conversationKey: string | null;
  /** What to do, in the person's words. */
  asked: string;
  /**
   * No model may be bought (no key, `AGENTS_LIVE` unset): the run carries the stand-in's script,
   * the verb calls `verbs`' phrasings recognise in `asked`, and is never bought whatever keys appear.
   */
  scripted: boolean;
  /** The verbs in the run's scope, for its script. */
  verbs: readonly Verb[];
}

/** Queues the run; a worker takes it from there. Answers its id; undefined when one is busy in that conversation. */
export function startRun(db: Database, start: StartRun, nowMs: number): Promise<string | undefined> {
  const script = start.scripted ? scriptFor(start.asked, start.verbs) : null;
  return db.asServer((tx) =>
    insertRun(tx, { person: start.person, bot: start.bot, conversationKey: start.conversationKey, asked: start.asked, script, maxSteps: start.maxSteps, maxSpendUsd: start.maxSpendUsd, maxMinutes: start.maxMinutes }, nowMs),
  );
}

/** The person's run and its steps; undefined when there is none of theirs with that id. */
export function runStatus(db: Database, person: string, id: string): Promise<{ run: Run; steps: RunStep[] } | undefined> {
  return db.asPerson(person, async (tx) => {
    const run = await readRun(tx, id);
    return run === undefined ? undefined : { run, steps: await readSteps(tx, id) };
  });
}

/** Cancels the person's run if it is not over; true when it was. A worker holding it stops before its next step. */
export function cancelOwnRun(db: Database, person: string, id: string, nowMs: number): Promise<boolean> {
  return db.asPerson(person, (tx) => cancelRun(tx, id, nowMs));
}
