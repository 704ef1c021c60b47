/**
 * The stdio bridge as MCP clients run it: a real child process (`node --import tsx
 * server/mcp/stdio.ts`, and once through `npm run --silent mcp`) talking to a Confab server served
 * in this process on a real port. Driven by the official SDK client over stdio, and by hand where a
 * test needs the raw streams: what stdout carries, the exit codes, and that a stop is the orderly
 * one (running calls aborted, the connection closed) rather than its deadline.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { unreachableUrl } from '../chat/localServers';
import { personOf, startConfabMcp } from './confabMcp';
import type { ConfabMcp } from './confabMcp';
import { probeSeen, probeWaitReached } from './probeApp';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const BRIDGE = ['--import', 'tsx', 'server/mcp/stdio.ts'];

let confab: ConfabMcp;
let token: string;

beforeAll(async () => {
  confab = await startConfabMcp();
  token = (await confab.tokenFor('stdio-person', ['both'])).token;
});

afterAll(async () => {
  await confab.close();
});

const textOf = (result: { content?: unknown }) => ((result.content as { text: string }[] | undefined) ?? []).map((c) => c.text).join('');

/** The environment a client would give the bridge: a PATH and the token, nothing else. */
const envWith = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '', ...extra });

async function stdioClient(command: string, args: string[], env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({ command, args, env, cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'confab-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

interface Running {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (or the signal that ended it) once its output has all been read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function runBridge(args: string[], env: Record<string, string>): Running {
  const child = spawn(process.execPath, [...BRIDGE, ...args], { cwd: ROOT, env, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    // 'close', not 'exit': by then stdout and stderr have been read to their end.
    child.once('close', (code, signal) => {
      done({ code, signal });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Sends one JSON-RPC message on the bridge's stdin and answers the answer with `id`, once it is on stdout. */
function exchange(bridge: Running, message: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answered = () =>
    bridge
      .stdout()
      .split('\n')
      // The last piece is a line still being written (or nothing).
      .slice(0, -1)
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((m) => m.id === message.id);
  return new Promise((resolve, reject) => {
    const look = () => {
      const answer = answered();
      if (answer === undefined) return;
      stop();
      resolve(answer);
    };
    const ended = () => {
      stop();
      const answer = answered();
      if (answer !== undefined) resolve(answer);
      else reject(new Error(`The bridge ended without answering ${String(message.method)}; stderr: ${bridge.stderr()}`));
    };
    const stop = () => {
      bridge.child.stdout.off('data', look);
      bridge.child.off('exit', ended);
    };
    // Added after `runBridge`'s own listener, so the data is in `stdout()` when this looks.
    bridge.child.stdout.on('data', look);
    bridge.child.once('exit', ended);
    bridge.child.stdin.write(`${JSON.stringify(message)}\n`);
  });
}

/** The bridge's last line on stderr, which says how it ended. */
function lastLogLine(bridge: Running): { event: string; code?: number; why?: string } {
  return JSON.parse(bridge.stderr().trim().split('\n').at(-1) ?? '{}') as { event: string; code?: number; why?: string };
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

async function initialised(bridge: Running): Promise<void> {
  await exchange(bridge, INITIALIZE);
  bridge.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
}

describe('the stdio bridge, driven by the SDK client', () => {
  let client: Client;
  let stderr: () => string;

  beforeAll(async () => {
    ({ client, stderr } = await stdioClient(process.execPath, [...BRIDGE, '--url', confab.url], envWith({ CONFAB_MCP_TOKEN: token })));
  });

  afterAll(async () => {
    await client.close();
  });

  it('lists the same tools as the server does over HTTP', async () => {
    const overHttp = await (await confab.client(token)).listTools();
    const overStdio = await client.listTools();
    expect(overStdio.tools).toEqual(overHttp.tools);
  });

  it('makes a write whose effect the person’s own reads see, and refuses a confirm verb with the server’s words', async () => {
    const added = await client.callTool({ name: 'lists-add', arguments: { list: 'shopping', items: ['bread'], idempotencyKey: 'stdio-bread-00000001' } });
    expect(added.isError).toBeFalsy();
    const read = await confab.api.executor.execute({ verb: 'lists.read', input: { list: 'shopping' }, caller: { person: personOf('stdio-person'), bot: 'both', via: 'model', timeZone: 'UTC' } });
    expect(read.ok && read.output).toMatchObject({ items: ['bread'] });
    const wipe = await client.callTool({ name: 'probe-wipe', arguments: { idempotencyKey: 'stdio-wipe-000000001' } });
    expect(wipe.isError).toBe(true);
    expect(textOf(wipe)).toMatch(/^confirmation_required: probe\.wipe needs the person's yes in their Confab page; it cannot be approved over MCP\.$/);
  });

  it('carries the client’s cancellation through to the verb’s signal on the server', async () => {
    const stop = new AbortController();
    const call = client.callTool({ name: 'probe-wait', arguments: { ms: 10_000, tag: 'stdio-cancel' } }, { signal: stop.signal });
    await probeWaitReached('stdio-cancel', 'started');
    stop.abort();
    await expect(call).rejects.toThrow();
    await probeWaitReached('stdio-cancel', 'aborted');
    expect(probeSeen.waits.get('stdio-cancel')?.aborted).toBe(true);
  });

  it('logs JSON lines on stderr, naming tools but never the token, an argument or a result', () => {
    const lines = stderr()
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { event: string });
    expect(lines.map((l) => l.event)).toContain('bridge.call');
    expect(stderr()).not.toContain(token);
    expect(stderr()).not.toMatch(/bread|stdio-bread|shopping/);
  });
});

describe('the stdio bridge, by hand', () => {
  it('writes nothing but protocol messages on stdout', async () => {
    const bridge = runBridge(['--url', confab.url], envWith({ CONFAB_MCP_TOKEN: token }));
    await initialised(bridge);
    const listed = await exchange(bridge, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((listed.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    await exchange(bridge, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'probe-now', arguments: {} } });
    bridge.child.stdin.end();
    expect((await bridge.exited).code).toBe(0);
    for (const line of bridge.stdout().split('\n').filter((l) => l !== '')) {
      expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe('2.0');
    }
  });

  it('stops when stdin closes, even with a call running, aborting the call rather than waiting for it or its deadline', async () => {
    const bridge = runBridge(['--url', confab.url], envWith({ CONFAB_MCP_TOKEN: token }));
    await initialised(bridge);
    bridge.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'probe-wait', arguments: { ms: 15_000, tag: 'stdin-closed' } } })}\n`);
    await probeWaitReached('stdin-closed', 'started');
    bridge.child.stdin.end();
    const { code } = await bridge.exited;
    expect(code).toBe(0);
    // Ended by its orderly stop: not by `STOP_MS` running out, which says "still stopping".
    expect(lastLogLine(bridge)).toEqual({ event: 'bridge.exit', code: 0, why: 'stdin closed' });
    await probeWaitReached('stdin-closed', 'aborted');
    expect(probeSeen.waits.get('stdin-closed')?.aborted).toBe(true);
  });

  for (const [signal, expected] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const) {
    it(`stops on ${signal} by its orderly stop, with exit code ${expected}`, async () => {
      const bridge = runBridge(['--url', confab.url], envWith({ CONFAB_MCP_TOKEN: token }));
      await initialised(bridge);
      bridge.child.kill(signal);
      const { code } = await bridge.exited;
      expect(code).toBe(expected);
      expect(lastLogLine(bridge)).toEqual({ event: 'bridge.exit', code: expected, why: signal });
    });
  }

  it('ends with exit 1 on a message over 1 MiB', async () => {
    const bridge = runBridge(['--url', confab.url], envWith({ CONFAB_MCP_TOKEN: token }));
    await initialised(bridge);
    bridge.child.stdin.write(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"probe-note","arguments":{"text":"${'x'.repeat(1024 * 1024 + 10)}"}}}\n`);
    const { code } = await bridge.exited;
    expect(code).toBe(1);
  });

  it('says what is wrong, with its own exit code, when the URL is missing, the token variable is unset, the server is unreachable or the token refused', async () => {
    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [[], { CONFAB_MCP_TOKEN: token }, 64, /--url is missing/],
      [['--url', confab.url, '--token-env', 'MY_CONFAB_TOKEN'], {}, 78, /MY_CONFAB_TOKEN is not set/],
      [['--url', await unreachableUrl()], { CONFAB_MCP_TOKEN: token }, 69, /Cannot reach the Confab server/],
      [['--url', confab.url], { CONFAB_MCP_TOKEN: `confab_mcp_${'B'.repeat(43)}` }, 77, /refused the token/],
      [['--url', 'http://confab.example:8787'], { CONFAB_MCP_TOKEN: token }, 64, /--url is plain http to confab\.example:8787, which would send your token unencrypted/],
    ];
    await Promise.all(
      cases.map(async ([args, env, expected, said]) => {
        const bridge = runBridge(args, envWith(env));
        const { code } = await bridge.exited;
        expect(code, bridge.stderr()).toBe(expected);
        const last = lastLogLine(bridge);
        expect(last.event).toBe('bridge.exit');
        expect(last.why).toMatch(said);
        expect(bridge.stdout()).toBe('');
        expect(bridge.stderr()).not.toContain('BBBB');
      }),
    );
  });

  it('runs as `npm run --silent mcp`, as a client configured from the settings starts it', async () => {
    const { client } = await stdioClient('npm', ['--silent', '--prefix', ROOT, 'run', 'mcp', '--', '--url', confab.url, '--token-env', 'CONFAB_MCP_TOKEN'], envWith({ CONFAB_MCP_TOKEN: token }));
    try {
      const now = await client.callTool({ name: 'probe-now', arguments: {} });
      expect(now.structuredContent).toMatchObject({ via: 'mcp' });
    } finally {
      await client.close();
    }
  });
});
