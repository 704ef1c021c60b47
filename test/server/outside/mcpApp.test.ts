/**
 * MCP servers nobody here wrote, as apps: `@modelcontextprotocol/server-everything` over stdio and
 * over Streamable HTTP, and `@modelcontextprotocol/server-memory` over stdio, each an app file in a
 * temporary apps folder, driven through the one executor (a real PGlite) and, for one turn, through
 * the door with a scripted provider. What the servers were sent is read from their side: a stdio
 * server's stdin is recorded by `tee` in front of it; the HTTP server logs every POST it receives.
 */
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBotFile } from '../../../server/bots';
import type { Database } from '../../../server/db/database';
import { hashEmbedder } from '../../../server/memory/embed';
import { AppFileError, parseAppFile } from '../../../server/outside/appFile';
import type { McpAppFile } from '../../../server/outside/appFile';
import { loadOutsideApps } from '../../../server/outside/loadOutside';
import type { OutsideDeps } from '../../../server/outside/loadOutside';
import { unfenced } from '../../../server/outside/fence';
import { mcpApp } from '../../../server/outside/mcpApp';
import { narrationOf as sentenceOf } from '../../../server/outside/outsideVerb';
import type { McpApp, McpAppOptions } from '../../../server/outside/mcpApp';
import { createExecutor } from '../../../server/verbs/executor';
import { testGate } from '../../helpers/testGate';
import type { Executor, Outcome } from '../../../server/verbs/executor';
import { createRegistry } from '../../../server/verbs/registry';
import { scopeOf } from '../../../server/verbs/scope';
import type { App, Caller } from '../../../server/verbs/verb';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';
import { Person, startActingDoor } from '../chat/actingDoor';
import type { ActingDoor } from '../chat/actingDoor';
import type { Reply, Received } from '../chat/localServers';

const EVERYTHING = resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = resolve('node_modules/@modelcontextprotocol/server-memory/dist/index.js');
/** Retries at once, so a server that is back is seen without waiting a second. */
const FAST: Partial<McpAppOptions> = { retryFirstMs: 50, retryMaxMs: 200, connectTimeoutMs: 5000, stderr: 'ignore' };

const everythingFile = (tools: string, extra = '') => `---
mcp:
  command: ${process.execPath}
  args: [${EVERYTHING}, stdio]
tools: [${tools}]
reads: [${tools}]
examples: { echo: 'echo hello' }
deadline: 1
${extra}---
The everything server: it echoes, adds, and takes its time when asked.
`;

/** The same server behind `tee`, which keeps everything Confab writes to its stdin in `$TAPE`. */
const tapedFile = `---
mcp:
  command: sh
  args: ['-c', 'tee -a "$TAPE" | exec "$NODE" "$SERVER" stdio']
  env: { TAPE: env:TEST_TAPE, NODE: ${process.execPath}, SERVER: ${EVERYTHING} }
tools: [echo, trigger-long-running-operation]
reads: [echo, trigger-long-running-operation]
deadline: 1
---
The everything server, recorded.
`;

const memoryFile = `---
mcp:
  command: ${process.execPath}
  args: [${MEMORY}]
  env: { MEMORY_FILE_PATH: env:TEST_MEMORY_FILE }
tools: [create_entities, read_graph]
reads: [read_graph]
narrate: { after: [create_entities], with: read_graph, say: 'That makes {entities} I know about.' }
---
A knowledge graph of what the person tells it.
`;

const httpFile = (url: string) => `---
mcp: { url: ${url} }
private: true
tools: [echo, get-sum, trigger-long-running-operation, get-tiny-image]
reads: [echo, get-sum, trigger-long-running-operation, get-tiny-image]
narrate: { after: [get-sum], with: get-tiny-image, say: 'Added.' }
deadline: 2
---
The everything server, over HTTP.
`;

function mcpFile(name: string, text: string): McpAppFile {
  const file = parseAppFile(name, text);
  if (file.kind !== 'mcp') throw new Error(`${name} is not an MCP app file.`);
  return file;
}

function answered(outcome: Outcome): unknown {
  if (!outcome.ok) throw new Error(`Expected success, got ${outcome.error.code}: ${outcome.error.sentence}`);
  return outcome.output;
}

/** How many server-everything processes this test process has started that still run. */
function everythingChildren(): number {
  const out = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((line) => line.includes(EVERYTHING)).length;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

/** server-everything over Streamable HTTP on `port`, counting the POSTs it receives (it logs each). */
async function everythingOverHttp(port: number): Promise<{ child: ChildProcess; posts: () => number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let posts = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    posts += chunk.toString().split('Received MCP POST request').length - 1;
  });
  await new Promise<void>((done, fail) => {
    child.stderr.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening on port')) done();
    });
    child.once('exit', (code) => {
      fail(new Error(`server-everything exited with ${String(code)}`));
    });
  });
  return {
    child,
    posts: () => posts,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('MCP servers as apps', { timeout: DB_TEST_MS }, () => {
  let dir: string;
  let db: Database;
  let deps: OutsideDeps;
  const logs: Record<string, unknown>[] = [];
  const opened: McpApp[] = [];
  let caller: Caller;
  const executorOver = (apps: App[]): Executor => createExecutor({ gate: testGate(db), registry: createRegistry(apps), db, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
  const open = async (name: string, text: string, options: Partial<McpAppOptions> = FAST): Promise<McpApp> => {
    const app = await mcpApp(mcpFile(name, text), deps, options);
    opened.push(app);
    return app;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'confab-mcp-'));
    deps = { env: { PATH: process.env.PATH, TEST_TAPE: join(dir, 'tape.jsonl'), TEST_MEMORY_FILE: join(dir, 'memory.jsonl') }, appsDir: dir, log: (line) => logs.push(line) };
    db = await openMemoryDatabase();
    caller = { person: somebody('ana'), bot: 'outside', via: 'model', timeZone: 'UTC' };
  }, OPENING_MS);

  afterAll(async () => {
    await Promise.all(opened.map((app) => app.outside.close()));
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('server-everything over stdio', () => {
    let everything: McpApp;
    let executor: Executor;

    beforeAll(async () => {
      await writeFile(join(dir, 'everything.md'), everythingFile('echo, get-sum, get-structured-content, get-resource-reference, trigger-long-running-operation'));
      const [app] = await loadOutsideApps(dir, deps, { mcp: (file, given) => mcpApp(file, given, FAST), openapi: () => Promise.reject(new Error('no specs here')) });
      everything = app as McpApp;
      opened.push(everything);
      executor = executorOver([everything]);
    });

    it('lists the allowed tools as verbs, offered only to a bot that names the app', () => {
      expect(everything.outside.status()).toEqual({ up: true });
      expect(everything.verbs.map((verb) => [verb.name, verb.risk])).toEqual([
        ['everything.echo', 'read'],
        ['everything.get_sum', 'read'],
        ['everything.get_structured_content', 'read'],
        ['everything.get_resource_reference', 'read'],
        ['everything.trigger_long_running_operation', 'read'],
      ]);
      const registry = createRegistry([everything]);
      expect(scopeOf(registry, { botApps: ['everything'], recentApps: [] }).names.has('everything.echo')).toBe(true);
      expect(scopeOf(registry, { botApps: [], recentApps: ['everything'] }).names.size).toBe(0);
    });

    it('calls a tool and answers its text, or its structured content when it declares an output schema', async () => {
      expect(answered(await executor.execute({ verb: 'everything.echo', input: { message: 'hello' }, caller }))).toEqual({ text: 'Echo: hello' });
      expect(answered(await executor.execute({ verb: 'everything.get_sum', input: { a: 2, b: 3 }, caller }))).toEqual({ text: 'The sum of 2 and 3 is 5.' });
      expect(answered(await executor.execute({ verb: 'everything.get_structured_content', input: { location: 'Chicago' }, caller }))).toMatchObject({ temperature: 36, humidity: 82 });
    });

    it('refuses arguments its schema does not allow with a sentence naming the field, before the server is asked', async () => {
      const outcome = await executor.execute({ verb: 'everything.get_sum', input: { a: 'two', b: 3 }, caller });
      expect(!outcome.ok && [outcome.error.code, outcome.error.sentence]).toEqual(['invalid_input', 'That request was not quite right (a: must be number), so nothing was done.']);
    });

    it('says a tool’s error as a failure the voice can say, quoting nothing of it', async () => {
      const outcome = await executor.execute({ verb: 'everything.get_resource_reference', input: { resourceId: 0 }, caller });
      expect(!outcome.ok && [outcome.error.code, outcome.error.sentence]).toEqual(['execution_failed', 'Something went wrong doing that, so it was not done.']);
    });

    it('fails a call whose server is killed mid-turn, leaves the app out with the reason, and takes it back once the server is up again', async () => {
      const pid = everything.outside.pid();
      expect(pid).toBeTypeOf('number');
      const call = executor.execute({ verb: 'everything.trigger_long_running_operation', input: { duration: 0.9, steps: 1 }, caller });
      await new Promise((done) => setTimeout(done, 100));
      process.kill(pid as number, 'SIGKILL');
      const outcome = await call;
      expect(!outcome.ok && [outcome.error.code, outcome.error.sentence]).toEqual(['execution_failed', 'Something went wrong doing that, so it was not done.']);
      const status = everything.outside.status();
      expect(status).toEqual({ up: false, state: 'away', why: "The everything app's server (server/apps/everything.md) stopped", retryInMs: 50 });
      expect(logs).toContainEqual(expect.objectContaining({ event: 'outside.away', app: 'everything' }));
      await expect.poll(() => everything.outside.status(), { timeout: 5000 }).toEqual({ up: true });
      expect(everything.outside.pid()).not.toBe(pid);
      expect(answered(await executor.execute({ verb: 'everything.echo', input: { message: 'again' }, caller }))).toEqual({ text: 'Echo: again' });
    });
  });

  describe('what the server is told (server-everything behind tee)', () => {
    let executor: Executor;
    const tape = async (): Promise<string> => readFile(deps.env.TEST_TAPE as string, 'utf8').catch(() => '');
    const cancels = async (): Promise<number> => (await tape()).split('"notifications/cancelled"').length - 1;

    beforeAll(async () => {
      executor = executorOver([await open('taped.md', tapedFile)]);
    });

    it('cancels the long tool at the server when the caller gives up (a barge-in)', async () => {
      const before = await cancels();
      const bargeIn = new AbortController();
      const call = executor.execute({ verb: 'taped.trigger_long_running_operation', input: { duration: 5, steps: 5 }, caller, signal: bargeIn.signal });
      await expect.poll(async () => (await tape()).includes('trigger-long-running-operation')).toBe(true);
      bargeIn.abort();
      const outcome = await call;
      expect(!outcome.ok && outcome.error.code).toBe('cancelled');
      await expect.poll(cancels).toBe(before + 1);
    });

    it('cancels it at the server at the file’s deadline', async () => {
      const before = await cancels();
      const outcome = await executor.execute({ verb: 'taped.trigger_long_running_operation', input: { duration: 5, steps: 5 }, caller });
      expect(!outcome.ok && outcome.error.code).toBe('timed_out');
      await expect.poll(cancels).toBe(before + 1);
      expect(answered(await executor.execute({ verb: 'taped.echo', input: { message: 'still here' }, caller }))).toEqual({ text: 'Echo: still here' });
    });
  });

  describe('server-everything over Streamable HTTP', () => {
    let port: number;
    let server: Awaited<ReturnType<typeof everythingOverHttp>> | undefined;
    let app: McpApp;
    let executor: Executor;

    beforeAll(async () => {
      port = await freePort();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('leaves the app out while nothing answers at its URL, and publishes its verbs once something does', async () => {
      app = await open('web.md', httpFile(`http://127.0.0.1:${String(port)}/mcp`));
      const status = app.outside.status();
      expect(status).toEqual({ up: false, state: 'away', why: `Nothing answers for the web app at http://127.0.0.1:${String(port)}/mcp (ECONNREFUSED); start that server, or correct mcp.url in server/apps/web.md`, retryInMs: 50 });
      expect([app.verbs, app.narrators]).toEqual([[], []]);
      let changed = 0;
      app.outside.onVerbsChanged?.(() => (changed += 1));
      executor = executorOver([app]);
      server = await everythingOverHttp(port);
      await expect.poll(() => app.outside.status(), { timeout: 5000 }).toEqual({ up: true });
      expect(changed).toBe(1);
      expect(executor.registry.verbs.map((verb) => verb.name)).toEqual(['web.echo', 'web.get_sum', 'web.trigger_long_running_operation', 'web.get_tiny_image']);
      expect(app.narrators?.map((narrator) => narrator.follows)).toEqual(['web.get_sum']);
      expect(answered(await executor.execute({ verb: 'web.get_sum', input: { a: 20, b: 22 }, caller }))).toEqual({ text: 'The sum of 20 and 22 is 42.' });
      expect(answered(await executor.execute({ verb: 'web.get_tiny_image', input: {}, caller }))).toEqual({ text: expect.stringContaining('[an image, image/png]') as unknown });
    });

    it('tells the server when the caller gives up', async () => {
      const bargeIn = new AbortController();
      const call = executor.execute({ verb: 'web.trigger_long_running_operation', input: { duration: 5, steps: 5 }, caller, signal: bargeIn.signal });
      await new Promise((done) => setTimeout(done, 100));
      const posts = (server as { posts: () => number }).posts();
      bargeIn.abort();
      expect((await call).ok).toBe(false);
      // The cancellation is the one message sent after the abort.
      await expect.poll(() => (server as { posts: () => number }).posts()).toBe(posts + 1);
    });

    it('learns at the next call that the server went away, says so, and takes it back once it answers again', async () => {
      await server?.stop();
      const outcome = await executor.execute({ verb: 'web.echo', input: { message: 'anyone?' }, caller });
      expect(!outcome.ok && [outcome.error.code, outcome.error.sentence]).toEqual(['execution_failed', 'Something went wrong doing that, so it was not done.']);
      expect(app.outside.status().up).toBe(false);
      server = await everythingOverHttp(port);
      await expect.poll(() => app.outside.status(), { timeout: 5000 }).toEqual({ up: true });
      expect(answered(await executor.execute({ verb: 'web.echo', input: { message: 'back' }, caller }))).toEqual({ text: 'Echo: back' });
    });
  });

  describe('server-memory over stdio', () => {
    let memory: McpApp;
    let executor: Executor;
    const entity = (name: string) => ({ entities: [{ name, entityType: 'person', observations: ['likes tea'] }] });
    const graph = async () => answered(await executor.execute({ verb: 'memory.read_graph', input: {}, caller })) as { entities: { name: string }[] };

    beforeAll(async () => {
      memory = await open('memory.md', memoryFile);
      executor = executorOver([memory]);
    });

    it('calls a write once for a key, however often the turn is retried, even while the first call is under way', async () => {
      const key = `key-${randomUUID()}`;
      const [first, retry] = await Promise.all([
        executor.execute({ verb: 'memory.create_entities', input: entity('Ada'), caller, idempotencyKey: key }),
        executor.execute({ verb: 'memory.create_entities', input: entity('Ada'), caller, idempotencyKey: key }),
      ]);
      const later = await executor.execute({ verb: 'memory.create_entities', input: entity('Ada'), caller, idempotencyKey: key });
      // A second call would have been answered `entities: []`: server-memory skips a name it has.
      for (const outcome of [first, retry, later]) expect(answered(outcome)).toEqual(entity('Ada'));
      expect([first, retry, later].filter((outcome) => outcome.ok && outcome.replayed)).toHaveLength(2);
      expect((await graph()).entities.map((e) => e.name)).toEqual(['Ada']);
    });

    it('narrates a write with the read the file names, filling the sentence from its result', async () => {
      const registry = createRegistry([memory]);
      expect(registry.narratorsFor('memory.create_entities')).toHaveLength(1);
      expect(registry.narratorsFor('memory.read_graph')).toHaveLength(0);
      const said = await executor.narrate({ verb: 'memory.create_entities', input: entity('Grace'), output: {} }, caller);
      expect(said).toEqual([`That makes ${String((await graph()).entities.length)} I know about.`]);
      expect(sentenceOf('You have {count} events.', { events: [1, 2] })).toBe('You have 2 events.');
      expect(sentenceOf('It is {temperature} degrees.', {})).toBeUndefined();
    });
  });

  describe('at start', () => {
    it('refuses a file whose allow-list names a tool the server does not have, and stops the server', async () => {
      const running = everythingChildren();
      const refused = mcpApp(mcpFile('wrong.md', everythingFile('echo, get-weather')), deps, FAST);
      await expect(refused).rejects.toThrow(AppFileError);
      expect(everythingChildren()).toBe(running);
      await expect(refused).rejects.toThrow('server/apps/wrong.md: tools names "get-weather", which the server does not have; it has: echo, get-annotated-message,');
    });

    it('leaves out a server that stops before it answers, with one log line, and refuses an unset variable', async () => {
      const app = await open('broken.md', `---\nmcp: { command: ${process.execPath}, args: ['-e', 'process.exit(3)'] }\ntools: [echo]\n---\nA server that will not start.\n`);
      const status = app.outside.status();
      expect(status).toEqual({ up: false, state: 'away', why: "The broken app's server (server/apps/broken.md) stopped before it answered; run its command by hand to see why, or correct server/apps/broken.md", retryInMs: 50 });
      expect(logs.filter((line) => line.app === 'broken')).toHaveLength(1);
      await expect(mcpApp(mcpFile('keyed.md', `---\nmcp: { command: x, env: { API_KEY: env:NOT_SET_HERE } }\ntools: [echo]\n---\nNeeds a key.\n`), deps, FAST)).rejects.toThrow(
        'server/apps/keyed.md: mcp.env.API_KEY names the environment variable NOT_SET_HERE, which is not set; set it where the server starts.',
      );
    });
  });

  describe('through the door', () => {
    let everything: McpApp;
    let door: ActingDoor;
    let person: Person;
    let grant: string;
    /** The model calls `name` with `args`, then says what the tool answered, or the sentence of its failure. */
    const callsThenSays = (name: string, args: Record<string, unknown>) => (reply: Reply, received: Received) => {
      const results = (received.body.messages as { role: string; content?: string }[]).filter((m) => m.role === 'tool');
      if (results.length === 0) {
        reply.toolCalls([{ index: 0, id: 'c1', type: 'function', function: { name, arguments: JSON.stringify(args) } }]);
        reply.finish('tool_calls');
      } else {
        const answer = JSON.parse(unfenced(results[0]?.content ?? '{}')) as { ok: boolean; output?: { text?: string }; message?: string };
        reply.token(answer.ok ? `The server said: ${answer.output?.text ?? 'nothing'}.` : (answer.message ?? 'It failed.'));
        reply.finish();
      }
      reply.done();
    };
    const listing = async () => (await (await person.call('/api/bots/helper/verbs')).json()) as { inScope: { verb: string; site?: boolean }[]; leftOut: { verb: string; why: string }[]; outside: { up: boolean; state?: string; why?: string }[] };

    beforeAll(async () => {
      // Slow enough to retry that the test sees it away.
      everything = await open('everything.md', everythingFile('echo, trigger-long-running-operation'), { ...FAST, retryFirstMs: 400, retryMaxMs: 400 });
      const bot = parseBotFile('helper.md', `---\nname: Helper\nmemory: none\napps: [everything]\nlimits: { steps: 4, spend: 1, perDay: { spend: 100 }, perMinute: { answers: 1000 } }\n---\nYou help.`);
      door = await startActingDoor({ overrides: { registry: createRegistry([everything]), bots: new Map([['helper', bot]]) } });
      person = new Person(door.url);
      grant = await person.start('helper');
    }, OPENING_MS);
    afterAll(async () => {
      await door.close();
    });

    it('offers the tool to the bot that names the app, marked site, and speaks what it answered', async () => {
      door.script(callsThenSays('everything-echo', { message: 'hi there' }));
      expect((await person.ask(grant, 'echo hi there')).text).toBe('The server said: Echo: hi there.');
      const tools = (door.upstream.received[0]?.body.tools ?? []) as { function: { name: string } }[];
      expect(tools.map((t) => t.function.name)).toEqual(['everything-echo', 'everything-trigger_long_running_operation']);
      const listed = await listing();
      expect(listed.inScope.map((v) => [v.verb, v.site])).toEqual([
        ['everything.echo', true],
        ['everything.trigger_long_running_operation', true],
      ]);
      expect(listed.outside).toEqual([{ app: 'everything', kind: 'mcp', file: 'everything.md', up: true }]);
    });

    it('says the failure when the server is killed mid-turn, lists the app away with the reason, and offers it again once it is back', async () => {
      door.script(callsThenSays('everything-trigger_long_running_operation', { duration: 0.9, steps: 1 }));
      const asked = door.upstream.received.length;
      const answer = person.ask(grant, 'take your time');
      await expect.poll(() => door.upstream.received.length).toBe(asked + 1);
      await new Promise((done) => setTimeout(done, 100));
      process.kill(everything.outside.pid() as number, 'SIGKILL');
      // Killed while its call ran, or (on a slow machine) just before it began: either way, said.
      expect((await answer).text).toBe('Something went wrong doing that, so it was not done.');
      const away = await listing();
      expect(away.inScope).toEqual([]);
      expect(away.leftOut).toContainEqual({ verb: 'everything.echo', why: 'away' });
      expect(away.outside[0]).toMatchObject({ up: false, state: 'away', why: expect.stringContaining('stopped') as unknown, retryInMs: 400 });
      await expect.poll(async () => (await listing()).inScope.length, { timeout: 5000 }).toBe(2);
    });
  });
});
