/** Reading an executor's outcome in a test: the error it failed with, or the success it is. */
import { randomUUID } from 'node:crypto';
import type { VerbError } from '../../server/verbs/errors';
import type { Outcome } from '../../server/verbs/executor';

/** A fresh idempotency key. */
export const newKey = (): string => `key-${randomUUID()}`;

export function failed(outcome: Outcome): VerbError {
  if (outcome.ok) throw new Error(`Expected a failure, got ${JSON.stringify(outcome.output)}.`);
  return outcome.error;
}

export function succeeded(outcome: Outcome): Extract<Outcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`Expected success, got ${outcome.error.code}.`);
  return outcome;
}
