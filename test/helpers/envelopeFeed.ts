/**
 * Plays a run of levels into an echo gate on a simulated clock, for the gate's tests: one frame per
 * level, `frameMs` apart, starting one frame after the gate's last frame (or at `frameMs`).
 */
import { hearFrame } from '../../src/core/hearing/echoGate';
import { barOf } from '../../src/core/hearing/echoGateBar';
import type { EchoGateState } from '../../src/core/hearing/echoGateState';

export interface Played {
  state: EchoGateState;
  /** When each barge-in was reported, in milliseconds. */
  bargeIns: number[];
  /** The time of the last frame played. */
  atMs: number;
  /** The bar just before each frame, in order. */
  bars: number[];
}

export interface FeedOptions {
  /** Frame length in milliseconds. Default 10. */
  frameMs?: number;
  /** Whether the assistant is audible, for all frames or per frame. Default true. */
  audible?: boolean | ((index: number) => boolean);
}

export function feed(state: EchoGateState, levels: ArrayLike<number>, options: FeedOptions = {}): Played {
  const frameMs = options.frameMs ?? 10;
  const audible = options.audible ?? true;
  let atMs = state.lastAtMs ?? 0;
  let current = state;
  const bargeIns: number[] = [];
  const bars: number[] = [];
  for (let i = 0; i < levels.length; i++) {
    atMs += frameMs;
    bars.push(barOf(current));
    const next = hearFrame(current, {
      level: levels[i] ?? 0,
      atMs,
      assistantAudible: typeof audible === 'function' ? audible(i) : audible,
    });
    current = next.state;
    if (next.bargeIn) bargeIns.push(atMs);
  }
  return { state: current, bargeIns, atMs, bars };
}

/** `count` frames of one level. */
export function steady(level: number, count: number): number[] {
  return new Array<number>(count).fill(level);
}

/** Silence (a quiet room) for `ms` at 10 ms frames, with the assistant not audible. */
export function silence(state: EchoGateState, ms: number, level = 0.01): Played {
  return feed(state, steady(level, Math.round(ms / 10)), { audible: false });
}
