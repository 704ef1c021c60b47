/**
 * The stdio bridge: an MCP server on stdin/stdout that forwards every request to a running Confab
 * server's `/mcp` over Streamable HTTP, with the person's token. It runs no verb and opens no
 * database — the server does both, so the embedded database is only ever opened by one process.
 * Its `tools/list` is the server's, and its `tools/call` is the server's answer, passed on as it is.
 *
 * A call the client cancels (or that is still running when the bridge stops) has its HTTP request
 * aborted, which the server turns into the verb's abort signal; a write that has started still
 * finishes there.
 */
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CallToolResult, ListToolsResult, ServerContext } from '@modelcontextprotocol/server';
import { mcpEndpointOf } from '../../common/mcp/tokens';
import { isLoopbackName } from '../guard';
import { MCP_SERVER_INFO } from './adapter';

/** Why the bridge could not start or go on; each has its exit code (`stdio.ts`). */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  constructor(
    readonly kind: 'unreachable' | 'refused' | 'failed',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** One line about the bridge's work: never an argument, a result or the token. */
export type BridgeLogLine =
  | { event: 'bridge.ready'; server: string; era: string; tools: number }
  | { event: 'bridge.call'; tool: string; outcome: 'ok' | 'error' | 'cancelled' | 'failed'; ms: number }
  | { event: 'bridge.stopping'; why: string; running: number }
  | { event: 'bridge.failed'; error: string };

export interface BridgeOptions {
  /** The Confab server, e.g. http://127.0.0.1:8787 (its `/mcp` is called). */
  serverUrl: string;
  token: string;
  log: (line: BridgeLogLine) => void;
  /** How long connecting may take, in ms. Default 10 s. */
  connectTimeoutMs?: number;
}

export interface Bridge {
  /** The server instance for one stdio connection (for `serveStdio`'s factory). */
  serverForConnection: () => McpServer;
  /** Calls still waiting for the Confab server. */
  running: () => number;
  /** Aborts every running call and closes the connection to the Confab server. */
  close: () => Promise<void>;
}

/**
 * Why the bridge will not send the token to `url`, or undefined when it may: plain http carries the
 * token readable by anyone on the way, so it is taken only to this machine.
 */
export function plainHttpRefusal(url: URL): string | undefined {
  if (url.protocol !== 'http:' || isLoopbackName(url.hostname)) return undefined;
  return `--url is plain http to ${url.host}, which would send your token unencrypted; use https://, or http:// only to this machine (localhost or 127.0.0.1).`;
}

/** Connects to the Confab server (checking the token) and answers the bridge; rejects with `BridgeError`. */
export async function openBridge(options: BridgeOptions): Promise<Bridge> {
  const endpoint = new URL(mcpEndpointOf(options.serverUrl));
  const refusal = plainHttpRefusal(endpoint);
  if (refusal !== undefined) throw new BridgeError('failed', refusal);
  const upstream = new Client({ name: 'confab-stdio-bridge', version: MCP_SERVER_INFO.version }, { versionNegotiation: { mode: 'auto' } });
  const transport = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${options.token}` } } });
  try {
    await upstream.connect(transport, { timeout: options.connectTimeoutMs ?? 10_000 });
    const { tools } = await upstream.listTools(undefined, { timeout: options.connectTimeoutMs ?? 10_000 });
    options.log({ event: 'bridge.ready', server: endpoint.origin, era: upstream.getProtocolEra() ?? 'unknown', tools: tools.length });
  } catch (error) {
    await upstream.close().catch(() => undefined);
    throw bridgeErrorOf(error, endpoint.origin);
  }

  const stopping = new AbortController();
  let running = 0;

  async function callTool(params: { name: string; arguments?: Record<string, unknown> }, ctx: ServerContext): Promise<CallToolResult> {
    const startedMs = Date.now();
    running += 1;
    let outcome: 'ok' | 'error' | 'cancelled' | 'failed' = 'failed';
    try {
      const result = await upstream.callTool(params, { signal: AbortSignal.any([ctx.mcpReq.signal, stopping.signal]) });
      outcome = result.isError === true ? 'error' : 'ok';
      return result;
    } catch (error) {
      if (ctx.mcpReq.signal.aborted || stopping.signal.aborted) outcome = 'cancelled';
      throw forwardable(error, endpoint.origin);
    } finally {
      running -= 1;
      options.log({ event: 'bridge.call', tool: params.name, outcome, ms: Date.now() - startedMs });
    }
  }

  async function listTools(params: { cursor?: string } | undefined): Promise<ListToolsResult> {
    try {
      return await upstream.listTools(params, { cacheMode: 'refresh' });
    } catch (error) {
      throw forwardable(error, endpoint.origin);
    }
  }

  return {
    serverForConnection() {
      const instructions = upstream.getInstructions();
      const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, ...(instructions === undefined ? {} : { instructions }) });
      // Forwarded as they are, so the list and the results are the Confab server's own: the
      // underlying protocol server takes the two handlers (the SDK's way to custom handlers).
      server.server.setRequestHandler('tools/list', (request) => listTools(request.params));
      server.server.setRequestHandler('tools/call', (request, ctx) => callTool(request.params, ctx));
      return server;
    },
    running: () => running,
    async close() {
      stopping.abort();
      await upstream.close().catch(() => undefined);
    },
  };
}

/** What the Confab server's refusal or absence means for starting the bridge. */
function bridgeErrorOf(error: unknown, origin: string): BridgeError {
  const status = httpStatusOf(error);
  if (status === 401 || status === 403) {
    return new BridgeError('refused', `The Confab server at ${origin} refused the token: it is not valid or was revoked. Make a new one in Confab's settings.`, { cause: error });
  }
  if (status !== undefined) return new BridgeError('unreachable', `The Confab server at ${origin} answered HTTP ${status} at /mcp; is that a Confab server, and is it up to date?`, { cause: error });
  return new BridgeError('unreachable', `Cannot reach the Confab server at ${origin}; start it (npm start) or check --url.`, { cause: error });
}

/** An upstream failure as the stdio client should see it: the server's own protocol errors pass as they are. */
function forwardable(error: unknown, origin: string): Error {
  if (error instanceof ProtocolError) return error;
  if (isAbort(error)) return error instanceof Error ? error : new Error(String(error));
  const refused = bridgeErrorOf(error, origin);
  return new ProtocolError(ProtocolErrorCode.InternalError, refused.message);
}

function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof SdkHttpError)) return undefined;
  const status = (error.data as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}
