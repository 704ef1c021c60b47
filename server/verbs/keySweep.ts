/**
 * The sweep of idempotency keys: every `everyMs` the executor clears the keys and results of
 * writes recorded more than `IDEMPOTENCY_KEPT_MS` ago (a retry of their turn can no longer come),
 * measured by the backend's clock, so a test moves time rather than waiting for it.
 */
import { checkOption } from '../../common/options';
import type { Executor } from './executor';

/** How often the sweep runs, in ms: hourly, so a key lives at most an hour past its day. */
const KEY_SWEEP_EVERY_MS = 60 * 60 * 1000;

export interface KeySweepDeps {
  executor: Pick<Executor, 'sweepKeys'>;
  /** Now, in ms since the epoch. */
  clock: () => number;
  /** Default `KEY_SWEEP_EVERY_MS`. */
  everyMs?: number;
  /** Told of a sweep that failed (by the error's name only); the next one tries again. */
  log: (line: { event: 'keys.sweep-failed'; error: string }) => void;
}

export interface KeySweep {
  /** Sweeps once, now by the clock; answers how many keys were cleared. */
  sweep(): Promise<number>;
  /** Sweeps at once and then every `everyMs`; a second start changes nothing. */
  start(): void;
  /** Stops sweeping, once any sweep under way has ended. */
  close(): Promise<void>;
}

export function keySweep(deps: KeySweepDeps): KeySweep {
  const everyMs = checkOption('keySweep.everyMs', deps.everyMs ?? KEY_SWEEP_EVERY_MS, { over: 0 });
  let timer: ReturnType<typeof setInterval> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const sweep = () => deps.executor.sweepKeys(deps.clock());
  // A background sweep has no caller to reject to: a failure is logged, and the next one tries again
  // (what it would have cleared stays one more interval, which costs a retry nothing).
  const tick = () => {
    running = sweep().catch((error: unknown) => {
      deps.log({ event: 'keys.sweep-failed', error: error instanceof Error ? error.name : typeof error });
    });
  };
  return {
    sweep,
    start() {
      if (timer !== undefined) return;
      tick();
      timer = setInterval(tick, everyMs);
      // The sweep never keeps the process alive by itself.
      timer.unref();
    },
    async close() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
