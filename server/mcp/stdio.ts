/**
 * `npm run --silent mcp -- --url <confab server> [--token-env CONFAB_MCP_TOKEN]`: Confab's verbs
 * over stdio, for MCP clients that start a server as a child process (Claude Desktop). A thin
 * bridge (`bridge.ts`) to a running Confab server: the token is read from the environment variable
 * named, never from the command line.
 *
 * stdout carries protocol messages only; logs go to stderr, one JSON object per line, with no
 * arguments, results or token. It stops when stdin closes (exit 0) or on SIGINT (130) or SIGTERM
 * (143): running calls are aborted and the connection closed, and whatever is left is ended 2 s
 * after the stop began. Exit codes: 64 usage · 69 the server unreachable · 70 unexpected failure
 * · 77 the token refused · 78 the token variable unset · 1 the stdio connection failed (a message
 * over 1 MiB, say).
 */
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import { MCP_TOKEN_ENV } from '../../common/mcp/tokens';
import { BridgeError, openBridge, plainHttpRefusal } from './bridge';
import type { BridgeLogLine } from './bridge';
import { MCP_MESSAGE_BYTES_MAX } from './callLimits';

export const EXIT = { stdinClosed: 0, transport: 1, usage: 64, unreachable: 69, internal: 70, refused: 77, config: 78, sigint: 130, sigterm: 143 } as const;
/** How long a stop may take before the process is ended, in ms. */
export const STOP_MS = 2000;

const USAGE = `Usage: npm run --silent mcp -- --url <Confab server URL> [--token-env ${MCP_TOKEN_ENV}]`;

type LogLine = BridgeLogLine | { event: 'bridge.exit'; code: number; why: string };

function log(line: LogLine): void {
  process.stderr.write(`${JSON.stringify(line)}\n`);
}

/** Says why in one log line on stderr, for whoever set the client up, and ends with its code. */
function fail(exit: Extract<LogLine, { event: 'bridge.exit' }>): never {
  log(exit);
  process.exit(exit.code);
}

interface Args {
  url: string;
  tokenEnv: string;
}

function readArgs(argv: readonly string[]): Args {
  let url: string | undefined;
  let tokenEnv = MCP_TOKEN_ENV;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if ((arg === '--url' || arg === '--token-env') && (value === undefined || value.startsWith('--'))) fail({ event: 'bridge.exit', code: EXIT.usage, why: `${arg} needs a value. ${USAGE}` });
    if (arg === '--url') url = value;
    else if (arg === '--token-env') tokenEnv = value ?? tokenEnv;
    else fail({ event: 'bridge.exit', code: EXIT.usage, why: `${String(arg)} is not an option here. ${USAGE}` });
    i += 1;
  }
  if (url === undefined) fail({ event: 'bridge.exit', code: EXIT.usage, why: `--url is missing: give the address of the running Confab server. ${USAGE}` });
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    fail({ event: 'bridge.exit', code: EXIT.usage, why: `--url is not a URL; give one like http://127.0.0.1:8787. ${USAGE}` });
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.username !== '' || parsed.password !== '') {
    fail({ event: 'bridge.exit', code: EXIT.usage, why: '--url must be a plain http(s) URL, without a user name or password.' });
  }
  const insecure = plainHttpRefusal(parsed);
  if (insecure !== undefined) fail({ event: 'bridge.exit', code: EXIT.usage, why: insecure });
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) fail({ event: 'bridge.exit', code: EXIT.usage, why: '--token-env must name an environment variable (letters, digits and underscores).' });
  return { url: parsed.href, tokenEnv };
}

async function main(): Promise<void> {
  // Nothing but protocol messages may reach stdout: a stray log line from anywhere goes to stderr.
  /* eslint-disable no-console -- redirecting these, not calling them */
  console.log = console.error;
  console.info = console.error;
  console.debug = console.error;
  /* eslint-enable no-console */

  const args = readArgs(process.argv.slice(2));
  const token = process.env[args.tokenEnv]?.trim();
  if (token === undefined || token === '') {
    fail({ event: 'bridge.exit', code: EXIT.config, why: `${args.tokenEnv} is not set: put a personal MCP token from Confab's settings in it.` });
  }

  const open = await openBridge({ serverUrl: args.url, token, log }).catch((error: unknown) => {
    if (error instanceof BridgeError) fail({ event: 'bridge.exit', code: error.kind === 'refused' ? EXIT.refused : EXIT.unreachable, why: error.message });
    throw error;
  });

  let stopping = false;
  const transport = new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: MCP_MESSAGE_BYTES_MAX });
  let tooLarge = false;
  const handle = serveStdio(() => open.serverForConnection(), {
    transport,
    onerror: (error) => {
      // The transport closes itself after this; the stop below follows from stdin's side.
      if (error.message.startsWith('ReadBuffer exceeded')) tooLarge = true;
    },
  });

  const stop = (code: number, why: string) => {
    if (stopping) {
      // A second signal: end now.
      if (why === 'SIGINT' || why === 'SIGTERM') process.exit(code);
      return;
    }
    stopping = true;
    process.exitCode = code;
    log({ event: 'bridge.stopping', why, running: open.running() });
    setTimeout(() => {
      log({ event: 'bridge.exit', code, why: `still stopping after ${STOP_MS} ms; ended` });
      process.exit(code);
    }, STOP_MS).unref();
    void Promise.allSettled([open.close(), handle.close()]).then(() => {
      log({ event: 'bridge.exit', code, why });
      process.exit(code);
    });
  };

  const closeTransport = transport.onclose;
  transport.onclose = () => {
    closeTransport?.();
    stop(tooLarge ? EXIT.transport : EXIT.stdinClosed, tooLarge ? `a message over ${MCP_MESSAGE_BYTES_MAX} bytes` : 'stdin closed');
  };
  process.stdin.once('end', () => {
    stop(EXIT.stdinClosed, 'stdin closed');
  });
  process.on('SIGINT', () => {
    stop(EXIT.sigint, 'SIGINT');
  });
  process.on('SIGTERM', () => {
    stop(EXIT.sigterm, 'SIGTERM');
  });
}

main().catch((error: unknown) => {
  log({ event: 'bridge.failed', error: error instanceof Error ? error.name : typeof error });
  process.exit(EXIT.internal);
});
