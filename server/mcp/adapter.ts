/**
 * The MCP adapter: one `McpServer` (SDK v2) whose tools are the projection of the verbs a token may
 * use (`tools.ts`), each registered with the SDK's own `registerTool`, each handler a call to the
 * one executor. Nothing here validates a verb's input, decides policy or touches the database: the
 * executor does all of that for the chat door, the confirmation route and MCP alike. The SDK is
 * given the projected JSON Schemas and passes the arguments through untouched, so the executor's
 * validation is the only one and its sentences are the ones a client reads.
 *
 * A result is `structuredContent` plus one text block with the same JSON; a failure is a result
 * with `isError: true` and the text `<code>: <sentence>`.
 */
import { createHash } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/server';
import type { CallToolResult, ServerContext, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { forModel } from '../../common/modelText';
import { VerbError } from '../verbs/errors';
import type { Executor, Outcome } from '../verbs/executor';
import type { PersonKind } from '../person';
import type { Caller } from '../verbs/verb';
import type { Admission } from './callLimits';
import type { McpTool } from './tools';
import { IDEMPOTENCY_FIELD, MCP_IDEMPOTENCY_KEY } from './tools';

/** The server's name and version as MCP clients see them. */
export const MCP_SERVER_INFO = { name: 'confab', version: '0.1.0' } as const;

/** What the client's model reads of the server as a whole. */
const MCP_INSTRUCTIONS = forModel(
  "Confab's verbs, acting for one person on their own Confab data (their lists, reminders, memories, conversations) through the bots their token names. " +
    'A tool that changes something needs an idempotencyKey you choose: a new key for each new change, the same key only to retry. ' +
    "A tool that needs the person's yes cannot be run over MCP; they do it in their Confab page.",
);

/** What the calls of one MCP request are made as: the token's person, and what it may do. */
export interface McpSession {
  /** The token's hash, which its limits and running calls are kept by; never the token. */
  token: string;
  person: string;
  /** How the person is known where no request of theirs is: a passkey (or Supabase) person, or a bare cookie. */
  kind: PersonKind;
  timeZone: string;
  /** The tools offered, in registry order. */
  tools: readonly McpTool[];
  /** Every verb offered, for the executor's policy. */
  scope: ReadonlySet<string>;
  /** The bot a verb's call is made through: the token's first bot that has the verb's app. */
  botFor: (verb: string) => string;
  /** Admits one call under the token's limits (`callLimits.ts`). */
  admit: (requestId: string | number) => Promise<Admission>;
}

/** A JSON Schema the SDK lists as it is, with no validation of its own: the executor validates. */
function asListed(schema: Record<string, unknown>): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'confab',
      validate: (value) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

export function mcpServerFor(executor: Executor, session: McpSession): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: MCP_INSTRUCTIONS });
  for (const tool of session.tools) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: asListed(tool.inputSchema), outputSchema: asListed(tool.outputSchema), annotations: tool.annotations },
      (args, ctx) => callTool(executor, session, tool, args, ctx),
    );
  }
  return server;
}

async function callTool(executor: Executor, session: McpSession, tool: McpTool, args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> {
  const admitted = await session.admit(ctx.mcpReq.id);
  if (!admitted.ok) return failed(tool, new VerbError(admitted.code));
  try {
    const { [IDEMPOTENCY_FIELD]: key, ...input } = args;
    const caller: Caller = { person: session.person, bot: session.botFor(tool.verb), via: 'mcp', kind: session.kind, timeZone: session.timeZone };
    const outcome = await executor.execute({
      verb: tool.verb,
      input: tool.keyed ? input : args,
      caller,
      scope: session.scope,
      ...(tool.keyed && typeof key === 'string' && MCP_IDEMPOTENCY_KEY.test(key) ? { idempotencyKey: mcpKeyOf(session.token, key) } : {}),
      signal: AbortSignal.any([ctx.mcpReq.signal, admitted.signal]),
    });
    return resultOf(tool, outcome);
  } finally {
    admitted.release();
  }
}

/**
 * The key a client's `idempotencyKey` is kept under: its own namespace per token (`mcp-`, a digest
 * of the token's hash and the key), so it can never meet a turn's key (`turn-…`) or another
 * token's, whatever literal the client chose.
 */
function mcpKeyOf(tokenHash: string, key: string): string {
  return `mcp-${createHash('sha256').update(`${tokenHash}\n${key}`).digest('hex').slice(0, 40)}`;
}

/** The executor's outcome as an MCP tool result. */
function resultOf(tool: McpTool, outcome: Outcome): CallToolResult {
  if (!outcome.ok) return failed(tool, outcome.error);
  const output = outcome.output as Record<string, unknown>;
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
}

function failed(tool: McpTool, error: VerbError): CallToolResult {
  // The executor's own sentence asks the person for a yes; over MCP that yes can only be given in the page.
  const sentence = forModel(
    error.code === 'confirmation_required' ? `${tool.verb} needs the person's yes in their Confab page; it cannot be approved over MCP.` : error.sentence,
  );
  return { content: [{ type: 'text', text: `${error.code}: ${sentence}` }], isError: true };
}
