/**
 * How long the conversation waits: for the first word of an answer, and for the person's yes or
 * no to an action that asks for one.
 */
import { PENDING_ACTION_MS } from '../../../common/acting/protocol';

/** Default patience for the first word of an answer, in milliseconds. */
export const ANSWER_PATIENCE_MS = 30_000;

/**
 * The least time a person is given to answer "…? Say yes or no.", in ms. The page's clock may
 * disagree with the server's, and the server decides when an action has expired (a late yes is
 * answered `expired`), so a clock running ahead must not cut the person off before they can speak.
 */
export const CONFIRM_PATIENCE_FLOOR_MS = 10_000;

/**
 * How long the person is given to answer a pending action received at `nowMs`: until it expires,
 * never more than `PENDING_ACTION_MS`, never less than `CONFIRM_PATIENCE_FLOOR_MS`.
 */
export function confirmPatienceMs(expiresAtMs: number, nowMs: number): number {
  return Math.min(PENDING_ACTION_MS, Math.max(CONFIRM_PATIENCE_FLOOR_MS, expiresAtMs - nowMs));
}
