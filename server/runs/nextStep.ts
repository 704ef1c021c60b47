/**
 * The decision between steps: given a run, the steps it has written, now, and what it has spent,
 * what happens next. Pure, so the awkward cases (cancelled after the model asked for a tool and
 * before it ran; a tool just run; the budget spent mid-way) are ordinary inputs to a test rather
 * than timings to arrange. The worker does what it answers, one step at a time.
 *
 * In order: a cancelled run stops (no tool the model asked for runs after that); a run whose last
 * step said its answer is finished; a model that answered in words has its words said (saying is
 * not a step the budget counts, so an answer already bought is never thrown away); then the
 * budget — steps, money, minutes; then the next tool the model asked for and has not been run, or
 * else the model again.
 */
import type { AskedCall, Run, RunStep } from './types';

export type Decision =
  | { next: 'cancelled' }
  | { next: 'finished'; answer: string }
  | { next: 'out_of_steps' }
  | { next: 'out_of_money' }
  | { next: 'out_of_time' }
  | { next: 'call_model' }
  | { next: 'run_tool'; call: AskedCall }
  | { next: 'say'; text: string };

export interface DecisionInput {
  run: Pick<Run, 'state' | 'maxSteps' | 'maxSpendUsd' | 'maxMinutes' | 'startedAtMs'>;
  /** Its steps so far, in `seq` order. */
  steps: readonly RunStep[];
  /** ms since the epoch. */
  nowMs: number;
  /** USD its steps have cost so far. */
  spentUsd: number;
}

export function nextStep({ run, steps, nowMs, spentUsd }: DecisionInput): Decision {
  if (run.state === 'cancelled') return { next: 'cancelled' };
  const last = steps.at(-1);
  if (last?.body.kind === 'say') return { next: 'finished', answer: last.body.text };
  // The model's last word, and the tools run since it.
  const lastModelAt = steps.findLastIndex((step) => step.body.kind === 'model');
  const lastModel = steps[lastModelAt]?.body;
  const asked = lastModel?.kind === 'model' ? lastModel.toolCalls : [];
  if (lastModel?.kind === 'model' && asked.length === 0 && lastModelAt === steps.length - 1) return { next: 'say', text: lastModel.text };

  const taken = steps.filter((step) => step.body.kind !== 'say').length;
  if (taken >= run.maxSteps) return { next: 'out_of_steps' };
  if (spentUsd >= run.maxSpendUsd) return { next: 'out_of_money' };
  if (run.startedAtMs !== null && nowMs - run.startedAtMs >= run.maxMinutes * 60_000) return { next: 'out_of_time' };

  const ran = new Set(steps.slice(lastModelAt + 1).flatMap((step) => (step.body.kind === 'tool' ? [step.body.callId] : [])));
  const pending = asked.find((call) => !ran.has(call.id));
  if (pending !== undefined) return { next: 'run_tool', call: pending };
  return { next: 'call_model' };
}
