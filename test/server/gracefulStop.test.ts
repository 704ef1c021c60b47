/**
 * The server as it runs for real — compiled (scripts/build-server.mjs) and started with `node`, as
 * `npm start` runs it — in a child process: a stop signal lets an answer under way run on
 * for the grace period, then cuts it with a sentence saying why and settles it, admits no new turn,
 * closes the database and exits 0; a second signal exits at once.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closingOf } from '../helpers/words';
import { startUpstream, talkingUntilClosed } from './chat/localServers';
import type { Upstream } from './chat/localServers';

interface Running {
  child: ChildProcessWithoutNullStreams;
  url: string;
  exited: Promise<number | null>;
  logs: string[];
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function startServer(dataDir: string, upstream: Upstream): Promise<Running> {
  const port = await freePort();
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
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { resolve(code); }));
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      logs.push(...text.split('\n').filter((l) => l !== ''));
      const listening = logs.map((l) => /"event":"server.listening","url":"([^"]+)"/.exec(l)).find((m) => m !== null);
      if (listening) resolve({ child, url: (listening[1] ?? '').replace(/\/$/, ''), exited, logs });
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

  it('lets an answer run on for the grace period, then cuts it with a sentence, and exits 0', async () => {
    const server = await startServer(dataDir, upstream);
    const reader = await askStreaming(server, 'Talk for a long time, please.');
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    const signalled = Date.now();
    server.child.kill('SIGTERM');
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const ranOnMs = Date.now() - signalled;
    expect(ranOnMs).toBeGreaterThanOrEqual(900);
    expect(text).toContain(JSON.stringify(closingOf('shutdown')).slice(1, -1));
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
    await expect.poll(() => server.logs.some((l) => l.includes('"event":"server.stopping"'))).toBe(true);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(143);
    await reader.cancel().catch(() => undefined);
  }, 60_000);
});
