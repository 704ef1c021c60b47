/**
 * A bot's wake as the page shows it (`GET /api/wakes`, `server/runs/wakes.ts`): what the person is
 * asked, what is said of it once allowed, and how they have answered.
 */
import { isRecord } from './isRecord';

/** How a person has answered a wake: not yet, allowed (it runs for them), or not (not now, or stopped). */
export type WakeState = 'ask' | 'allowed' | 'declined';

export interface ShownWake {
  /** Names it when it is answered. */
  wake: string;
  state: WakeState;
  /** "Sage can speak first every weekday at 8 am — allow?", in the person's zone and language. */
  question: string;
  /** "Sage speaks first every weekday at 8 am." */
  said: string;
}

const STATES: readonly string[] = ['ask', 'allowed', 'declined'] satisfies WakeState[];

export function isShownWake(value: unknown): value is ShownWake {
  return isRecord(value) && typeof value.wake === 'string' && typeof value.state === 'string' && STATES.includes(value.state) && typeof value.question === 'string' && typeof value.said === 'string';
}
