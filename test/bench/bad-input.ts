/**
 * Bad input, every route: the real server (`server/index.ts`, started as a process of its own on
 * 127.0.0.1 with a fresh data folder, the stand-in answering) is sent, on every route of its own
 * route table that takes a body (`bodyRoutes(app.routes)`, server/bodyCap.ts — so a route added
 * later is in the next run), each of:
 *
 * - a chunked body past the route's cap (spaces, 16 KiB a chunk, until the server answers);
 * - malformed JSON; wrong types (an array, null, a number, and an object whose every known field has
 *   the wrong type); 200 kB of combining characters in every text field; 1,000-deep nesting, as the
 *   whole body and as a field;
 * - a body that never ends: a few bytes, then nothing. These are all sent at the start and held open
 *   while the rest run; each must be answered (or dropped) by the server, not by the bench giving up.
 *
 * Each request carries what a real caller would: the person's cookie from `POST /api/start`, the
 * grant on the door and the speak proxy, a personal MCP token on `/mcp`; a path's `:id` names the
 * person's own thread (so the lines route reads the body all the way), else a made-up id.
 *
 * Figures: `serverErrors` (answers 5xx, target 0; `errorsAt` names them), `rssGrowthMb` (the server
 * process's resident memory from /proc, its peak during the run over its level before — after one
 * warm-up request per route — target ≤ 32), `answeredThroughout` (`GET /api/health` answered 200
 * within `HEALTH_WITHIN_MS` after every request, and the held bodies were all answered or dropped),
 * `droppedUnanswered` (requests whose connection ended with no HTTP status at all — a person would see
 * a reset, not a sentence — target 0; `droppedAt` names each, route, input and the client's error).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bodyRoutes } from '../../server/bodyCap';
import type { BodyRoute } from '../../server/bodyCap';
import { loadBots } from '../../server/bots';
import type { BenchTarget } from '../helpers/benchSummary';
import { streamSpaces } from '../helpers/spaces';
import { openTestBackend } from '../helpers/testBackend';

export const targets: readonly BenchTarget[] = [
  { figure: 'routes', atLeast: 15, what: 'routes that take a body, from the route table' },
  { figure: 'requests', atLeast: 100, what: 'bad requests sent' },
  { figure: 'serverErrors', atMost: 0, what: 'answers 5xx to bad input' },
  { figure: 'rssGrowthMb', atMost: 32, what: "the server's resident memory, peak over before" },
  { figure: 'droppedUnanswered', atMost: 0, what: 'requests whose connection ended with no HTTP answer (droppedAt names them)' },
];

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** How far past its cap the chunked body would go, were it never refused. */
const OVER_CAP_BYTES = 8 * 1024 * 1024;
const HEALTH_WITHIN_MS = 5_000;
/** The longest the bench waits for the server to answer or drop a body that never ends (its door waits 10 s idle, 30 s in all). */
const HELD_WITHIN_MS = 45_000;
const START_WITHIN_MS = 120_000;
const MADE_UP_ID = '00000000-0000-4000-8000-000000000000';
const COMBINING = '\u0301'.repeat(100_000); // 200 kB of UTF-8
const DEEP = `${'['.repeat(1000)}${']'.repeat(1000)}`;
/** Every field a route here reads, given a value of the wrong type. */
const WRONG_TYPES = {
  bot: 42, who: [], text: {}, clientId: 7, messages: 'hello', input: 9, voice: false, speed: 'fast', name: 1, bots: 'demo',
  timeZone: 3, page: 3, device: null, live: 'yes', events: 1, jsonrpc: 2, method: 5, id: {}, params: 'x', stream: 'yes',
};

interface Answer {
  /** The HTTP status, or 0 when the connection ended without one. */
  status: number;
  text: string;
}

interface Caller {
  cookie: string;
  grant: string;
  mcpToken: string;
  threadId: string;
}

/** A free port on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('No port was given.'));
      });
    });
  });
}

async function rssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`No VmRSS for process ${String(pid)}.`);
  return Number(kb);
}

/**
 * One request: `body` whole, `chunked` spaces until answered (at most `totalBytes`), or `held` —
 * `start` sent, then nothing, until the server answers or drops it (or `HELD_WITHIN_MS` passes: status -1).
 */
function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: { whole: string | Buffer } | { chunked: number } | { held: string },
): Promise<Answer> {
  return new Promise((resolve) => {
    let answered = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (answer: Answer) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      resolve(answer);
    };
    // Every body framed, as fetch and browsers frame it: node:http's client sends a DELETE's body with
    // no Content-Length (nor chunked) of its own, so the server reads a DELETE without a body and the
    // body's bytes as a malformed next request — answered by Node's bare 400 and a reset, not the door.
    const framing = 'whole' in body ? { 'content-length': String(Buffer.byteLength(body.whole)) } : { 'transfer-encoding': 'chunked' };
    const req = request(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers, ...framing } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        done({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') });
      });
      res.on('error', () => {
        done({ status: res.statusCode ?? 0, text: '' });
      });
    });
    // A connection the server closed on a body it refused, or dropped: no status, not a 5xx.
    req.on('error', (error: NodeJS.ErrnoException) => {
      done({ status: 0, text: error.code ?? error.message });
    });
    if ('whole' in body) {
      req.end(body.whole);
    } else if ('held' in body) {
      req.write(body.held);
      timer = setTimeout(() => {
        req.destroy();
        done({ status: -1, text: '' });
      }, HELD_WITHIN_MS);
    } else {
      streamSpaces(req, body.chunked, () => answered);
    }
  });
}

async function healthy(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(HEALTH_WITHIN_MS) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** The server, as `npm run serve` runs it, on `port` with a data folder of its own; resolves once it answers. */
async function startServer(port: number, dataDir: string): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', CONFAB_DATA_DIR: dataDir };
  // Nothing is bought: the stand-in answers.
  delete env.AGENTS_LIVE;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/index.ts'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (part: Buffer) => {
    log = (log + part.toString('utf8')).slice(-4000);
  });
  const base = `http://127.0.0.1:${String(port)}`;
  const startedMs = Date.now();
  while (Date.now() - startedMs < START_WITHIN_MS) {
    if (child.exitCode !== null) throw new Error(`The server exited ${String(child.exitCode)} before it answered: ${log}`);
    if (await healthy(base)) return child;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`The server did not answer within ${String(START_WITHIN_MS / 1000)} s: ${log}`);
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The person's cookie and grant, a personal MCP token, and a thread of theirs. */
async function caller(base: string): Promise<Caller> {
  const started = await fetch(`${base}/api/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'demo' }) });
  const cookie = started.headers.get('set-cookie')?.split(';')[0];
  const { grant } = (await started.json()) as { grant?: string };
  if (cookie === undefined || grant === undefined) throw new Error(`POST /api/start answered ${String(started.status)} with no cookie or grant.`);
  const asPerson = { 'content-type': 'application/json', cookie };
  const made = await fetch(`${base}/api/mcp/tokens`, { method: 'POST', headers: asPerson, body: JSON.stringify({ name: 'bad-input bench', bots: ['demo'] }) });
  const { token } = (await made.json()) as { token?: string };
  const thread = await fetch(`${base}/api/threads`, { method: 'POST', headers: asPerson, body: JSON.stringify({ bot: 'demo' }) });
  const { id } = (await thread.json()) as { id?: string };
  if (token === undefined || id === undefined) throw new Error(`An MCP token (${String(made.status)}) or a thread (${String(thread.status)}) could not be made.`);
  return { cookie, grant, mcpToken: token, threadId: id };
}

/** What a real caller of `route` sends beside the body, and the path with its ids. */
function addressed(route: BodyRoute, who: Caller): { path: string; headers: Record<string, string> } {
  const path = route.path.replace(/:id\b/, route.path.startsWith('/api/threads/') ? who.threadId : MADE_UP_ID).replace(/:[a-z]+/gi, MADE_UP_ID);
  if (route.path === '/mcp') return { path, headers: { authorization: `Bearer ${who.mcpToken}`, accept: 'application/json, text/event-stream' } };
  if (route.path.startsWith('/v1/') || route.path === '/api/speak') return { path, headers: { authorization: `Bearer ${who.grant}`, cookie: who.cookie } };
  return { path, headers: { cookie: who.cookie } };
}

/** The bad bodies every route is sent, by name (the chunked and never-ending ones apart). */
function badBodies(): [string, string][] {
  const long = { bot: 'demo', who: 'person', clientId: 'bench', text: COMBINING, input: COMBINING, name: COMBINING, messages: [{ role: 'user', content: COMBINING }] };
  const nested = { bot: 'demo', who: 'person', clientId: 'bench', text: 'hi', messages: [{ role: 'user', content: JSON.parse(DEEP) as unknown }] };
  return [
    ['malformed', '{"bot": "demo", "text": '],
    ['wrong-types-array', '[]'],
    ['wrong-types-null', 'null'],
    ['wrong-types-number', '42'],
    ['wrong-types-fields', JSON.stringify(WRONG_TYPES)],
    ['combining-200kB', JSON.stringify(long)],
    ['deep-1000', DEEP],
    ['deep-1000-field', `{"bot":"demo","who":"person","clientId":"bench","text":${DEEP},"messages":${DEEP},"params":${DEEP}}`],
    ['deep-1000-in-message', JSON.stringify(nested)],
  ];
}

export async function run(): Promise<{ bench: 'bad-input'; routes: number; requests: number; serverErrors: number; rssGrowthMb: number; answeredThroughout: boolean; [figure: string]: unknown }> {
  // The route table, as the server builds it: the same code, read in process.
  const table = await openTestBackend({ bots: await loadBots(join(ROOT, 'bots')) });
  const routes = bodyRoutes(table.app.routes);
  await table.close();

  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'confab-bad-input-'));
  const server = await startServer(port, dataDir);
  const pid = server.pid;
  if (pid === undefined) throw new Error('The server has no process id.');
  const base = `http://127.0.0.1:${String(port)}`;
  try {
    const who = await caller(base);
    const statuses = new Map<number, number>();
    const errorsAt: string[] = [];
    /** The requests whose connection ended with no HTTP answer at all: each one a person would see as a reset. */
    const droppedAt: string[] = [];
    let requests = 0;
    let healthMisses = 0;
    const note = (label: string, answer: Answer) => {
      requests++;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status >= 500) errorsAt.push(`${label} ${String(answer.status)} ${answer.text.slice(0, 160)}`);
      if (answer.status === 0) droppedAt.push(`${label}${answer.text === '' ? '' : ` (${answer.text})`}`);
    };

    // Warm-up: one well-formed-looking request per route, so the first use of a handler is not counted as growth.
    for (const route of routes) {
      const { path, headers } = addressed(route, who);
      await send(base, route.method, path, headers, { whole: '{}' });
    }
    const beforeKb = await rssKb(pid);
    let peakKb = beforeKb;

    // The bodies that never end, all at once, held open while the rest run.
    const held = routes.map((route) => {
      const { path, headers } = addressed(route, who);
      return send(base, route.method, path, headers, { held: '{"bot": "de' }).then((answer) => ({ label: `${route.method} ${route.path} held`, answer }));
    });

    for (const route of routes) {
      const { path, headers } = addressed(route, who);
      const label = `${route.method} ${route.path}`;
      note(`${label} chunked-over-cap`, await send(base, route.method, path, headers, { chunked: route.capBytes + OVER_CAP_BYTES }));
      if (!(await healthy(base))) healthMisses++;
      peakKb = Math.max(peakKb, await rssKb(pid));
      for (const [name, body] of badBodies()) {
        note(`${label} ${name}`, await send(base, route.method, path, headers, { whole: body }));
        if (!(await healthy(base))) healthMisses++;
        peakKb = Math.max(peakKb, await rssKb(pid));
      }
    }

    let heldUnanswered = 0;
    for (const { label, answer } of await Promise.all(held)) {
      if (answer.status === -1) heldUnanswered++;
      else note(label, answer);
    }
    peakKb = Math.max(peakKb, await rssKb(pid));
    const stillServing = await healthy(base);

    return {
      bench: 'bad-input',
      routes: routes.length,
      requests: requests + heldUnanswered,
      serverErrors: errorsAt.length,
      rssGrowthMb: Math.round(((peakKb - beforeKb) / 1024) * 10) / 10,
      answeredThroughout: healthMisses === 0 && heldUnanswered === 0 && stillServing,
      rssBeforeMb: Math.round(beforeKb / 1024),
      healthMisses,
      heldUnanswered,
      droppedUnanswered: statuses.get(0) ?? 0,
      droppedAt,
      statuses: Object.fromEntries([...statuses.entries()].sort((a, b) => a[0] - b[0])),
      errorsAt: errorsAt.slice(0, 20),
    };
  } finally {
    await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  }
}
