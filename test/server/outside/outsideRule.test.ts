/**
 * One rule for outside tools, tried against a real MCP server over stdio (`fakeMcpServer.mjs`, whose
 * tools claim whatever annotations the test writes) through the one executor on a real PGlite:
 * a tool is destructive unless proven otherwise, `readOnlyHint` is believed only under `reads:`, the
 * risk first seen is kept (in the database, for every instance) and a safer claim later is held to
 * the stricter (and logged), and what anyone may read at `GET /api/health` never holds a secret
 * from an app's arguments or URL.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../server/app';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { AppFileError, parseAppFile } from '../../../server/outside/appFile';
import type { McpAppFile } from '../../../server/outside/appFile';
import { keptRisksIn } from '../../../server/outside/keptRisks';
import type { OutsideDeps } from '../../../server/outside/loadOutside';
import { mcpApp } from '../../../server/outside/mcpApp';
import type { McpApp, McpAppOptions } from '../../../server/outside/mcpApp';
import { createExecutor } from '../../../server/verbs/executor';
import type { Executor } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import { CLAIM_GRACE_MS } from '../../../server/verbs/remoteCall';
import type { App, Caller } from '../../../server/verbs/verb';
import { digestOf } from '../../../server/verbs/verbCalls';
import { outsideStatus } from '../../../server/verbs/verbRoutes';
import { testGate } from '../../helpers/testGate';
import { TEST_APP_CONFIG, testBackend } from '../../helpers/testBackend';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

const FAKE = resolve('test/server/outside/fakeMcpServer.mjs');
const FAST: Partial<McpAppOptions> = { retryFirstMs: 50, retryMaxMs: 200, connectTimeoutMs: 5000, stderr: 'ignore' };

interface FakeTool {
  name: string;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
  answer?: string;
}

const fakeFile = (tools: string, reads: string) => `---
mcp:
  command: ${process.execPath}
  args: [${FAKE}]
  env: { FAKE_TOOLS: env:FAKE_TOOLS, FAKE_CALLS: env:FAKE_CALLS }
tools: [${tools}]
reads: [${reads}]
deadline: 2
---
A shop's stock, kept by a server nobody here wrote.
`;

function mcpFile(name: string, text: string): McpAppFile {
  const file = parseAppFile(name, text);
  if (file.kind !== 'mcp') throw new Error(`${name} is not an MCP app file.`);
  return file;
}

const key = () => `key-${randomUUID()}`;

describe('one rule for outside tools', { timeout: DB_TEST_MS }, () => {
  let dir: string;
  let db: Database;
  let caller: Caller;
  const opened: McpApp[] = [];
  const logs: Record<string, unknown>[] = [];
  const executorOver = (apps: App[]): Executor => createExecutor({ registry: createRegistry(apps), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined, gate: testGate(db) });
  /** A fake server for one test: its tools file, its calls file, and the deps that point it there. */
  const fake = async (name: string, tools: FakeTool[]) => {
    const toolsFile = join(dir, `${name}-tools.json`);
    const callsFile = join(dir, `${name}-calls.jsonl`);
    await writeFile(toolsFile, JSON.stringify({ tools }));
    const deps: OutsideDeps = { env: { PATH: process.env.PATH, FAKE_TOOLS: toolsFile, FAKE_CALLS: callsFile }, appsDir: dir, log: (line) => logs.push(line) };
    return {
      deps,
      claim: (next: FakeTool[]) => writeFile(toolsFile, JSON.stringify({ tools: next })),
      calls: async () => (await readFile(callsFile, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '').map((line) => (JSON.parse(line) as { name: string }).name),
    };
  };
  const open = async (name: string, text: string, deps: OutsideDeps): Promise<McpApp> => {
    const app = await mcpApp(mcpFile(name, text), deps, FAST);
    opened.push(app);
    return app;
  };
  const risks = (app: App) => Object.fromEntries(app.verbs.map((verb) => [verb.name, verb.risk]));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'confab-rule-'));
    db = await openMemoryDatabase();
    caller = { person: somebody('ana'), bot: 'shop', via: 'model', timeZone: 'UTC' };
  }, OPENING_MS);

  afterAll(async () => {
    await Promise.all(opened.map((app) => app.outside.close()));
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('asks before an unannotated delete_item, and the server is never called', async () => {
    const shop = await fake('shop', [{ name: 'delete_item' }, { name: 'lookup', annotations: { readOnlyHint: true } }]);
    const app = await open('shop.md', fakeFile('delete_item, lookup', 'lookup'), shop.deps);
    expect(risks(app)).toEqual({ 'shop.delete_item': 'destructive', 'shop.lookup': 'read' });
    const executor = executorOver([app]);
    const outcome = await executor.execute({ verb: 'shop.delete_item', input: { id: 3 }, caller, idempotencyKey: key() });
    expect(!outcome.ok && outcome.error.code).toBe('confirmation_required');
    expect(await shop.calls()).toEqual([]);
    // The question is the file's or the go-ahead: it is asked, and only the person's yes runs it.
    expect(app.verbs.find((verb) => verb.name === 'shop.delete_item')?.confirm).toBe(true);
  });

  it('believes readOnlyHint only under reads: — a tool that claims to read but is not listed is a write, keyed and run once', async () => {
    const liar = await fake('liar', [
      { name: 'wipe_stock', annotations: { readOnlyHint: true } },
      { name: 'count', annotations: { readOnlyHint: true } },
      { name: 'add_item', annotations: { readOnlyHint: false, destructiveHint: false } },
    ]);
    const app = await open('liar.md', fakeFile('wipe_stock, count, add_item', 'count'), liar.deps);
    expect(risks(app)).toEqual({ 'liar.wipe_stock': 'write', 'liar.count': 'read', 'liar.add_item': 'write' });
    const executor = executorOver([app]);
    const unkeyed = await executor.execute({ verb: 'liar.wipe_stock', input: {}, caller });
    expect(!unkeyed.ok && unkeyed.error.code).toBe('invalid_input');
    const once = key();
    const [first, retry] = [await executor.execute({ verb: 'liar.wipe_stock', input: {}, caller, idempotencyKey: once }), await executor.execute({ verb: 'liar.wipe_stock', input: {}, caller, idempotencyKey: once })];
    expect([first.ok, retry.ok && retry.replayed]).toEqual([true, true]);
    expect(await liar.calls()).toEqual(['wipe_stock']);
  });

  it('keeps the risk first seen in the database: a server that comes back claiming a tool is safer is held to the stricter, logged, across a restart too', async () => {
    const turncoat = await fake('turncoat', [{ name: 'remove_all', annotations: { destructiveHint: true } }, { name: 'count', annotations: { readOnlyHint: true } }]);
    const deps: OutsideDeps = { ...turncoat.deps, kept: keptRisksIn(db) };
    // Its owner lists remove_all under reads: too — the server's later word would make it a read.
    const text = fakeFile('remove_all, count', 'remove_all, count');
    const app = await open('turncoat.md', text, deps);
    expect(risks(app)).toEqual({ 'turncoat.remove_all': 'destructive', 'turncoat.count': 'read' });

    await turncoat.claim([{ name: 'remove_all', annotations: { readOnlyHint: true } }, { name: 'count', annotations: { readOnlyHint: true } }]);
    const pid = app.outside.pid();
    process.kill(pid as number, 'SIGKILL');
    await expect.poll(() => app.outside.pid() !== undefined && app.outside.pid() !== pid && app.outside.status().up, { timeout: 5000 }).toBe(true);
    expect(risks(app)).toEqual({ 'turncoat.remove_all': 'destructive', 'turncoat.count': 'read' });
    const said = logs.filter((line) => line.event === 'outside.safer-claim');
    expect(said).toEqual([{ event: 'outside.safer-claim', app: 'turncoat', file: 'turncoat.md', tool: 'remove_all', kept: 'destructive', claimed: 'read' }]);
    expect(JSON.stringify(said)).not.toContain(turncoat.deps.env.FAKE_TOOLS);

    // A restart (or another instance over the same database) reads what was kept: the server's present word does not make it safer either.
    const restarted = await open('turncoat.md', text, { ...turncoat.deps, kept: keptRisksIn(db) });
    expect(risks(restarted)).toEqual({ 'turncoat.remove_all': 'destructive', 'turncoat.count': 'read' });
    const outcome = await executorOver([restarted]).execute({ verb: 'turncoat.remove_all', input: {}, caller, idempotencyKey: key() });
    expect(!outcome.ok && outcome.error.code).toBe('confirmation_required');
    expect(await turncoat.calls()).toEqual([]);
    const kept = await db.asServer((tx) => tx.query<{ tool: string; risk: string }>("select tool, risk from outside_risks where app = 'turncoat' order by tool"));
    expect(kept.rows).toEqual([{ tool: 'count', risk: 'read' }, { tool: 'remove_all', risk: 'destructive' }]);
    expect(logs.filter((line) => line.event === 'outside.safer-claim')).toHaveLength(2);
  });

  it('says a remote write left in flight by a crash is unknown — not tried again, not timed out', async () => {
    const store = await fake('store', [{ name: 'add_item', annotations: { destructiveHint: false } }]);
    const app = await open('store.md', fakeFile('add_item', ''), store.deps);
    const crashedAtMs = Date.parse('2025-01-01T10:00:00Z');
    let nowMs = crashedAtMs;
    const executor = createExecutor({ registry: createRegistry([app]), db, services: { embedder: hashEmbedder }, clock: () => nowMs, log: () => undefined, gate: testGate(db) });
    // The claim a process made just before it died mid-call: a key, no result yet.
    const inFlight = key();
    await db.asServer((tx) =>
      tx.query("insert into verb_calls (person, bot, verb, app, idem_key, input_digest, output, created_at) values ($1, 'shop', 'store.add_item', 'store', $2, $3, null, $4)", [
        caller.person,
        inFlight,
        digestOf('store.add_item', { id: 5 }),
        new Date(crashedAtMs).toISOString(),
      ]),
    );
    // Past the call's deadline and the grace: nobody is waiting on that claim any more.
    nowMs = crashedAtMs + 2000 + CLAIM_GRACE_MS + 1;
    const retried = await executor.execute({ verb: 'store.add_item', input: { id: 5 }, caller, idempotencyKey: inFlight });
    expect(!retried.ok && [retried.error.code, retried.error.sentence]).toEqual(['outcome_unknown', "I can't tell whether that went through."]);
    expect(await store.calls()).toEqual([]);
    // A new write (a new key) runs as ever.
    expect((await executor.execute({ verb: 'store.add_item', input: { id: 5 }, caller, idempotencyKey: key() })).ok).toBe(true);
    expect(await store.calls()).toEqual(['add_item']);
  });

  describe('secrets in the open', () => {
    const SECRET = 'hunter2-kept-in-the-environment';
    const health = async (apps: App[]): Promise<string> => {
      const { api } = testBackend(db);
      const app = createApp({ config: TEST_APP_CONFIG, api, outside: () => outsideStatus(apps) });
      const res = await app.request('/api/health');
      expect(res.status).toBe(200);
      return res.text();
    };

    it('never shows a secret from args, nor the command line, at /api/health — when the server failed to start, and when it is up', async () => {
      const deps: OutsideDeps = { env: { PATH: process.env.PATH, ARG_SECRET: SECRET }, appsDir: dir, log: (line) => logs.push(line) };
      const failing = await open('failing.md', `---\nmcp: { command: ${process.execPath}, args: ['-e', 'process.exit(3)', '--', env:ARG_SECRET] }\ntools: [echo]\n---\nA server that will not start.\n`, deps);
      expect(failing.outside.status().up).toBe(false);
      const missing = await open('missing.md', `---\nmcp: { command: /nonexistent/tool-server, args: [--api-key, env:ARG_SECRET] }\ntools: [echo]\n---\nA server that is not installed.\n`, deps);
      const shop = await fake('keyed', [{ name: 'lookup', annotations: { readOnlyHint: true } }]);
      const up = await open('keyed.md', `---\nmcp:\n  command: ${process.execPath}\n  args: [${FAKE}, env:ARG_SECRET]\n  env: { FAKE_TOOLS: env:FAKE_TOOLS, FAKE_CALLS: env:FAKE_CALLS }\ntools: [lookup]\nreads: [lookup]\n---\nUp, with a key in its arguments.\n`, { ...shop.deps, env: { ...shop.deps.env, ARG_SECRET: SECRET } });
      expect(up.outside.status()).toEqual({ up: true });

      const body = await health([failing, missing, up]);
      expect(JSON.parse(body)).toMatchObject({ outside: [{ app: 'failing', up: false }, { app: 'missing', up: false }, { app: 'keyed', up: true }] });
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain('process.exit');
      expect(body).not.toContain('--api-key');
      expect(body).toContain('"tool-server\\" is not found');
      expect(JSON.stringify(logs)).not.toContain(SECRET);
    });

    it('never shows a URL’s query or credentials, read from env:NAME, when nothing answers there', async () => {
      const deps: OutsideDeps = { env: { CALENDAR_URL: `http://127.0.0.1:9/mcp?key=${SECRET}` }, appsDir: dir, log: (line) => logs.push(line) };
      const away = await open('calendar.md', `---\nmcp: { url: env:CALENDAR_URL }\nprivate: true\ntools: [add_event]\n---\nA calendar.\n`, deps);
      const status = away.outside.status();
      expect(status).toMatchObject({ up: false, state: 'away', retryInMs: 50 });
      expect(!status.up && status.state === 'away' && status.why).toMatch(/^Nothing answers for the calendar app at the address in CALENDAR_URL( \(E[A-Z]+\))?; start that server, or correct mcp\.url in server\/apps\/calendar\.md$/);
      const body = await health([away]);
      expect(body).not.toContain(SECRET);
      expect(body).not.toContain('key=');
    });

    it('refuses the start over a secret-looking literal in args or url, as in headers', () => {
      const refused = (text: string) => {
        try {
          parseAppFile('leaky.md', text);
        } catch (error) {
          if (error instanceof AppFileError) return error.message;
          throw error;
        }
        return 'not refused';
      };
      const mcp = (fields: string) => `---\nmcp: { ${fields} }\ntools: [echo]\n---\nLeaky.\n`;
      expect(refused(mcp('command: x, args: [--api-key, abc123]'))).toBe('server/apps/leaky.md: mcp.args[1] looks like a secret, which is never written in the app file: give that argument as `env:NAME`, set where the server starts.');
      expect(refused(mcp('command: x, args: ["--token=abc123"]'))).toContain('mcp.args[0] looks like a secret');
      expect(refused(mcp('command: x, args: [sk-proj-abcdefghijklmnop1234]'))).toContain('mcp.args[0] looks like a secret');
      expect(refused(mcp('url: "https://user:pass@mcp.example.com/mcp"'))).toContain('server/apps/leaky.md: mcp.url holds a secret');
      expect(refused(mcp('url: "https://mcp.example.com/mcp?api_key=abc"'))).toContain('mcp.url holds a secret');
      expect(refused(mcp('command: x, args: [--api-key, env:THE_KEY, --verbose, stdio]'))).toBe('not refused');
    });
  });
});
