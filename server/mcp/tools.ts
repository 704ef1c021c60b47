/**
 * The registry projected to MCP tools: pure, and snapshot-tested like the OpenAI projection
 * (`server/verbs/project.ts`). Each verb becomes one tool with its input and output JSON Schemas and
 * annotations taken from its risk. Nothing here runs a verb: the adapter (`adapter.ts`) hands every
 * call to the executor.
 *
 * - Names travel as in the OpenAI projection (`lists.add` → `lists-add`): model APIs behind MCP
 *   hosts accept only letters, digits, `_` and `-` in a tool's name.
 * - A write (`write` or `destructive`) takes a required `idempotencyKey`, chosen by the client: the
 *   same key with the same input returns the first result without doing it again; the same key with
 *   another input is refused. Over the chat door the host derives keys; over MCP only the client
 *   knows which calls are retries.
 * - A `confirm` verb is listed, and says that it cannot be run from here: only the person can
 *   approve it, in their Confab page.
 */
import { forModel } from '../../common/modelText';
import type { ModelText } from '../../common/modelText';
import type { Risk, Verb } from '../verbs/verb';
import { asksFirst } from '../verbs/verb';
import { inputSchemaOf, outputSchemaOf, toolNameOf } from '../verbs/project';

/** An idempotency key as MCP clients give it: 16–64 characters of A–Z a–z 0–9 - _ (a UUID works). */
export const MCP_IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{16,64}$/;
/** The input field a write's key travels in. */
export const IDEMPOTENCY_FIELD = 'idempotencyKey';

/** MCP's tool annotations: hints for the client, never a promise. */
interface McpToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One verb as an MCP tool. */
export interface McpTool {
  name: string;
  /** The verb it calls, `<app>.<verb>`. */
  verb: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: McpToolAnnotations;
  /** Whether the call takes `idempotencyKey` (every write). */
  keyed: boolean;
  /** Whether only the person may approve it (refused over MCP). */
  confirm: boolean;
}

export class McpProjectionError extends Error {
  override readonly name = 'McpProjectionError';
}

const changes = (risk: Risk) => risk !== 'read';

const KEY_SCHEMA = {
  type: 'string',
  minLength: 16,
  maxLength: 64,
  pattern: MCP_IDEMPOTENCY_KEY.source,
  description:
    'Your key for this change, 16–64 letters, digits, dashes or underscores (a UUID works). Use a new key for each new change, and the same key only to retry a call whose outcome you do not know: the retry returns the first result without doing it again.',
};

/** What an MCP client reads about a verb: what it does, an example, and what it takes to run. */
export function mcpDescriptionOf(verb: Verb): ModelText {
  const parts = [verb.description, `Example: "${verb.example}".`];
  const asks = asksFirst(verb);
  if (asks === 'always') parts.push(forModel("It needs the person's yes in their Confab page, so it cannot be run over MCP."));
  else if (changes(verb.risk)) parts.push(forModel('Give an idempotencyKey; a retry with the same key does not do it twice.'));
  if (asks === 'sometimes') parts.push(forModel("Some calls need the person's yes in their Confab page; those are refused over MCP."));
  return forModel(parts.join(' '));
}

/** The verb's input, with the required `idempotencyKey` added for a write. */
function mcpInputSchemaOf(verb: Verb): Record<string, unknown> {
  const schema = inputSchemaOf(verb);
  if (!changes(verb.risk)) return schema;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  if (IDEMPOTENCY_FIELD in properties) {
    throw new McpProjectionError(`Verb "${verb.name}": its input has a field called ${IDEMPOTENCY_FIELD}, which MCP reserves for a write's key; rename it.`);
  }
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return { ...schema, properties: { ...properties, [IDEMPOTENCY_FIELD]: KEY_SCHEMA }, required: [...required, IDEMPOTENCY_FIELD] };
}

function mcpAnnotationsOf(verb: Verb): McpToolAnnotations {
  return {
    title: verb.name,
    readOnlyHint: verb.risk === 'read',
    destructiveHint: verb.risk === 'destructive',
    // A read changes nothing; a write is keyed, so repeating it with its key changes nothing more.
    idempotentHint: true,
    // A verb acts on the person's own Confab data, not on the world outside it.
    openWorldHint: false,
  };
}

export function mcpToolOf(verb: Verb): McpTool {
  return {
    name: toolNameOf(verb.name),
    verb: verb.name,
    description: mcpDescriptionOf(verb),
    inputSchema: mcpInputSchemaOf(verb),
    outputSchema: outputSchemaOf(verb),
    annotations: mcpAnnotationsOf(verb),
    keyed: changes(verb.risk),
    confirm: verb.confirm === true,
  };
}

/** The tools for `verbs`, in their order. */
export function mcpTools(verbs: readonly Verb[]): McpTool[] {
  return verbs.map(mcpToolOf);
}
