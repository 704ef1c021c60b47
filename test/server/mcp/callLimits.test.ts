import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../server/config';
import type { Database } from '../../../server/db/database';
import { createCallLimits, MCP_LIMIT_DEFAULTS, mcpLimitsOf, readMcpLimits } from '../../../server/mcp/callLimits';
import type { McpLimits } from '../../../server/mcp/callLimits';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

/** A clock the test moves by hand, in ms. */
function simulatedClock(startMs = 1_000_000) {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms: number) => (nowMs += ms) };
}

// The rate is kept in the database (two instances sharing it: test/server/db/sharedCounts.test.ts);
// each test's tokens are its own.
let db: Database;
beforeAll(async () => {
  db = await openMemoryDatabase();
}, OPENING_MS);
afterAll(async () => {
  await db.close();
});

const limitsOf = (limits: McpLimits, clock: () => number) => createCallLimits(limits, clock, db);
/** Admits calls with these ids one after another, as a client's calls arrive. */
async function admitAll(calls: ReturnType<typeof limitsOf>, token: string, ids: (string | number)[]) {
  const outcomes = [];
  for (const id of ids) outcomes.push(await calls.admit(token, id));
  return outcomes;
}

describe('calls per second, per token', { timeout: DB_TEST_MS }, () => {
  it('admits a burst as deep as the rate, then refuses rate_limited until the bucket refills', async () => {
    const clock = simulatedClock();
    const calls = limitsOf({ maxCallsPerSecond: 4, maxInFlightCalls: 100 }, clock.now);
    const t = somebody('t');
    const outcomes = await admitAll(calls, t, [0, 1, 2, 3, 4, 5]);
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.code))).toEqual(['ok', 'ok', 'ok', 'ok', 'rate_limited', 'rate_limited']);
    for (const o of outcomes) if (o.ok) o.release();
    clock.advance(249);
    expect((await calls.admit(t, 'a')).ok).toBe(false);
    clock.advance(1);
    expect((await calls.admit(t, 'b')).ok).toBe(true);
  });

  it('never refills past the rate, however long the token was idle', async () => {
    const clock = simulatedClock();
    const calls = limitsOf({ maxCallsPerSecond: 2, maxInFlightCalls: 100 }, clock.now);
    const t = somebody('t');
    clock.advance(60_000);
    const outcomes = await admitAll(calls, t, [0, 1, 2]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, false]);
  });

  it('keeps each token’s bucket apart', async () => {
    const calls = limitsOf({ maxCallsPerSecond: 1, maxInFlightCalls: 100 }, simulatedClock().now);
    const [a, b] = [somebody('a'), somebody('b')];
    expect((await calls.admit(a, 1)).ok).toBe(true);
    expect((await calls.admit(a, 2)).ok).toBe(false);
    expect((await calls.admit(b, 1)).ok).toBe(true);
  });
});

describe('calls in flight, per token on this instance', { timeout: DB_TEST_MS }, () => {
  it('refuses server_busy past the cap, without spending the rate, and admits again once one is released', async () => {
    const calls = limitsOf({ maxCallsPerSecond: 3, maxInFlightCalls: 2 }, simulatedClock().now);
    const t = somebody('t');
    const [first, second] = await admitAll(calls, t, [1, 2]);
    expect(calls.inFlight(t)).toBe(2);
    expect(await calls.admit(t, 3)).toEqual({ ok: false, code: 'server_busy' });
    if (first?.ok) first.release();
    if (first?.ok) first.release();
    expect(calls.inFlight(t)).toBe(1);
    expect((await calls.admit(t, 4)).ok).toBe(true);
    if (second?.ok) second.release();
  });

  it('gives back the place a call refused rate_limited took while the rate was asked', async () => {
    const calls = limitsOf({ maxCallsPerSecond: 1, maxInFlightCalls: 5 }, simulatedClock().now);
    const t = somebody('t');
    const outcomes = await Promise.all([calls.admit(t, 1), calls.admit(t, 2)]);
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.code)).sort()).toEqual(['ok', 'rate_limited']);
    expect(calls.inFlight(t)).toBe(1);
  });
});

describe('cancelling by id', { timeout: DB_TEST_MS }, () => {
  it('aborts the token’s running calls with that JSON-RPC id, and no other token’s', async () => {
    const calls = limitsOf(MCP_LIMIT_DEFAULTS, simulatedClock().now);
    const [mine, theirs] = [somebody('mine'), somebody('theirs')];
    const [seven, eight] = await admitAll(calls, mine, [7, 8]);
    const other = await calls.admit(theirs, 7);
    expect(calls.cancel(mine, 7)).toBe(1);
    expect(seven?.ok && seven.signal.aborted).toBe(true);
    expect(eight?.ok && eight.signal.aborted).toBe(false);
    expect(other.ok && other.signal.aborted).toBe(false);
    if (seven?.ok) seven.release();
    expect(calls.cancel(mine, 7)).toBe(0);
  });

  it('reaches a call while its rate is still being asked', async () => {
    const calls = limitsOf(MCP_LIMIT_DEFAULTS, simulatedClock().now);
    const t = somebody('t');
    const admitting = calls.admit(t, 9);
    expect(calls.cancel(t, 9)).toBe(1);
    const admitted = await admitting;
    expect(admitted.ok && admitted.signal.aborted).toBe(true);
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
