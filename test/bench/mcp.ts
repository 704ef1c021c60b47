/**
 * What one MCP `tools/call` costs, end to end: `CALLS` calls of a read verb (`lists.read` of a
 * ten-item list) by the official SDK client over Streamable HTTP, one after another, against the
 * real Confab server — `createBackend` over an in-memory PGlite with the shipped apps, `createApp`,
 * served by @hono/node-server on 127.0.0.1 — with a personal token made through the page's route.
 * The per-token limits are raised so the benchmark measures the call, not the limiter.
 *
 * Each call is timed from `callTool` to its result: the client's request, the token's lookup (one
 * server transaction), the SDK's per-request server, the executor (one person transaction) and the
 * answer. Both protocol eras are measured: the 2026-07-28 per-request envelope (what the stdio
 * bridge speaks, and the headline figures) and the 2025 handshake (what older clients speak), call
 * by call in turn. The same verb through the executor alone gives what MCP adds. An error is a call that threw, or a
 * result with `isError` or without the list's items.
 */
import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadBots } from '../../server/bots';
import { readConfig } from '../../server/config';
import { PERSON_COOKIE, personCookieKey, signPersonCookie } from '../../server/person';
import { createRegistry, loadApps } from '../../server/verbs/registry';
import type { McpTokenMade } from '../../common/mcp/tokens';
import { roundMs, spread } from '../helpers/benchTimings';
import { openTestBackend } from '../helpers/testBackend';
import { serveApp } from '../server/chat/localServers';

const CALLS = 1000;
const WARM_UP = 50;
const ITEMS = ['milk', 'eggs', 'bread', 'butter', 'apples', 'rice', 'tea', 'coffee', 'cheese', 'lemons'];
const PERSON = '6f1c2d3e-4a5b-4c6d-8e7f-0123456789ab';

interface Run {
  samples: number[];
  errors: number;
  errorSamples: string[];
}

/** One `lists.read` call, timed; counted as an error when it threw or did not answer the list. */
async function timedCall(client: Client, into: Run): Promise<void> {
  const started = performance.now();
  try {
    const result = await client.callTool({ name: 'lists-read', arguments: { list: 'shopping' } });
    into.samples.push(performance.now() - started);
    const items = (result.structuredContent as { items?: unknown } | undefined)?.items;
    if (result.isError === true || !Array.isArray(items) || items.length !== ITEMS.length) {
      into.errors += 1;
      if (into.errorSamples.length < 3) into.errorSamples.push(JSON.stringify(result.content).slice(0, 200));
    }
  } catch (error) {
    into.errors += 1;
    if (into.errorSamples.length < 3) into.errorSamples.push(error instanceof Error ? error.message : String(error));
  }
}

const newRun = (): Run => ({ samples: [], errors: 0, errorSamples: [] });

export async function run(): Promise<{ bench: 'mcp'; calls: number; errors: number; p50Ms: number; p95Ms: number; [figure: string]: unknown }> {
  const shipped = await loadBots('bots');
  const demo = shipped.get('demo');
  if (demo === undefined) throw new Error('bots/demo.md is missing; the MCP benchmark acts through the demo bot.');
  const backend = await openTestBackend({
    config: readConfig({}),
    bots: new Map([['demo', demo]]),
    registry: createRegistry(await loadApps()),
    mcpLimits: { maxCallsPerSecond: 1000, maxInFlightCalls: 128 },
  });
  const { api, app, grantSecret } = backend;
  const server = await serveApp(app);
  const clients: Client[] = [];
  try {
    const cookie = `${PERSON_COOKIE}=${signPersonCookie(personCookieKey(grantSecret), PERSON, Date.now())}`;
    const res = await app.request('/api/mcp/tokens', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'benchmark', bots: ['demo'] }),
    });
    if (res.status !== 201) throw new Error(`Making the benchmark's token answered ${res.status}.`);
    const { token } = (await res.json()) as McpTokenMade;
    const caller = { person: PERSON, bot: 'demo', via: 'person' as const, timeZone: 'UTC' };
    const added = await api.executor.execute({ verb: 'lists.add', input: { list: 'shopping', items: ITEMS }, caller, idempotencyKey: 'mcp-bench-shopping-list' });
    if (!added.ok) throw new Error(`Filling the list failed: ${added.error.code}.`);

    const connect = async (mode: 'auto' | 'legacy') => {
      const client = new Client({ name: 'confab-mcp-bench', version: '1.0.0' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      clients.push(client);
      await client.listTools();
      return client;
    };
    const modern = await connect('auto');
    const legacy = await connect('legacy');
    const warm = newRun();
    for (let i = 0; i < WARM_UP; i++) {
      await timedCall(modern, warm);
      await timedCall(legacy, warm);
    }
    // The eras take turns, call by call, so neither has the other's warm-up or the machine's quiet spell.
    const modernRun = newRun();
    const legacyRun = newRun();
    let modernMs = 0;
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      await timedCall(modern, modernRun);
      modernMs += performance.now() - started;
      await timedCall(legacy, legacyRun);
    }

    const executorMs: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      await api.executor.execute({ verb: 'lists.read', input: { list: 'shopping' }, caller });
      executorMs.push(performance.now() - t);
    }

    const headline = spread(modernRun.samples);
    const executorAlone = spread(executorMs);
    return {
      bench: 'mcp',
      calls: modernRun.samples.length,
      errors: modernRun.errors + legacyRun.errors + warm.errors,
      p50Ms: headline.p50,
      p95Ms: headline.p95,
      era: '2026-07-28 (per-request envelope)',
      callsPerSecond: Math.round((CALLS / modernMs) * 1000),
      callMs: headline,
      legacy: { era: '2025-11-25 (handshake, stateless)', calls: legacyRun.samples.length, errors: legacyRun.errors, callMs: spread(legacyRun.samples) },
      executorAloneMs: executorAlone,
      addedByMcpMsP50: roundMs(headline.p50 - executorAlone.p50),
      errorSamples: [...warm.errorSamples, ...modernRun.errorSamples, ...legacyRun.errorSamples],
      verb: 'lists.read (10 items)',
      warmUpCalls: WARM_UP,
      limits: { maxCallsPerSecond: 1000, maxInFlightCalls: 128 },
      engine: 'PGlite in memory (memory://); client and server in one Node process, one call at a time',
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await api.mcpEndpoint.close();
    await server.close();
    await backend.close();
  }
}
