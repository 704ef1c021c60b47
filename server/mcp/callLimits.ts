/**
 * What one MCP token may ask of the server at once, and the calls it has running.
 *
 * - **Calls per second**, per token over every instance: a token bucket, `maxCallsPerSecond` deep
 *   and refilled at that rate, kept in the database (`sharedCounts.ts`), so instances behind a load
 *   balancer share it; a call that finds it empty is refused `rate_limited` and never reaches the
 *   executor.
 * - **Calls in flight**, per token on this instance: at most `maxInFlightCalls`; the next is refused
 *   `server_busy`. This protects the one process running them — its executor, its memory, the
 *   signals a cancel reaches — so it is counted in this process's memory, and N instances run up to
 *   N times as many. It is asked first: a call counts from before the bucket is asked (so a cancel
 *   reaches it while it waits for the answer, and a flood past the cap is refused without a database
 *   round trip each or spending the rate) until the executor answers it — a write the client
 *   cancelled answers `cancelled` at once and stops counting, though it runs to completion (writes
 *   always do). A burst wider than the cap is therefore refused `server_busy` past it, whatever
 *   the bucket holds.
 * - **Cancelling**: each admitted call has an AbortSignal the executor is given; `cancel` aborts the
 *   token's calls with a JSON-RPC id (the 2025-era `notifications/cancelled` arrives as a request of
 *   its own over HTTP, so it is matched here by token and id) that run on this instance.
 *
 * Time is read from the clock given, so the refill is tested with a simulated one.
 */
import { ConfigError } from '../config';
import type { Database } from '../db/database';
import { countKey, takeFromBucket } from '../db/sharedCounts';
import { resolveOptions } from '../../common/options';
import type { Limits } from '../../common/options';

export interface McpLimits {
  /** `MCP_MAX_CALLS_PER_SECOND`: sustained rate and burst of `tools/call` per token, over every instance. Default 20 (1–1000). */
  maxCallsPerSecond: number;
  /** `MCP_MAX_IN_FLIGHT_CALLS`: `tools/call` running at once per token, on each instance. Default 16 (1–128). */
  maxInFlightCalls: number;
}

export const MCP_LIMIT_DEFAULTS: Readonly<McpLimits> = Object.freeze({ maxCallsPerSecond: 20, maxInFlightCalls: 16 });

/** The largest inbound MCP message, in bytes (fixed): 1 MiB. */
export const MCP_MESSAGE_BYTES_MAX = 1024 * 1024;

const LIMITS = {
  maxCallsPerSecond: { min: 1, max: 1000, whole: true },
  maxInFlightCalls: { min: 1, max: 128, whole: true },
} as const satisfies Limits<McpLimits>;

const ENV: Readonly<Record<keyof McpLimits, string>> = { maxCallsPerSecond: 'MCP_MAX_CALLS_PER_SECOND', maxInFlightCalls: 'MCP_MAX_IN_FLIGHT_CALLS' };

/** The limits the environment sets, each checked; a bad value stops the start, naming the variable. */
export function readMcpLimits(env: Record<string, string | undefined>): McpLimits {
  const read = (key: keyof McpLimits): number => {
    const name = ENV[key];
    const { min, max } = LIMITS[key];
    const given = env[name]?.trim();
    if (given === undefined || given === '') return MCP_LIMIT_DEFAULTS[key];
    const value = Number(given);
    if (!/^\d+$/.test(given) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new ConfigError(`${name} must be a whole number from ${min} to ${max}; unset it for the default, ${MCP_LIMIT_DEFAULTS[key]}.`);
    }
    return value;
  };
  return { maxCallsPerSecond: read('maxCallsPerSecond'), maxInFlightCalls: read('maxInFlightCalls') };
}

/** `limits` over the defaults, checked against the limits the environment is; throws `OptionError` (`mcp.<name>`). */
export function mcpLimitsOf(limits: Partial<McpLimits> = {}): McpLimits {
  return resolveOptions('mcp', MCP_LIMIT_DEFAULTS, limits, LIMITS);
}

export type Admission =
  | {
      ok: true;
      /** Aborted when the call is cancelled by id (`cancel`). */
      signal: AbortSignal;
      /** Call once the executor has answered. */
      release: () => void;
    }
  | { ok: false; code: 'rate_limited' | 'server_busy' };

export interface CallLimits {
  /** Admits one `tools/call` of `token` with JSON-RPC id `requestId`, or says why not. */
  admit(token: string, requestId: string | number): Promise<Admission>;
  /** Aborts `token`'s running calls with JSON-RPC id `requestId` on this instance; answers how many. */
  cancel(token: string, requestId: string | number): number;
  /** Calls running now for `token` on this instance. */
  inFlight(token: string): number;
}

/** A token's calls running on this instance, by JSON-RPC id; kept while it has any. */
interface Running {
  byId: Map<string, Set<AbortController>>;
  count: number;
}

export function createCallLimits(limits: McpLimits, clock: () => number, db: Database): CallLimits {
  const running = new Map<string, Running>();
  const perMs = limits.maxCallsPerSecond / 1000;

  return {
    async admit(token, requestId) {
      const mine = running.get(token) ?? { byId: new Map<string, Set<AbortController>>(), count: 0 };
      if (mine.count >= limits.maxInFlightCalls) return { ok: false, code: 'server_busy' };
      // Running from here, so a cancel that arrives while the bucket is asked reaches it.
      running.set(token, mine);
      mine.count += 1;
      const id = String(requestId);
      const controller = new AbortController();
      const same = mine.byId.get(id) ?? new Set<AbortController>();
      same.add(controller);
      mine.byId.set(id, same);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        mine.count -= 1;
        same.delete(controller);
        if (same.size === 0 && mine.byId.get(id) === same) mine.byId.delete(id);
        if (mine.count === 0 && running.get(token) === mine) running.delete(token);
      };
      let taken = false;
      try {
        taken = await db.asServer((tx) => takeFromBucket(tx, { key: countKey('mcp-calls', token), size: limits.maxCallsPerSecond, perMs, nowMs: clock() }));
      } finally {
        if (!taken) release();
      }
      return taken ? { ok: true, signal: controller.signal, release } : { ok: false, code: 'rate_limited' };
    },
    cancel(token, requestId) {
      const same = running.get(token)?.byId.get(String(requestId));
      if (same === undefined) return 0;
      for (const controller of same) controller.abort();
      return same.size;
    },
    inFlight: (token) => running.get(token)?.count ?? 0,
  };
}
