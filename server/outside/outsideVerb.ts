/**
 * One outside tool (an MCP server's tool, an OpenAPI operation) as a verb of the one registry: its
 * name `<app>.<tool>` (snake case), description, example, schemas, risk, deadline and confirmation,
 * with a handler that calls the other end. From then on it is a verb like any other: scope, the one
 * executor (validation both ways, the deadline, the 16 KiB cap, one log line), the confirmation
 * gate, the door's loop and the stand-in.
 *
 * Its schemas are JSON Schema, as the other end gave them, validated with Ajv (the 2020-12 dialect;
 * draft-07's keywords mostly read the same). The model is shown them as they are (`jsonSchema`);
 * the executor validates through a Zod object that asks Ajv, so a wrong argument is refused with a
 * sentence naming the field, as for every verb. A schema that does not compile refuses the start,
 * naming the file and the tool.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { forModel } from '../../common/modelText';
import { checkVerb } from '../verbs/registry';
import type { Risk, StandInPhrasing, Verb } from '../verbs/verb';
import { BASE_LANGUAGE, shippedWords } from '../words/loadWords';
import { say } from '../words/words';
import type { Words } from '../words/words';
import { outsideCall } from '../gate';
import { AppFileError } from './appFile';
import { outsideCallOf } from './appFile';
import type { AppFile } from './appFile';
import { spokenResult } from './spokenResult';

/** A tool as the other end describes it, and how to call it. */
export interface OutsideTool {
  /** Its name at the other end (an MCP tool's name, an operationId). */
  tool: string;
  description: string;
  /** JSON Schema of its arguments: an object schema. */
  inputSchema: Record<string, unknown>;
  /** JSON Schema of its result, where the other end gives one: an object schema. */
  outputSchema?: Record<string, unknown>;
  /** From the MCP annotations or the HTTP method (`riskOf`). */
  risk: Risk;
  /**
   * Calls it; `signal` aborts the call at the other end (an MCP cancel, an aborted request). A
   * write's idempotency key (`key`) is sent where the other end can honour it (OpenAPI's
   * `Idempotency-Key` header).
   */
  call: (input: Record<string, unknown>, signal: AbortSignal, key?: string) => Promise<Record<string, unknown>>;
}

/** `getPetById` → `get_pet_by_id`, `list-today` → `list_today`: a verb's half of a name. */
export function verbPartOf(tool: string): string {
  return tool
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase()
    .replace(/^(?=[0-9])/, 't_');
}

/** How much an OpenAPI operation can change, by its method: GET and HEAD read, DELETE destroys, anything else writes. */
export function riskOfMethod(method: string): Risk {
  const said = method.toUpperCase();
  if (said === 'GET' || said === 'HEAD') return 'read';
  return said === 'DELETE' ? 'destructive' : 'write';
}

/**
 * What an MCP tool's annotations claim it can change, as MCP defines them: `readOnlyHint: true`
 * reads; otherwise it is destructive unless it says `destructiveHint: false` — so a tool with no
 * annotations at all is destructive (MCP's own default), and asked about first.
 */
export function claimedRisk(annotations: { readOnlyHint?: boolean | undefined; destructiveHint?: boolean | undefined } | undefined): Risk {
  if (annotations?.readOnlyHint === true) return 'read';
  return annotations?.destructiveHint === false ? 'write' : 'destructive';
}

/**
 * The risk Confab acts on: a claim to only read is believed only for a tool the app file lists
 * under `reads:` (its owner vouches for it); any other such tool is a write — keyed, run once,
 * never run again on a retry.
 */
export function believedRisk(claimed: Risk, listedAsRead: boolean): Risk {
  return claimed === 'read' && !listedAsRead ? 'write' : claimed;
}

const ajv = new Ajv2020({ allErrors: false, strict: false, validateFormats: false });

/** Compiles `schema`; throws an `AppFileError` naming the file and `field` when it does not compile. */
export function compileSchema(file: AppFile, field: string, schema: Record<string, unknown>): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new AppFileError(file.file, field, `is a schema that does not compile (${error instanceof Error ? error.message : String(error)}).`, { cause: error });
  }
}

/**
 * A tool's schema in the 2020-12 dialect the verbs are validated in. Servers built on the MCP SDKs
 * (and many specs)
 * declare draft-07 (`$schema`), whose keywords read the same but for tuples (`items` as a list, and
 * `additionalItems`): those are rewritten, and the `$schema` dropped.
 */
function as2020(schema: Record<string, unknown>): Record<string, unknown> {
  const declared = schema.$schema;
  if (typeof declared !== 'string' || declared.includes('2020-12')) return schema;
  const { $schema: _dropped, ...rest } = schema;
  return upgraded(rest) as Record<string, unknown>;
}

function upgraded(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(upgraded);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  const fields = value as Record<string, unknown>;
  for (const [key, item] of Object.entries(fields)) {
    if (key === 'items' && Array.isArray(item)) out.prefixItems = upgraded(item);
    else if (key === 'additionalItems' && Array.isArray(fields.items)) out.items = upgraded(item);
    else if (key !== 'additionalItems' || !Array.isArray(fields.items)) out[key] = upgraded(item);
  }
  return out;
}

/** A Zod object that judges with `validate` and names the field of the first problem it finds. */
function judgedBy(validate: ValidateFunction): z.ZodType {
  return z.looseObject({}).superRefine((value, context) => {
    if (validate(value)) return;
    const [first] = validate.errors ?? [];
    context.addIssue({ code: 'custom', message: messageOf(first), path: pathOf(first) });
  });
}

function pathOf(error: ErrorObject | undefined): string[] {
  if (error === undefined) return [];
  const path = error.instancePath.split('/').filter((part) => part !== '');
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  return missing === undefined ? path : [...path, missing];
}

function messageOf(error: ErrorObject | undefined): string {
  if (error === undefined) return 'is not right';
  return error.keyword === 'required' ? 'is required' : (error.message ?? 'is not right');
}

/** The schema of the argument at `path` (`body.title`: a field of an argument) in an object schema. */
function schemaAt(schema: Record<string, unknown>, path: string): Record<string, unknown> | undefined {
  return path.split('.').reduce<Record<string, unknown> | undefined>((at, part) => (at?.properties as Record<string, Record<string, unknown>> | undefined)?.[part], schema);
}

/**
 * How the stand-in recognises a person saying the file's example: its words as they are, with each
 * `{field}` in it standing for that argument ("echo {message}" hears "echo good morning" as
 * `{ message: 'good morning' }`; a number field takes a number), and `{a.b}` for a field of one
 * ("add {body.title}" hears a JSON body's title). An example that leaves out an argument the tool
 * requires (or a field a body requires) is not recognised: the call would be refused.
 */
function phrasingsOf(example: string | undefined, inputSchema: Record<string, unknown>): StandInPhrasing<Record<string, unknown>>[] {
  if (example === undefined) return [];
  // Literal words and `{field}`s, alternately: split keeps each field's name at the odd places.
  const parts = example.trim().replace(/[.!?]+$/, '').split(/\{([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\}/);
  const literals = parts.filter((_, i) => i % 2 === 0);
  const fields = parts.filter((_, i) => i % 2 === 1);
  if (fields.some((field) => schemaAt(inputSchema, field) === undefined)) return [];
  // Every object the fields fill in (the arguments, and a body they give fields of) has what it requires.
  const filledIn = new Set(['', ...fields.flatMap((field) => field.split('.').slice(0, -1).map((_, i, heads) => `${heads.slice(0, i + 1).join('.')}.`))]);
  const complete = (at: string) => {
    const schema = at === '' ? inputSchema : schemaAt(inputSchema, at.slice(0, -1));
    const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
    return required.every((name) => fields.some((field) => field === `${at}${name}` || field.startsWith(`${at}${name}.`)));
  };
  if (![...filledIn].every(complete)) return [];
  const pattern = new RegExp(`^${literals.map((literal) => escape(literal.toLowerCase())).join('(.+?)')}$`);
  const valueOf = (field: string, text: string): unknown => {
    const type = schemaAt(inputSchema, field)?.type;
    return type === 'integer' || type === 'number' ? Number(text) : text;
  };
  const input = (match: RegExpExecArray) => {
    const given: Record<string, unknown> = {};
    fields.forEach((field, i) => {
      const path = field.split('.');
      const last = path.pop() ?? field;
      let at = given;
      for (const part of path) at = (at[part] ??= {}) as Record<string, unknown>;
      at[last] = valueOf(field, match[i + 1] ?? '');
    });
    return given;
  };
  return [{ pattern, input }];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The result said by the stand-in, from its fields (`spokenResult.ts`): English where nobody's language is known. */
function sayOf(app: string): (output: unknown, input: unknown, words?: Words, language?: string) => string {
  return (output, _input, words, language) => spokenResult(app, output, words ?? shippedWords().wordsIn(BASE_LANGUAGE), language ?? BASE_LANGUAGE);
}

/**
 * The verb for `tool` of the app `file`, checked as every verb is (throws an `AppFileError` naming
 * the file and the tool when it cannot be one).
 */
export function outsideVerb(file: AppFile, tool: OutsideTool): Verb {
  const field = `${file.kind === 'mcp' ? 'tools' : 'operations'}.${tool.tool}`;
  const inputSchema = as2020(tool.inputSchema);
  const outputSchema = tool.outputSchema === undefined ? undefined : as2020(tool.outputSchema);
  if (inputSchema.type !== undefined && inputSchema.type !== 'object') throw new AppFileError(file.file, field, 'takes arguments that are not an object; only object arguments can be a verb’s.');
  const input = judgedBy(compileSchema(file, `${field} (its input schema)`, inputSchema));
  const output = outputSchema === undefined ? z.looseObject({}) : judgedBy(compileSchema(file, `${field} (its output schema)`, outputSchema));
  const example = file.examples[tool.tool];
  const asks = tool.risk === 'destructive' || file.confirm.includes(tool.tool);
  if (asks && tool.risk === 'read') throw new AppFileError(file.file, 'confirm', `names "${tool.tool}", which only reads; only a tool that changes something is asked about.`);
  const description = tool.description.trim() === '' ? forModel(`${tool.tool}, from ${file.name}.`) : tool.description.trim();
  const calls = outsideCallOf(file);
  const verb: Verb = {
    name: `${file.name}.${verbPartOf(tool.tool)}`,
    description: description.length > 1000 ? `${description.slice(0, 997)}…` : description,
    example: example ?? `use ${file.name}'s ${tool.tool}`,
    input,
    output,
    risk: tool.risk,
    deadlineMs: file.deadlineMs,
    remote: true,
    jsonSchema: { input: inputSchema, ...(outputSchema === undefined ? {} : { output: outputSchema }) },
    // The executor has validated the arguments against the tool's schema: an object.
    // Nothing goes out unadmitted: the one gate (server/gate.ts) admits each call, and it is settled once made.
    run: (args, context) => outsideCall(context, calls, tool.tool, () => tool.call(args as Record<string, unknown>, context.signal, context.idempotencyKey)),
    ...(asks ? { confirm: true } : {}),
    // Any call that changes something names what it would do when it is asked about: confirmed, or
    // a write after an outside read (the taint, `executor.ts`).
    ...(tool.risk === 'read' ? {} : { ask: (args, { words }) => say(words, 'acting.shall-i', { what: filled(example ?? `use ${file.name}'s ${tool.tool}`, args) }) }),
  };
  const phrasings = phrasingsOf(example, inputSchema);
  if (phrasings.length > 0) verb.standIn = { phrasings, say: sayOf(file.name) };
  try {
    checkVerb({ name: file.name }, verb);
  } catch (error) {
    throw new AppFileError(file.file, field, `cannot be a verb: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return verb;
}

/** Whether `value` is a record of fields (not a list, a date or nothing). */
function recordOf(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date) ? (value as Record<string, unknown>) : undefined;
}

/** The field `name` of `fields`: `a.b` a nested one. */
function fieldAt(fields: unknown, name: string): unknown {
  return name.split('.').reduce<unknown>((at, part) => recordOf(at)?.[part], fields);
}

/** A value as a sentence says it: as it is when it is plain, else undefined. */
function plainValue(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined;
}

/** A `{name}` in a sentence an app file writes: a field's name, dotted for a nested one. */
const PLACEHOLDER_IN_FILE = /\{([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\}/g;

/**
 * An app file's `narrate.say` with each `{field}` filled from `fields` (the read's result): a value
 * as it is, `{a.b}` a nested one, a list as how many it has; `{count}`, when there is no such field,
 * as how many the answer has when it is a list, or else its first list. Undefined when a field has
 * nothing plain to say: then nothing is said.
 */
export function narrationOf(say: string, fields: unknown): string | undefined {
  const missing: string[] = [];
  const said = say.replace(PLACEHOLDER_IN_FILE, (_whole, name: string) => {
    let value = fieldAt(fields, name);
    if (value === undefined && name === 'count') value = Array.isArray(fields) ? fields : Object.values(recordOf(fields) ?? {}).find((item) => Array.isArray(item));
    if (Array.isArray(value)) return String(value.length);
    const plain = plainValue(value);
    if (plain !== undefined) return plain;
    missing.push(name);
    return '';
  });
  return missing.length > 0 ? undefined : said;
}

/**
 * The file's example with each `{name}` filled from the call's arguments, as narration fills its
 * sentence — `{a.b}` a nested one (`{body.title}`), a list of plain values said one after another —
 * so the question names what it will act on ("cancel event 42", not "cancel event {eventId}"). A
 * name the call did not give is left out, never read aloud as braces.
 */
export function filled(example: string, args: unknown): string {
  return example
    .replace(PLACEHOLDER_IN_FILE, (_whole, name: string) => {
      const value = fieldAt(args, name);
      if (Array.isArray(value)) return value.map(plainValue).filter((item) => item !== undefined).join(', ');
      return plainValue(value) ?? '';
    })
    .replace(/\s+/g, ' ')
    .trim();
}
