/**
 * An MCP server as an app (`server/apps/<app>.md` with `mcp:`): a server Confab starts over stdio
 * (`command`, `args`, `env`; stopped on `close()`) or one at a URL over Streamable HTTP (`url`,
 * `headers`). At start it is connected once and its `tools/list` read; the file's allow-list is
 * kept, each tool becoming a verb of the one registry (`outsideVerb`). A tool in the allow-list the
 * server does not have refuses the start, naming the file and `tools` — but only when the server
 * could be reached: one that cannot is left out (`status()` says why, a clause its operator can act
 * on), tried again with backoff, and its verbs published (`onVerbsChanged`) once it answers. A
 * server that goes away later (its process exits, its connection closes) is left out the same way
 * until it is back; a call under way when it goes fails `execution_failed` with a sentence the voice
 * can say.
 *
 * A call is `tools/call` with the executor's signal, so a barge-in or the deadline sends
 * `notifications/cancelled` to the server (the SDK does, on abort). A result with `isError` fails the
 * call; otherwise the verb answers the tool's `structuredContent` when it declares an output
 * schema, or `{ text }`, its text contents joined (anything else summarised, never passed on whole).
 */
import { basename } from 'node:path';
import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { resolveOptions } from '../../common/options';
import type { Limits, Relation } from '../../common/options';
import { VerbError } from '../verbs/errors';
import type { App, AppStatus, Narrator, OutsideAppInfo, Risk, Verb } from '../verbs/verb';
import { outsideCall } from '../gate';
import { outsideCallOf } from './appFile';
import { appFilePath } from './appFileError';
import { PrivateAddressError, causeOf, guardedFetch, shownUrl, systemLookup } from './address';
import { AppFileError, secretValue, secretValues } from './appFile';
import type { McpAppFile } from './appFile';
import { isSafer, keptRisksInMemory } from './keptRisks';
import type { OutsideDeps } from './loadOutside';
import { believedRisk, claimedRisk, narrationOf, outsideVerb, verbPartOf } from './outsideVerb';

export interface McpAppOptions {
  /** The wait before the first try at a server that is away, in ms; doubled after each failed try. Default 1000. */
  retryFirstMs: number;
  /** The longest wait between two tries, in ms. Default 60 000. */
  retryMaxMs: number;
  /** How long connecting may take (the handshake, then `tools/list`), in ms, before the server counts as away. Default 10 000. */
  connectTimeoutMs: number;
  /** Where a stdio server's stderr goes: Confab's own (`inherit`, so its operator reads the server's own words) or nowhere. Default `inherit`. */
  stderr: 'inherit' | 'ignore';
}

const MCP_APP_DEFAULTS: Readonly<McpAppOptions> = { retryFirstMs: 1000, retryMaxMs: 60_000, connectTimeoutMs: 10_000, stderr: 'inherit' };

const LIMITS: Limits<McpAppOptions> = { retryFirstMs: { over: 0 }, retryMaxMs: { over: 0 }, connectTimeoutMs: { over: 0 } };
const RELATIONS: readonly Relation<McpAppOptions>[] = [{ option: 'retryMaxMs', is: 'at least', than: 'retryFirstMs', because: 'the waits only grow' }];

/** What an MCP app says of itself: an outside app's, and its server's process while Confab runs it. */
interface McpAppInfo extends OutsideAppInfo {
  kind: 'mcp';
  /** The stdio server's process id while it runs; undefined for a server at a URL, or one that is away. */
  pid(): number | undefined;
}

export interface McpApp extends App {
  outside: McpAppInfo;
}

/** How Confab names itself to the servers it connects to. */
const CLIENT_INFO = { name: 'confab', version: '0.1.0' };

interface Link {
  client: Client;
  transport: StdioClientTransport | StreamableHTTPClientTransport;
  tools: ReadonlyMap<string, Tool>;
  /** The risk each allowed tool is run at, as `risksOf` decided it for this connection. */
  risks: ReadonlyMap<string, Risk>;
}

/** Opens the app of `file`: connected and listed once, or left out with the reason and tried again. */
export async function mcpApp(file: McpAppFile, deps: OutsideDeps, overrides: Partial<McpAppOptions> = {}): Promise<McpApp> {
  const options = resolveOptions('mcpApp', MCP_APP_DEFAULTS, overrides, LIMITS, RELATIONS);
  // Secrets are read once, at start: a variable that is not set refuses the start (secretValues throws).
  const env = secretValues(file.file, 'mcp.env', file.mcp.env, deps.env);
  const headers = secretValues(file.file, 'mcp.headers', file.mcp.headers, deps.env);
  const args = file.mcp.args.map((arg, i) => secretValue(file.file, `mcp.args[${String(i)}]`, arg, deps.env));
  const url = file.mcp.url === undefined ? undefined : secretValue(file.file, 'mcp.url', file.mcp.url, deps.env);
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url)) throw new AppFileError(file.file, 'mcp.url', 'is not an http:// or https:// address (the variable it names holds something else).');
  // Where the server is, as anyone may read it (GET /api/health needs no sign-in): never its
  // arguments, a user name, a password or a query, nor anything read from the environment.
  const shownAt = file.mcp.url === undefined || url === undefined ? undefined : 'env' in file.mcp.url ? `the address in ${file.mcp.url.env}` : shownUrl(url);
  const redact = redactorOf([...Object.values(env), ...Object.values(headers), ...args.filter((_, i) => 'env' in (file.mcp.args[i] ?? { text: '' })), ...(url !== undefined && file.mcp.url !== undefined && 'env' in file.mcp.url ? [url] : [])]);
  const kept = deps.kept ?? keptRisksInMemory();
  const where = appFilePath(file.file);
  const listeners = new Set<() => void>();
  let link: Link | undefined;
  let status: AppStatus = { up: false, state: 'starting' };
  let verbs: readonly Verb[] = [];
  let narrators: readonly Narrator[] = [];
  let waitMs = options.retryFirstMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  // Read through a call: `closed` changes while a connection is awaited.
  const isClosed = () => closed;

  const openTransport = (): Link['transport'] => {
    if (url !== undefined) {
      // No redirect is followed, and no private address is called unless the file says `private: true`.
      const guarded = guardedFetch(deps.fetch, file.name, file.private, deps.lookup ?? systemLookup);
      return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers, redirect: 'manual' }, fetch: guarded });
    }
    const path = deps.env.PATH;
    return new StdioClientTransport({
      command: file.mcp.command ?? '',
      args,
      env: { ...(path === undefined ? {} : { PATH: path }), ...env },
      stderr: options.stderr,
    });
  };

  /** A connection with the server's tools; throws `Away` when it cannot be had, an `AppFileError` when the server lacks what the file asks. */
  async function connect(): Promise<Link> {
    const transport = openTransport();
    const client = new Client(CLIENT_INFO);
    let listed: Tool[];
    try {
      await client.connect(transport, { timeout: options.connectTimeoutMs });
      listed = (await client.listTools(undefined, { timeout: options.connectTimeoutMs })).tools;
    } catch (error) {
      await client.close();
      throw new Away(redact(awayBecause(file, shownAt, error, options.connectTimeoutMs)), { cause: error });
    }
    const tools = new Map(listed.map((tool) => [tool.name, tool]));
    const missing = file.allowed.find((name) => !tools.has(name));
    if (missing !== undefined) {
      await client.close();
      const has = [...tools.keys()].sort().join(', ');
      throw new AppFileError(file.file, 'tools', `names "${missing}", which the server does not have; it has: ${has === '' ? 'no tools' : has}.`);
    }
    let risks: ReadonlyMap<string, Risk>;
    try {
      risks = await risksOf(tools);
    } catch (error) {
      await client.close();
      throw error;
    }
    return { client, transport, tools, risks };
  }

  /** The verbs and narrators of `tools`; throws an `AppFileError` when one cannot be a verb. */
  function verbsOf({ tools, risks }: Pick<Link, 'tools' | 'risks'>): { verbs: Verb[]; narrators: Narrator[] } {
    const made = file.allowed.map((name) => {
      const tool = tools.get(name) as Tool;
      return outsideVerb(file, {
        tool: name,
        description: tool.description ?? tool.title ?? '',
        inputSchema: tool.inputSchema,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
        risk: risks.get(name) as Risk,
        call: (input, signal) => call(name, input, signal),
      });
    });
    return { verbs: made, narrators: narratorsOf(made) };
  }

  /**
   * The risk each allowed tool is run at: what its annotations claim (none: destructive), never
   * safer than was ever kept for it (a server that claims a tool is safer now is held to the
   * stricter, and that is logged), and a claim to only read believed only for a tool the file lists
   * under `reads:`.
   */
  async function risksOf(tools: ReadonlyMap<string, Tool>): Promise<Map<string, Risk>> {
    const claims = new Map(file.allowed.map((name) => [name, claimedRisk(tools.get(name)?.annotations)] as const));
    const held = await kept.hold(file.name, claims);
    const risks = new Map<string, Risk>();
    for (const [name, claimed] of claims) {
      // A tool the store said nothing of is held to the most it could be.
      const { kept: before, held: now } = held.get(name) ?? { kept: undefined, held: 'destructive' };
      if (before !== undefined && isSafer(claimed, before)) deps.log({ event: 'outside.safer-claim', app: file.name, file: file.file, tool: name, kept: before, claimed });
      risks.set(name, believedRisk(now, file.reads.includes(name)));
    }
    return risks;
  }

  function narratorsOf(made: readonly Verb[]): Narrator[] {
    const spec = file.narrate;
    if (spec === undefined) return [];
    const reader = made.find((verb) => verb.name === `${file.name}.${verbPartOf(spec.with)}`);
    if (reader?.risk !== 'read') throw new AppFileError(file.file, 'narrate.with', `names "${spec.with}", which is not a read: a narrator only reads, so list it under \`reads:\` (and its server must mark it readOnlyHint).`);
    const names = new Set(made.map((verb) => verb.name));
    return spec.after
      .map((tool) => `${file.name}.${verbPartOf(tool)}`)
      .filter((follows) => names.has(follows))
      .map((follows) => ({
        follows,
        remote: true as const,
        // The narrator's read is an outside call like any other: admitted by the one gate (server/gate.ts).
        narrate: async (_ran, context) => narrationOf(spec.say, fieldsOf(await outsideCall(context, outsideCallOf(file), spec.with, () => result(spec.with, {}, context.signal)))),
      }));
  }

  /** One `tools/call` on the connection there is now; a failure the voice can say when there is none or it breaks. */
  async function result(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<{ tool: Tool; result: CallToolResult }> {
    const current = link;
    // What went wrong is the operator's to read (the app's status, the log); the person hears the code's own word.
    if (current === undefined) throw new VerbError('execution_failed', undefined, { cause: new Error(`The ${file.name} app is not answering right now.`) });
    const tool = current.tools.get(name) as Tool;
    try {
      const answered = await current.client.callTool({ name, arguments: input }, { signal, timeout: file.deadlineMs });
      if (answered.isError === true) throw new VerbError('execution_failed', undefined, { cause: new Error(`The ${file.name} app answered with an error.`) });
      return { tool, result: answered };
    } catch (error) {
      // The executor decides what an aborted call was (cancelled, timed out); it has already answered.
      if (signal.aborted || error instanceof VerbError) throw error;
      // The server answered with a protocol error: it is there, this call failed.
      if (error instanceof ProtocolError || (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult)) throw new VerbError('execution_failed', undefined, { cause: error });
      lost(current, 'stopped answering');
      throw new VerbError('execution_failed', undefined, { cause: error });
    }
  }

  async function call(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const { tool, result: answered } = await result(name, input, signal);
    if (tool.outputSchema === undefined) return { text: textOf(answered) };
    const structured = answered.structuredContent;
    // The SDK has checked it against the tool's output schema (an object schema); the executor checks again.
    if (structured === null || typeof structured !== 'object' || Array.isArray(structured)) throw new VerbError('execution_failed');
    return structured as Record<string, unknown>;
  }

  function adopt(next: Link): void {
    const made = verbsOf(next);
    link = next;
    verbs = made.verbs;
    narrators = made.narrators;
    status = { up: true };
    waitMs = options.retryFirstMs;
    // A stdio server that exits, or a connection the transport closes, leaves the app out until it is back.
    next.client.onclose = () => {
      lost(next, next.transport instanceof StdioClientTransport ? 'stopped' : 'closed its connection');
    };
    for (const listener of [...listeners]) listener();
  }

  function lost(current: Link, what: string): void {
    if (link !== current || closed) return;
    link = undefined;
    void current.client.close();
    away(`The ${file.name} app's server (${where}) ${what}`);
  }

  /** Leaves the app out with `why` (a clause), logs it, and tries again after the next wait. */
  function away(why: string): void {
    const retryInMs = waitMs;
    waitMs = Math.min(waitMs * 2, options.retryMaxMs);
    status = { up: false, state: 'away', why: redact(why), retryInMs };
    deps.log({ event: 'outside.away', app: file.name, file: file.file, why: status.why, retryInMs });
    timer = setTimeout(() => {
      timer = undefined;
      void retry();
    }, retryInMs);
    // A retry never keeps the server's process alive on its own.
    timer.unref();
  }

  /** Why a server that answered again cannot be used (its tools changed while it was away): the file's own sentence, as a clause. */
  const unusable = (error: unknown): string => `The ${file.name} app's server answered again, but ${error instanceof Error ? error.message.replace(/\.$/, '') : String(error)}`;

  async function retry(): Promise<void> {
    if (isClosed()) return;
    let next: Link;
    try {
      next = await connect();
    } catch (error) {
      if (!isClosed()) away(error instanceof Away ? error.message : unusable(error));
      return;
    }
    if (isClosed()) {
      await next.client.close();
      return;
    }
    try {
      adopt(next);
    } catch (error) {
      // Its tools changed while it was away, so that one cannot be a verb now.
      await next.client.close();
      away(unusable(error));
      return;
    }
    deps.log({ event: 'outside.back', app: file.name, file: file.file, verbs: verbs.length });
  }

  try {
    const first = await connect();
    try {
      adopt(first);
    } catch (error) {
      await first.client.close();
      throw error;
    }
  } catch (error) {
    if (!(error instanceof Away)) throw error;
    away(error.message);
  }

  return {
    name: file.name,
    description: file.description,
    get verbs() {
      return verbs;
    },
    get narrators() {
      return narrators;
    },
    outside: {
      kind: 'mcp',
      file: file.file,
      status: () => status,
      onVerbsChanged(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      pid: () => (link?.transport instanceof StdioClientTransport ? (link.transport.pid ?? undefined) : undefined),
      async close() {
        closed = true;
        if (timer !== undefined) clearTimeout(timer);
        const current = link;
        link = undefined;
        status = { up: false, state: 'closed' };
        await current?.client.close();
      },
    },
  };
}

/** A server that cannot be reached now; the message is the sentence's first clause. */
class Away extends Error {
  override readonly name = 'Away';
}

function secondsOf(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds === 1 ? '1 second' : `${String(seconds)} seconds`;
}

/**
 * Why the server of `file` could not be had, as a clause its operator can act on. It is read where no
 * sign-in is needed (`GET /api/health`), so it names the app file, a command's name and a URL's
 * origin and path (`shownAt`) — never a command's arguments, a URL's credentials or query.
 */
function awayBecause(file: McpAppFile, shownAt: string | undefined, error: unknown, timeoutMs: number): string {
  const where = appFilePath(file.file);
  const code = codeOf(error);
  const refused = causeOf(error, PrivateAddressError);
  if (refused !== undefined) return `${refused.message.replace(/\.$/, '')}; set \`private: true\` in ${where} if that is meant`;
  if (shownAt !== undefined) {
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return `The ${file.name} app's server at ${shownAt} did not answer within ${secondsOf(timeoutMs)}`;
    const status = error instanceof SdkError && typeof (error.data as { status?: unknown } | undefined)?.status === 'number' ? (error.data as { status: number }).status : undefined;
    if (status === 401 || status === 403) return `The ${file.name} app's server at ${shownAt} refused Confab (HTTP ${String(status)}); check mcp.headers in ${where} and the variables they name`;
    if (status !== undefined && status >= 300 && status < 400) return `The ${file.name} app's server at ${shownAt} answered with a redirect (HTTP ${String(status)}), which Confab does not follow; give its final address as mcp.url in ${where}`;
    if (status !== undefined) return `The ${file.name} app's server at ${shownAt} answered HTTP ${String(status)}; check mcp.url in ${where}`;
    return `Nothing answers for the ${file.name} app at ${shownAt}${code === undefined ? '' : ` (${code})`}; start that server, or correct mcp.url in ${where}`;
  }
  const command = basename(file.mcp.command ?? '');
  if (code === 'ENOENT') return `Confab cannot start the ${file.name} app's server: "${command}" is not found; install it, or correct mcp.command in ${where}`;
  if (code === 'EACCES') return `Confab cannot start the ${file.name} app's server: "${command}" may not be run; correct mcp.command in ${where}`;
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) return `The ${file.name} app's server (${where}) did not answer within ${secondsOf(timeoutMs)}`;
  return `The ${file.name} app's server (${where}) stopped before it answered; run its command by hand to see why, or correct ${where}`;
}

/** A function that puts `…` in place of each of `secrets` (values read from the environment) in a sentence. */
function redactorOf(secrets: readonly string[]): (text: string) => string {
  const long = [...new Set(secrets.filter((secret) => secret.length >= 4))].sort((a, b) => b.length - a.length);
  return (text) => long.reduce((said, secret) => said.replaceAll(secret, '…'), text);
}

/** A system error's code (`ENOENT`, `ECONNREFUSED`), on the error or its cause. */
function codeOf(error: unknown): string | undefined {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth += 1) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

/** A result's text contents joined; anything else is named, never passed on whole. */
function textOf(result: CallToolResult): string {
  return result.content
    .map((block) => {
      switch (block.type) {
        case 'text':
          return block.text;
        case 'image':
          return `[an image, ${block.mimeType}]`;
        case 'audio':
          return `[a sound, ${block.mimeType}]`;
        case 'resource_link':
          return `[a link: ${block.name}]`;
        case 'resource':
          return `[a resource: ${block.resource.uri}]`;
        default:
          return '[something else]';
      }
    })
    .join('\n');
}

/** The fields a narrator's read answered: its structured content, or its text read as JSON. */
function fieldsOf({ result }: { result: CallToolResult }): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = textOf(result);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { text };
  }
}

