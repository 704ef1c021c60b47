/**
 * A graceful stop. The grace period itself, on a simulated clock: answers under way run on for all
 * of it and are cut when it ends. Then the server as it runs for real — compiled
 * (scripts/build-server.mjs) and started with `node`, as `npm start` runs it — in a child process: a
 * stop signal lets an answer under way run on, then cuts it with a sentence saying why and settles
 * it, closes the database and exits 0; a second signal exits at once.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnswerStop } from '../../server/chat/answer';
import { RunningAnswers } from '../../server/chat/runningAnswers';
import { closingOf } from '../helpers/words';
import { startUpstream, talkingUntilClosed } from './chat/localServers';
import type { Upstream } from './chat/localServers';
import { sparePort } from '../helpers/sparePort';

interface Running {
  child: ChildProcessWithoutNullStreams;
  url: string;
  exited: Promise<number | null>;
  logs: string[];
  /** Resolves once the server has logged a line of `event` (at once if it already has). */
  logged: (event: string) => Promise<void>;
}

async function startServer(dataDir: string, upstream: Upstream): Promise<Running> {
  const port = await sparePort();
  const child = spawn(process.execPath, [join(BUILT, 'index.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      CONFAB_DATA_DIR: dataDir,
      CONFAB_DIST: join(dataDir, 'no-dist'),
      AGENTS_LIVE: '1',
      CONFAB_PROVIDERS: JSON.stringify([{ name: 'talker', baseUrl: upstream.baseUrl, model: 'm', keyEnv: 'TALKER_KEY' }]),
      TALKER_KEY: 'k',
      CONFAB_STOP_GRACE_S: '1',
      CONFAB_EMBEDDER: 'hash',
    },
  });
  const logs: string[] = [];
  const waiting: { event: string; heard: () => void }[] = [];
  const hasLogged = (event: string) => logs.some((l) => l.includes(`"event":"${event}"`));
  const logged = (event: string) =>
    new Promise<void>((heard) => {
      if (hasLogged(event)) heard();
      else waiting.push({ event, heard });
    });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { resolve(code); }));
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      logs.push(...text.split('\n').filter((l) => l !== ''));
      for (const one of waiting.filter((w) => hasLogged(w.event))) {
        waiting.splice(waiting.indexOf(one), 1);
        one.heard();
      }
      const listening = logs.map((l) => /"event":"server.listening","url":"([^"]+)"/.exec(l)).find((m) => m !== null);
      if (listening) resolve({ child, url: (listening[1] ?? '').replace(/\/$/, ''), exited, logs, logged });
    });
    void exited.then((code) => { reject(new Error(`The server exited (${String(code)}) before listening: ${logs.join('\n')}`)); });
  });
}

/** Starts a conversation with the demo bot on `server` and asks it for a streamed answer to `content`: the answer's reader. */
async function askStreaming(server: Running, content: string): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const started = await fetch(`${server.url}/api/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bot: 'demo' }) });
  const { grant } = (await started.json()) as { grant: string };
  const answer = await fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${grant}`, 'content-type': 'application/json' },
    body: JSON.stringify({ stream: true, messages: [{ role: 'user', content }] }),
  });
  return (answer.body as ReadableStream<Uint8Array>).getReader();
}

/** The compiled server, inside the project so its packages resolve; removed afterwards. */
const BUILT = join('build', `test-server-${String(process.pid)}`);

describe('the running answers, stopping', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** One answer under way, settled (as the door settles it) once it is cut. */
  function answerUnderWay(running: RunningAnswers): AbortSignal {
    const controller = new AbortController();
    const settled = running.track(controller);
    controller.signal.addEventListener('abort', settled);
    return controller.signal;
  }

  it('lets an answer run on for the whole grace period, then cuts it saying why', async () => {
    const running = new RunningAnswers();
    const answer = answerUnderWay(running);
    const stopped = running.stop(1000);
    expect(running.stopping).toBe(true);
    await vi.advanceTimersByTimeAsync(999);
    expect(answer.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(answer.reason).toBeInstanceOf(AnswerStop);
    expect(answer.reason).toMatchObject({ why: 'shutdown' });
    expect(await stopped).toBe(1);
  });

  it('cuts nothing when the answers end within the grace period', async () => {
    const running = new RunningAnswers();
    const controller = new AbortController();
    const settled = running.track(controller);
    const stopped = running.stop(1000);
    await vi.advanceTimersByTimeAsync(400);
    settled();
    expect(await stopped).toBe(0);
    expect(controller.signal.aborted).toBe(false);
  });
});

describe('the compiled server, stopping', () => {
  let upstream: Upstream;
  let dataDir: string;
  beforeAll(async () => {
    const built = spawnSync(process.execPath, ['scripts/build-server.mjs', '--out', BUILT], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`The server did not build: ${built.stderr}`);
    upstream = await startUpstream(talkingUntilClosed('word '));
    dataDir = mkdtempSync(join(tmpdir(), 'confab-stop-'));
  });
  afterAll(async () => {
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(BUILT, { recursive: true, force: true });
  });

  it('lets an answer run on after the signal, then cuts it with a sentence, and exits 0', async () => {
    const server = await startServer(dataDir, upstream);
    const reader = await askStreaming(server, 'Talk for a long time, please.');
    const decoder = new TextDecoder();
    await reader.read();
    server.child.kill('SIGTERM');
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    // Words kept coming after the signal, and then the sentence saying why the answer stopped.
    const closing = text.indexOf(JSON.stringify(closingOf('shutdown')).slice(1, -1));
    expect(text.indexOf('"content":"word "')).toBeGreaterThanOrEqual(0);
    expect(closing).toBeGreaterThan(text.indexOf('"content":"word "'));
    expect(text).toContain('data: [DONE]');
    expect(await server.exited).toBe(0);
    const stopped = server.logs.find((l) => l.includes('"event":"server.stopped"'));
    expect(stopped).toContain('"answersCut":1');
    // The cut answer was settled: its usage is recorded, nothing is held.
    expect(server.logs.some((l) => l.includes('"event":"answer.ended"') && l.includes('"ended":"shutdown"'))).toBe(true);
  }, 60_000);

  it('exits at once on a second signal', async () => {
    const server = await startServer(dataDir, upstream);
    const reader = await askStreaming(server, 'Talk.');
    await reader.read();
    server.child.kill('SIGTERM');
    // Signals of one kind are not queued: the second is sent once the first has been taken.
    await server.logged('server.stopping');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(143);
    await reader.cancel().catch(() => undefined);
  }, 60_000);
});
