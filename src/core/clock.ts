/**
 * The one clock a conversation reads time from and sets its timers on: the frames' clock on the page
 * (the AudioContext's, `src/platform/audio/audioClock.ts`), a simulated one in tests (xstate's
 * `SimulatedClock` is one). Its timers are the machine's `after` delays and yielding's ticks; its
 * `now` is what yielding's rulings are timed by, on the same scale as the frames' `atMs`.
 */
export interface Clock {
  /** Now, in ms, on the frames' scale. */
  now(): number;
  setTimeout(run: () => void, delayMs: number): unknown;
  clearTimeout(id: unknown): void;
}
