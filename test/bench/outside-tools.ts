/**
 * What an outside MCP tool adds to a turn, beside a built-in verb, and whether a retried write turn
 * ever calls the outside server twice.
 *
 * One real Confab server in process (`createBackend` + `createApp` over in-memory PGlite, `live`,
 * served on an ephemeral port) with three apps: the shipped `lists`; `everything`, an app file
 * naming `@modelcontextprotocol/server-everything` over stdio (a child process Confab starts, as in
 * production); and `memory`, `@modelcontextprotocol/server-memory` over stdio. A scripted
 * OpenAI-shaped upstream on 127.0.0.1 waits `MODEL_FIRST_TOKEN_MS` before each answer, then calls
 * the one tool the turn is offered (`lists.read` for the bot `builtin`, `everything.echo` for the
 * bot `outside`) and, given its result, answers in text.
 *
 * Each round runs the same turn with both bots, in alternating order, timed from `fetch` to the
 * first answer text on the page's side. `addedMs` per round is the outside turn minus the built-in
 * turn, plus the built-in verb's own time (timed around `lists.read`'s `run`): what the outside turn
 * costs beyond a built-in turn whose verb took no time — the MCP hop (JSON-RPC over the child's
 * stdin and stdout, the SDK's result checks, Ajv on the way in and out) and the executor's remote
 * path. The echo tool's own time inside the server cannot be timed from Confab's side; it is a
 * string concatenation, and counted against the hop rather than guessed away. `callMs` is the time
 * around the outside verb's `run`: the round trip to the server alone. Target: `addedMsP50` ≤ 15.
 *
 * Then `RETRIED_TURNS` turns each create a new entity through `memory.create_entities` and are sent
 * again with the same conversation, messages and turn id (`x-confab-turn`), as a page retries a turn;
 * every other first attempt is cut by the client while it runs. `duplicateCalls` counts calls
 * Confab sent to the server beyond one per turn, counted around the verb's `run` (each is one
 * `tools/call`): server-memory's graph cannot show a second call, since it skips an entity whose
 * name it has, so the graph is read only as a cross-check (`entitiesInGraph`, one per turn).
 * `errors` counts turns whose answer did not end, or whose tool call failed.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseBotFile } from '../../server/bots';
import { parseAppFile } from '../../server/outside/appFile';
import type { McpAppFile } from '../../server/outside/appFile';
import { mcpApp } from '../../server/outside/mcpApp';
import type { McpApp } from '../../server/outside/mcpApp';
import { createRegistry, loadApps } from '../../server/verbs/registry';
import type { App, Verb } from '../../server/verbs/verb';
import { delay, serveApp, startUpstream } from '../server/chat/localServers';
import type { Received, Reply } from '../server/chat/localServers';
import { roundMs, spread } from '../helpers/benchTimings';
import { openTestBackend } from '../helpers/testBackend';
import type { BenchResult, BenchTarget } from './run';

const MODEL_FIRST_TOKEN_MS = 20;
const WARM_UP = 10;
const ROUNDS = 100;
const RETRIED_TURNS = 100;
const TARGET_ADDED_MS_P50 = 15;

export const targets: BenchTarget[] = [
  { figure: 'addedMsP50', atMost: TARGET_ADDED_MS_P50, what: 'what an outside MCP tool over stdio adds to a turn beyond a built-in read, median' },
  { figure: 'duplicateCalls', atMost: 0, what: 'outside calls beyond one per retried write turn' },
  { figure: 'errors', atMost: 0, what: 'turns that failed' },
];

const bot = (name: string, app: string) =>
  parseBotFile(
    `${name}.md`,
    `---
name: ${name}
memory: none
apps: [${app}]
limits: { steps: 4, spend: 10, perMinute: { answers: 100000 }, perDay: { spend: 100000 } }
---
You answer.`,
  );

function mcpFile(name: string, text: string): McpAppFile {
  const file = parseAppFile(name, text);
  if (file.kind !== 'mcp') throw new Error(`${name} is not an MCP app file.`);
  return file;
}

/** `app` with its verbs' `run` timed (`own`, by verb) and counted (`calls`, by verb). */
function timed(app: App, own: Map<string, number[]>, calls: Map<string, number>): App {
  return {
    ...app,
    verbs: app.verbs.map((verb): Verb => ({
      ...verb,
      run: async (input, context) => {
        calls.set(verb.name, (calls.get(verb.name) ?? 0) + 1);
        const started = performance.now();
        const output = await verb.run(input, context);
        own.get(verb.name)?.push(performance.now() - started);
        return output;
      },
    })),
  };
}

/** The upstream: the tool the turn is offered, called once; then text saying whether it worked. */
async function model(reply: Reply, received: Received): Promise<void> {
  const messages = received.body.messages as { role: string; content?: string }[];
  const last = messages.at(-1);
  const offered = ((received.body.tools ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
  await delay(MODEL_FIRST_TOKEN_MS);
  if (last?.role === 'user') {
    const adding = /^remember (.+)$/.exec(last.content ?? '');
    const call = adding !== null
      ? { name: 'memory-create_entities', arguments: JSON.stringify({ entities: [{ name: adding[1], entityType: 'bench', observations: ['added by the bench'] }] }) }
      : offered.includes('everything-echo')
        ? { name: 'everything-echo', arguments: '{"message":"shopping"}' }
        : { name: 'lists-read', arguments: '{"list":"shopping"}' };
    reply.toolCalls([{ index: 0, id: 'call_1', type: 'function', function: { name: call.name, arguments: '' } }]);
    reply.toolCalls([{ index: 0, function: { arguments: call.arguments } }]);
    reply.finish('tool_calls');
  } else {
    const answer = JSON.parse(last?.content ?? '{}') as { ok?: boolean };
    for (const word of answer.ok === true ? ['Here ', 'it ', 'is.'] : ['That ', 'failed.']) reply.token(word);
    reply.finish();
  }
  reply.done();
}

class Page {
  private cookie = '';
  constructor(private readonly url: string) {}
  async start(botSlug: string): Promise<string> {
    const res = await fetch(`${this.url}/api/start`, { method: 'POST', headers: { 'content-type': 'application/json', ...(this.cookie === '' ? {} : { cookie: this.cookie }) }, body: JSON.stringify({ bot: botSlug }) });
    const set = res.headers.get('set-cookie');
    if (set !== null) this.cookie = set.split(';')[0] ?? '';
    return ((await res.json()) as { grant: string }).grant;
  }
  /** Ms from the request to the first answer text, and whether the answer ended saying the tool worked. */
  async turn(grant: string, question: string, conversation: string, turnId: string, signal?: AbortSignal): Promise<{ firstMs: number; worked: boolean }> {
    const started = performance.now();
    const res = await fetch(`${this.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${grant}`, 'content-type': 'application/json', 'x-confab-conversation': conversation, 'x-confab-turn': turnId, cookie: this.cookie },
      body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: question }] }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (res.status !== 200 || res.body === null) return { firstMs: Number.NaN, worked: false };
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let firstMs = Number.NaN;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
      if (Number.isNaN(firstMs) && /"content":"[^"]/.test(text)) firstMs = performance.now() - started;
    }
    return { firstMs, worked: text.includes('[DONE]') && text.includes('"is."') };
  }
}

export async function run(): Promise<BenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'confab-outside-bench-'));
  const memoryPath = join(dir, 'memory.jsonl');
  await writeFile(memoryPath, '');
  const deps = { env: { PATH: process.env.PATH, BENCH_MEMORY_FILE: memoryPath }, appsDir: dir, log: () => undefined };
  const outside: McpApp[] = [];
  outside.push(
    await mcpApp(
      mcpFile('everything.md', `---\nmcp: { command: ${process.execPath}, args: [${resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js')}, stdio] }\ntools: [echo]\nreads: [echo]\n---\nEchoes.\n`),
      deps,
      { stderr: 'ignore' },
    ),
  );
  outside.push(
    await mcpApp(
      mcpFile('memory.md', `---\nmcp: { command: ${process.execPath}, args: [${resolve('node_modules/@modelcontextprotocol/server-memory/dist/index.js')}], env: { MEMORY_FILE_PATH: env:BENCH_MEMORY_FILE } }\ntools: [create_entities]\n---\nRemembers.\n`),
      deps,
      { stderr: 'ignore' },
    ),
  );
  const own = new Map<string, number[]>([
    ['lists.read', []],
    ['everything.echo', []],
  ]);
  const calls = new Map<string, number>();
  const lists = (await loadApps()).filter((app) => app.name === 'lists');
  const upstream = await startUpstream(model);
  const verbLogs: Record<string, unknown>[] = [];
  const backend = await openTestBackend({
    bots: new Map([
      ['builtin', bot('builtin', 'lists')],
      ['outside', bot('outside', 'everything')],
      ['writer', bot('writer', 'memory')],
    ]),
    providers: [{ name: 'local', baseUrl: upstream.baseUrl, apiKey: 'bench', model: 'bench-model' }],
    live: true,
    registry: createRegistry([...lists, ...outside].map((app) => timed(app, own, calls))),
    verbLog: (line) => verbLogs.push(line as Record<string, unknown>),
  });
  const server = await serveApp(backend.app);
  try {
    const page = new Page(server.url);
    const grants = { builtin: await page.start('builtin'), outside: await page.start('outside'), writer: await page.start('writer') };
    const builtin: number[] = [];
    const outsideTurns: number[] = [];
    const added: number[] = [];
    let errors = 0;
    for (let round = 0; round < WARM_UP + ROUNDS; round += 1) {
      const ownBefore = own.get('lists.read')?.length ?? 0;
      const order = round % 2 === 0 ? (['builtin', 'outside'] as const) : (['outside', 'builtin'] as const);
      const times: Record<string, number> = {};
      for (const which of order) {
        const { firstMs, worked } = await page.turn(grants[which], "what's on my shopping list", `round-${String(round)}-${which}`, randomUUID());
        if (!worked && round >= WARM_UP) errors += 1;
        times[which] = firstMs;
      }
      if (round < WARM_UP) continue;
      const builtinOwnMs = (own.get('lists.read') ?? []).slice(ownBefore).reduce((a, b) => a + b, 0);
      builtin.push(times.builtin ?? Number.NaN);
      outsideTurns.push(times.outside ?? Number.NaN);
      added.push((times.outside ?? Number.NaN) - (times.builtin ?? Number.NaN) + builtinOwnMs);
    }

    // Retried write turns: the same conversation and messages again; every other first try cut mid-turn.
    calls.set('memory.create_entities', 0);
    let cut = 0;
    for (let turn = 0; turn < RETRIED_TURNS; turn += 1) {
      const question = `remember bench-entity-${String(turn)}`;
      const conversation = `retry-${String(turn)}`;
      // The page's id for this turn, sent with every try of it.
      const turnId = randomUUID();
      if (turn % 2 === 0) {
        const bargeIn = new AbortController();
        const attempt = page.turn(grants.writer, question, conversation, turnId, bargeIn.signal).catch(() => {
          cut += 1;
          return undefined;
        });
        await delay(MODEL_FIRST_TOKEN_MS + (turn % 7));
        bargeIn.abort();
        await attempt;
      } else {
        const first = await page.turn(grants.writer, question, conversation, turnId);
        if (!first.worked) errors += 1;
      }
      const retry = await page.turn(grants.writer, question, conversation, turnId);
      if (!retry.worked) errors += 1;
    }
    await delay(200);
    const entitiesInGraph = (await readFile(memoryPath, 'utf8')).split('\n').filter((line) => line.includes('"type":"entity"')).length;
    const writeCalls = calls.get('memory.create_entities') ?? 0;
    const addedSpread = spread(added);
    return {
      bench: 'outside-tools',
      addedMsP50: roundMs(addedSpread.p50),
      addedMsP95: roundMs(addedSpread.p95),
      duplicateCalls: Math.max(0, writeCalls - RETRIED_TURNS),
      errors,
      targetAddedMsP50: TARGET_ADDED_MS_P50,
      rounds: ROUNDS,
      modelFirstTokenMs: MODEL_FIRST_TOKEN_MS,
      builtinFirstTextMs: spread(builtin),
      outsideFirstTextMs: spread(outsideTurns),
      builtinVerbMsP50: spread(own.get('lists.read') ?? []).p50,
      outsideCallMs: spread(own.get('everything.echo') ?? []),
      retriedTurns: RETRIED_TURNS,
      firstAttemptsCut: cut,
      writeCalls,
      replayedRetries: verbLogs.filter((line) => line.verb === 'memory.create_entities' && line.replayed === true).length,
      entitiesInGraph,
    };
  } finally {
    await server.close();
    await backend.close();
    await upstream.close();
    await Promise.all(outside.map((app) => app.outside.close()));
    await rm(dir, { recursive: true, force: true });
  }
}
