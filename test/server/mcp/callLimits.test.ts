import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/config';
import { createCallLimits, MCP_LIMIT_DEFAULTS, mcpLimitsOf, readMcpLimits } from '../../../server/mcp/callLimits';

/** A clock the test moves by hand, in ms. */
function simulatedClock(startMs = 1_000_000) {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms: number) => (nowMs += ms) };
}

describe('calls per second, per token', () => {
  it('admits a burst as deep as the rate, then refuses rate_limited until the bucket refills', () => {
    const clock = simulatedClock();
    const calls = createCallLimits({ maxCallsPerSecond: 4, maxInFlightCalls: 100 }, clock.now);
    const outcomes = Array.from({ length: 6 }, (_, i) => calls.admit('t', i));
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.code))).toEqual(['ok', 'ok', 'ok', 'ok', 'rate_limited', 'rate_limited']);
    for (const o of outcomes) if (o.ok) o.release();
    clock.advance(249);
    expect(calls.admit('t', 'a').ok).toBe(false);
    clock.advance(1);
    expect(calls.admit('t', 'b').ok).toBe(true);
  });

  it('never refills past the rate, however long the token was idle', () => {
    const clock = simulatedClock();
    const calls = createCallLimits({ maxCallsPerSecond: 2, maxInFlightCalls: 100 }, clock.now);
    clock.advance(60_000);
    const outcomes = Array.from({ length: 3 }, (_, i) => calls.admit('t', i));
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, false]);
  });

  it('keeps each token’s bucket apart', () => {
    const calls = createCallLimits({ maxCallsPerSecond: 1, maxInFlightCalls: 100 }, simulatedClock().now);
    expect(calls.admit('a', 1).ok).toBe(true);
    expect(calls.admit('a', 2).ok).toBe(false);
    expect(calls.admit('b', 1).ok).toBe(true);
  });
});

describe('calls in flight, per token', () => {
  it('refuses server_busy past the cap, without spending the rate, and admits again once one is released', () => {
    const calls = createCallLimits({ maxCallsPerSecond: 3, maxInFlightCalls: 2 }, simulatedClock().now);
    const first = calls.admit('t', 1);
    const second = calls.admit('t', 2);
    expect(calls.inFlight('t')).toBe(2);
    const third = calls.admit('t', 3);
    expect(third).toEqual({ ok: false, code: 'server_busy' });
    if (first.ok) first.release();
    if (first.ok) first.release();
    expect(calls.inFlight('t')).toBe(1);
    expect(calls.admit('t', 4).ok).toBe(true);
    if (second.ok) second.release();
  });
});

describe('cancelling by id', () => {
  it('aborts the token’s running calls with that JSON-RPC id, and no other token’s', () => {
    const calls = createCallLimits(MCP_LIMIT_DEFAULTS, simulatedClock().now);
    const mine = calls.admit('mine', 7);
    const other = calls.admit('mine', 8);
    const theirs = calls.admit('theirs', 7);
    expect(calls.cancel('mine', 7)).toBe(1);
    expect(mine.ok && mine.signal.aborted).toBe(true);
    expect(other.ok && other.signal.aborted).toBe(false);
    expect(theirs.ok && theirs.signal.aborted).toBe(false);
    if (mine.ok) mine.release();
    expect(calls.cancel('mine', 7)).toBe(0);
  });
});

describe('the limits’ settings', () => {
  it('defaults to 20 calls a second and 16 in flight', () => {
    expect(readMcpLimits({})).toEqual({ maxCallsPerSecond: 20, maxInFlightCalls: 16 });
  });

  it('takes whole numbers in range from the environment', () => {
    expect(readMcpLimits({ MCP_MAX_CALLS_PER_SECOND: '1000', MCP_MAX_IN_FLIGHT_CALLS: ' 1 ' })).toEqual({ maxCallsPerSecond: 1000, maxInFlightCalls: 1 });
  });

  it('refuses anything else, naming the variable and what it accepts', () => {
    for (const [name, value] of [
      ['MCP_MAX_CALLS_PER_SECOND', '0'],
      ['MCP_MAX_CALLS_PER_SECOND', '2.5'],
      ['MCP_MAX_CALLS_PER_SECOND', '1001'],
      ['MCP_MAX_IN_FLIGHT_CALLS', 'lots'],
      ['MCP_MAX_IN_FLIGHT_CALLS', '129'],
    ] as const) {
      expect(() => readMcpLimits({ [name]: value })).toThrow(ConfigError);
      expect(() => readMcpLimits({ [name]: value })).toThrow(new RegExp(`^${name} must be a whole number from \\d+ to \\d+`));
    }
  });

  it('checks limits given in code the same way', () => {
    expect(mcpLimitsOf({ maxCallsPerSecond: 5 })).toEqual({ maxCallsPerSecond: 5, maxInFlightCalls: 16 });
    expect(() => mcpLimitsOf({ maxInFlightCalls: 0 })).toThrow('mcp.maxInFlightCalls is 0; it must be a whole number from 1 to 128.');
  });
});
