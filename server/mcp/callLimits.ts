/**
 * What one MCP token may ask of the server at once, and the calls it has running.
 *
 * - **Calls per second**: a token bucket per token, `maxCallsPerSecond` deep and refilled at that
 *   rate; a call that finds it empty is refused `rate_limited` and never reaches the executor.
 * - **Calls in flight**: at most `maxInFlightCalls` per token; the next is refused `server_busy`.
 *   A call counts until the executor answers it — a write the client cancelled answers `cancelled`
 *   at once and stops counting, though it runs to completion (writes always do).
 * - **Cancelling**: each admitted call has an AbortSignal the executor is given; `cancel` aborts the
 *   token's calls with a JSON-RPC id (the 2025-era `notifications/cancelled` arrives as a request of
 *   its own over HTTP, so it is matched here by token and id).
 *
 * The state is this process's: behind a load balancer, each server instance counts its own.
 * Time is read from the clock given, so the refill is tested with a simulated one.
 */
import { ConfigError } from '../config';
import { resolveOptions } from '../../common/options';
import type { Limits } from '../../common/options';

export interface McpLimits {
  /** `MCP_MAX_CALLS_PER_SECOND`: sustained rate and burst of `tools/call` per token. Default 20 (1–1000). */
  maxCallsPerSecond: number;
  /** `MCP_MAX_IN_FLIGHT_CALLS`: `tools/call` running at once per token. Default 16 (1–128). */
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
  admit(token: string, requestId: string | number): Admission;
  /** Aborts `token`'s running calls with JSON-RPC id `requestId`; answers how many. */
  cancel(token: string, requestId: string | number): number;
  /** Calls running now for `token`. */
  inFlight(token: string): number;
}

interface TokenState {
  /** Calls the bucket holds now (fractional while refilling). */
  tokens: number;
  /** When `tokens` was last brought up to date, in ms. */
  atMs: number;
  running: Map<string, Set<AbortController>>;
  count: number;
}

/** Past this many tokens seen, idle ones (full bucket, nothing running) are forgotten. */
const KEPT_TOKENS = 1000;

export function createCallLimits(limits: McpLimits, clock: () => number): CallLimits {
  const states = new Map<string, TokenState>();
  const perMs = limits.maxCallsPerSecond / 1000;

  function stateOf(token: string, nowMs: number): TokenState {
    let state = states.get(token);
    if (state === undefined) {
      if (states.size >= KEPT_TOKENS) forgetIdle(nowMs);
      state = { tokens: limits.maxCallsPerSecond, atMs: nowMs, running: new Map(), count: 0 };
      states.set(token, state);
    }
    state.tokens = Math.min(limits.maxCallsPerSecond, state.tokens + Math.max(0, nowMs - state.atMs) * perMs);
    state.atMs = nowMs;
    return state;
  }

  function forgetIdle(nowMs: number): void {
    for (const [token, state] of states) {
      const full = state.tokens + Math.max(0, nowMs - state.atMs) * perMs >= limits.maxCallsPerSecond;
      if (state.count === 0 && full) states.delete(token);
    }
  }

  return {
    admit(token, requestId) {
      const state = stateOf(token, clock());
      if (state.count >= limits.maxInFlightCalls) return { ok: false, code: 'server_busy' };
      if (state.tokens < 1) return { ok: false, code: 'rate_limited' };
      state.tokens -= 1;
      state.count += 1;
      const id = String(requestId);
      const controller = new AbortController();
      const same = state.running.get(id) ?? new Set<AbortController>();
      same.add(controller);
      state.running.set(id, same);
      let released = false;
      return {
        ok: true,
        signal: controller.signal,
        release: () => {
          if (released) return;
          released = true;
          state.count -= 1;
          same.delete(controller);
          if (same.size === 0 && state.running.get(id) === same) state.running.delete(id);
        },
      };
    },
    cancel(token, requestId) {
      const same = states.get(token)?.running.get(String(requestId));
      if (same === undefined) return 0;
      for (const controller of same) controller.abort();
      return same.size;
    },
    inFlight: (token) => states.get(token)?.count ?? 0,
  };
}
