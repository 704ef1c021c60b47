/**
 * A clock whose time moves only when the test says, for the page's schedulers (`NoticeClock`,
 * `PresenceClock`): `after` keeps its timers, `advance` runs the due ones in time order.
 */

/** The clock's `nowMs` and `after`, with the test's controls. */
export interface ManualClock {
  /** Now, in ms since the epoch. */
  nowMs(): number;
  /** Calls `run` after `delayMs`; answers a way to cancel it. */
  after(delayMs: number, run: () => void): () => void;
  /** Moves time on by `ms`, running each timer due by then at its own time and flushing after it. */
  advance(ms: number): Promise<void>;
  /** How many timers wait. */
  readonly timers: number;
}

/**
 * A manual clock starting at `startMs`; `flush` is the test's own wait for promises to settle,
 * awaited after each timer runs and once more at the end of an advance.
 */
export function manualClock(flush: () => Promise<void>, startMs = 1_000_000): ManualClock {
  let now = startMs;
  let nextId = 0;
  const timers = new Map<number, { atMs: number; run: () => void }>();
  return {
    nowMs: () => now,
    after(delayMs, run) {
      const id = nextId++;
      timers.set(id, { atMs: now + delayMs, run });
      return () => timers.delete(id);
    },
    async advance(ms) {
      const until = now + ms;
      for (;;) {
        const next = [...timers.entries()].filter(([, t]) => t.atMs <= until).sort((a, b) => a[1].atMs - b[1].atMs)[0];
        if (next === undefined) break;
        timers.delete(next[0]);
        now = next[1].atMs;
        next[1].run();
        await flush();
      }
      now = until;
      await flush();
    },
    get timers() {
      return timers.size;
    },
  };
}
