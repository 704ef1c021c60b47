/**
 * An OpenAPI app (`server/apps/<app>.md` with `openapi:`): the spec read once at start — a file
 * beside the app file or an `https://` URL — validated and dereferenced with Swagger Parser, and each
 * allowed operation made one verb of the registry (`outsideVerb`). A spec that does not parse or
 * validate, an operation that is not in it, a schema that does not compile or no server to call
 * refuses the start with a sentence naming the file and the field.
 *
 * One operation as a verb:
 * - input: an object with the operation's path, query, header and cookie parameters as properties
 *   (the required ones required) and `body` for a JSON request body; a header the app file sends
 *   itself (an API key) is not the model's to give, nor are `Accept`, `Content-Type` and
 *   `Authorization` (OpenAPI ignores those as parameters);
 * - output: the JSON body itself when the operation's 200 (else 201, else first 2xx) JSON answer is
 *   an object schema; otherwise `{ status, body }` — the HTTP status and the JSON (or text) body,
 *   absent when there was none (`Answer`);
 * - risk from the method: GET and HEAD read, DELETE destructive (asked first), anything else a write.
 *
 * The call goes to the file's `openapi.server` (required: the spec's `servers` never decide where the
 * site's key is sent) with the file's headers, secrets from the environment, a write's idempotency
 * key as `Idempotency-Key`, and the executor's signal, so a deadline or a barge-in aborts the request
 * at the other end. Redirects are not followed, the spec's read included, and a loopback, private or
 * link-local address is refused unless the file says `private: true` (`address.ts`). An answer
 * other than 2xx throws an `OpenApiCallError` naming the operation and the status, never the body;
 * the executor says `execution_failed`. Nothing here logs an argument or a result.
 *
 * Schemas become JSON Schema 2020-12 (`toJsonSchema`): OpenAPI 3.1's already are; 3.0's `nullable`,
 * boolean `exclusiveMinimum`/`exclusiveMaximum` and `example` are rewritten, annotations Ajv cannot
 * use (`xml`, `discriminator`, `externalDocs`, `x-…`) dropped, and a schema that contains itself (a
 * tree of categories) is spelled out three levels deep: below that, anything is accepted.
 */
import { resolve as resolvePath } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { VerbError, VerbInputError } from '../verbs/errors';
import { PrivateAddressError, guardedFetch, shownUrl, systemLookup } from './address';
import type { App, Narrator, VerbContext } from '../verbs/verb';
import { outsideCall } from '../gate';
import { outsideCallOf } from './appLimits';
import { AppFileError, secretValues } from './appFile';
import type { OpenApiAppFile } from './appFile';
import type { OutsideDeps } from './loadOutside';
import { compileSchema, narrationOf, outsideVerb, riskOfMethod, verbPartOf } from './outsideVerb';
import type { OutsideTool } from './outsideVerb';

/** How long reading a spec (and what it refers to) over the network may take at start, in ms. */
export const SPEC_READ_MS = 10_000;
/** The largest answer body read from an API, in bytes; the executor passes on at most 16 KiB of it. */
export const ANSWER_BYTES_MAX = 1024 * 1024;

/** An operation's answer when it is not one JSON object the spec describes. */
export interface Answer {
  /** The HTTP status, 200–299. */
  status: number;
  /** The body: parsed JSON, or text; absent when the answer had none. */
  body?: unknown;
}

/** A call to an operation that did not succeed: the status it answered with, or no answer at all (`cause`). */
export class OpenApiCallError extends Error {
  override readonly name = 'OpenApiCallError';

  constructor(
    readonly operation: string,
    /** The HTTP status, when the API answered. */
    readonly status: number | undefined,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

type Schema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: Schema;
  content?: Record<string, { schema?: Schema }>;
  style?: string;
  explode?: boolean;
}

interface MediaTypes {
  content?: Record<string, { schema?: Schema }>;
  description?: string;
  required?: boolean;
}

interface Server {
  url: string;
  variables?: Record<string, { default: string }>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: MediaTypes;
  responses?: Record<string, MediaTypes>;
  servers?: Server[];
}

type PathItem = Partial<Record<(typeof METHODS)[number], Operation>> & { parameters?: Parameter[]; servers?: Server[] };

/** The spec as Swagger Parser answers it, dereferenced: only what is read here. */
interface Document {
  openapi?: string;
  swagger?: string;
  servers?: Server[];
  paths?: Record<string, PathItem>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

interface Found {
  method: (typeof METHODS)[number];
  path: string;
  operation: Operation;
  pathItem: PathItem;
}

/** Reads `file`'s spec and makes its allowed operations an app; throws an `AppFileError` when it cannot. */
export async function openApiApp(file: OpenApiAppFile, deps: OutsideDeps): Promise<App> {
  // No redirect is followed, and no private address is called unless the file says `private: true`.
  const fetchFn = guardedFetch(deps.fetch ?? fetch, file.name, file.private, deps.lookup ?? systemLookup);
  const headers = secretValues(file.file, 'openapi.headers', file.openapi.headers, deps.env);
  const document = await readSpec(file, deps.appsDir, fetchFn);
  const version = document.openapi?.startsWith('3.1') === true ? '3.1' : '3.0';
  const operations = operationsOf(document);

  const tools = new Map<string, Made>();
  for (const id of file.allowed) {
    const found = operations.get(id);
    if (found === undefined) {
      const known = [...operations.keys()];
      const listed = known.length > 12 ? `${known.slice(0, 12).join(', ')}…` : known.join(', ');
      throw new AppFileError(file.file, 'operations', `names "${id}", which is not an operationId in ${file.openapi.spec}${known.length > 0 ? ` (it has: ${listed})` : ''}.`);
    }
    const twin = [...tools.keys()].find((other) => verbPartOf(other) === verbPartOf(id));
    if (twin !== undefined) throw new AppFileError(file.file, 'operations', `names "${twin}" and "${id}", which would both be the verb ${file.name}.${verbPartOf(id)}; keep one.`);
    tools.set(id, toolOf(file, id, found, { base: baseOf(file), headers, version, fetchFn }));
  }
  const verbs = [...tools.values()].map(({ tool }) => outsideVerb(file, tool));
  const narrators = narratorsOf(file, tools);
  deps.log({ event: 'outside.openapi.read', app: file.name, operations: verbs.length });
  return {
    name: file.name,
    description: file.description,
    verbs,
    ...(narrators.length > 0 ? { narrators } : {}),
    outside: {
      kind: 'openapi',
      file: file.file,
      // The spec was read at start; whether the API answers is each call's to find out.
      status: () => ({ up: true }),
      close: () => Promise.resolve(),
    },
  };
}

async function readSpec(file: OpenApiAppFile, appsDir: string, fetchFn: typeof fetch): Promise<Document> {
  const spec = file.openapi.spec;
  const remote = /^https:\/\//i.test(spec);
  const where = remote ? spec : resolvePath(appsDir, spec);
  let document: Document;
  try {
    const parsed: unknown = await new SwaggerParser().validate(where, {
      resolve: {
        // Whatever a spec refers to over the network goes through `deps.fetch`, https only; a spec
        // read over the network does not get to read this machine's files.
        ...(remote ? { file: false } : {}),
        http: { order: 1, canRead: /^https?:\/\//i, read: (info: { url: string }) => readOver(fetchFn, info.url) },
      },
      dereference: { circular: true },
    });
    document = parsed as Document;
  } catch (error) {
    throw new AppFileError(file.file, 'openapi.spec', `(${spec}) is not a valid OpenAPI document: ${reasonOf(error)}`, { cause: error });
  }
  if (document.swagger !== undefined) throw new AppFileError(file.file, 'openapi.spec', `(${spec}) is Swagger ${document.swagger}; Confab reads OpenAPI 3.0 and 3.1 (convert it, with swagger2openapi for one).`);
  return document;
}

async function readOver(fetchFn: typeof fetch, url: string): Promise<string> {
  if (!/^https:\/\//i.test(url)) throw new Error(`${url} is not https://`);
  // A redirect is refused (`fetchFn` follows none): an https:// spec is not read from wherever it points.
  const response = await fetchFn(url, { signal: AbortSignal.timeout(SPEC_READ_MS), headers: { accept: 'application/json, application/yaml, */*' } });
  if (response.status >= 300 && response.status < 400) throw new Error(`${shownUrl(url)} answered with a redirect (HTTP ${response.status}), which Confab does not follow; give the spec's final address`);
  if (!response.ok) throw new Error(`${shownUrl(url)} answered HTTP ${response.status}`);
  return response.text();
}

/** The parser's reason on one line, short enough to say: without the YAML parser's code frame. */
function reasonOf(error: unknown): string {
  const lines = (error instanceof Error ? error.message : String(error)).split('\n');
  const said = lines.filter((line) => !/^\s*(?:\d+ \||-*\^)/.test(line)).join(' ').replace(/\s+/g, ' ').trim();
  const short = said.length > 300 ? `${said.slice(0, 297)}…` : said;
  return /[.!?…]$/.test(short) ? short : `${short}.`;
}

function operationsOf(document: Document): Map<string, Found> {
  const found = new Map<string, Found>();
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (operation?.operationId !== undefined) found.set(operation.operationId, { method, path, operation, pathItem });
    }
  }
  return found;
}

/**
 * The base URL every operation is called on: the file's `openapi.server`, always. The spec's own
 * `servers` (its document's, a path's, an operation's) never decide where the site's key is sent.
 */
function baseOf(file: OpenApiAppFile): string {
  return file.openapi.server;
}

interface CallSetup {
  base: string;
  /** The file's headers, secrets read from the environment. */
  headers: Record<string, string>;
  version: '3.0' | '3.1';
  fetchFn: typeof fetch;
}

/** Where an argument goes, by its name in the verb's input. */
interface Placed {
  name: string;
  in: Parameter['in'];
  style: string | undefined;
  explode: boolean;
  /** Sent as JSON text (a parameter with `content` rather than `schema`). */
  json: boolean;
}

const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** An operation as an outside tool, and whether its answer is its JSON body itself (else an `Answer`). */
interface Made {
  tool: OutsideTool;
  whole: boolean;
}

function toolOf(file: OpenApiAppFile, id: string, found: Found, setup: CallSetup): Made {
  const field = `operations.${id}`;
  const sent = new Set(Object.keys(setup.headers).map((name) => name.toLowerCase()));
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const placed: Placed[] = [];
  for (const parameter of parametersOf(found)) {
    // A header the app file sends (an API key) is the site's, not the model's to give or to change.
    if (parameter.in === 'header' && (IGNORED_HEADERS.has(parameter.name.toLowerCase()) || sent.has(parameter.name.toLowerCase()))) continue;
    if (parameter.name in properties) throw new AppFileError(file.file, field, `has two arguments called "${parameter.name}"; Confab cannot tell them apart.`);
    const [mediaType] = Object.values(parameter.content ?? {});
    const schema = toJsonSchema(parameter.schema ?? mediaType?.schema ?? {}, setup.version, 'request');
    if (parameter.description !== undefined && schema.description === undefined) schema.description = parameter.description;
    properties[parameter.name] = schema;
    if (parameter.required === true || parameter.in === 'path') required.push(parameter.name);
    placed.push({ name: parameter.name, in: parameter.in, style: parameter.style, explode: parameter.explode ?? (parameter.style === undefined || parameter.style === 'form'), json: parameter.schema === undefined && mediaType !== undefined });
  }

  const body = found.operation.requestBody;
  const bodyType = Object.keys(body?.content ?? {}).find((type) => JSON_TYPE.test(type));
  if (body !== undefined && bodyType === undefined && body.required === true) {
    throw new AppFileError(file.file, field, `takes its request body only as ${Object.keys(body.content ?? {}).join(', ')}; Confab sends JSON bodies only.`);
  }
  if (body !== undefined && bodyType !== undefined) {
    if ('body' in properties) throw new AppFileError(file.file, field, 'has a parameter called "body" beside its request body; Confab cannot tell them apart.');
    const schema = toJsonSchema(body.content?.[bodyType]?.schema ?? {}, setup.version, 'request');
    if (body.description !== undefined && schema.description === undefined) schema.description = body.description;
    properties.body = schema;
    if (body.required === true) required.push('body');
  }

  const answer = answerSchemaOf(found.operation, setup.version);
  const whole = answer !== undefined && isObjectSchema(answer);
  const outputSchema: Schema = whole
    ? answer
    : {
        type: 'object',
        properties: { status: { type: 'integer', description: 'The HTTP status.' }, body: answer ?? { description: 'The answer: JSON, or text.' } },
        required: ['status'],
        additionalProperties: false,
      };
  const summary = found.operation.summary?.trim() ?? '';
  const more = found.operation.description?.trim() ?? '';
  const said = [summary, more].filter((part) => part !== '');
  // Petstore's "Find pet by ID." then "Returns a single pet.": both; a description that repeats its summary: once.
  if (said.length === 2 && more.startsWith(summary.replace(/\.$/, ''))) said.shift();

  const tool: OutsideTool = {
    tool: id,
    description: said.map((part) => (/[.!?]$/.test(part) ? part : `${part}.`)).join(' '),
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    outputSchema,
    risk: riskOfMethod(found.method),
    call: (input, signal, key) => callOperation({ id, found, setup, placed, whole, input, signal, bodyType, key }),
  };
  return { tool, whole };
}

/** The path's parameters, then the operation's; the operation's win by name and place, as OpenAPI says. */
function parametersOf(found: Found): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const parameter of [...(found.pathItem.parameters ?? []), ...(found.operation.parameters ?? [])]) byKey.set(`${parameter.in}\n${parameter.name}`, parameter);
  return [...byKey.values()];
}

/** The JSON schema of the operation's 200 answer, else its 201's, else its first 2xx's. */
function answerSchemaOf(operation: Operation, version: CallSetup['version']): Schema | undefined {
  const responses = operation.responses ?? {};
  const success = responses['200'] ?? responses['201'] ?? Object.entries(responses).find(([status]) => /^2(?:\d\d|XX)$/i.test(status))?.[1];
  const type = Object.keys(success?.content ?? {}).find((name) => JSON_TYPE.test(name));
  const schema = type === undefined ? undefined : success?.content?.[type]?.schema;
  return schema === undefined ? undefined : toJsonSchema(schema, version, 'response');
}

function isObjectSchema(schema: Schema): boolean {
  return schema.type === 'object' || (schema.type === undefined && typeof schema.properties === 'object');
}

interface CallOf {
  id: string;
  found: Found;
  setup: CallSetup;
  placed: readonly Placed[];
  whole: boolean;
  input: Record<string, unknown>;
  signal: AbortSignal;
  bodyType: string | undefined;
  /** A write's idempotency key, sent as `Idempotency-Key`: an API that honours it never does the write twice. */
  key: string | undefined;
}

async function callOperation({ id, found, setup, placed, whole, input, signal, bodyType, key }: CallOf): Promise<Record<string, unknown>> {
  let path = found.path;
  const query = new URLSearchParams();
  const headers = new Headers({ accept: 'application/json' });
  const cookies: string[] = [];
  for (const place of placed) {
    const value = input[place.name];
    if (value === undefined) continue;
    if (place.in === 'path') path = path.replaceAll(`{${place.name}}`, segmentOf(place.name, place.json ? JSON.stringify(value) : simple(value)));
    else if (place.in === 'query') addQuery(query, place, value);
    else if (place.in === 'header') headers.set(place.name, place.json ? JSON.stringify(value) : simple(value));
    else cookies.push(`${place.name}=${encodeURIComponent(place.json ? JSON.stringify(value) : simple(value))}`);
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  for (const [name, value] of Object.entries(setup.headers)) headers.set(name, value);
  if (key !== undefined) headers.set('Idempotency-Key', key);
  const init: RequestInit = { method: found.method.toUpperCase(), headers, signal, redirect: 'manual' };
  if (bodyType !== undefined && input.body !== undefined) {
    headers.set('content-type', bodyType);
    init.body = JSON.stringify(input.body);
  }
  const url = new URL(`${setup.base.replace(/\/+$/, '')}${path}`);
  const search = query.toString();
  if (search !== '') url.search = search;

  let response: Response;
  try {
    response = await setup.fetchFn(url, init);
  } catch (error) {
    // Cut off by the executor (a deadline, a barge-in): its own signal says which.
    if (signal.aborted) throw error;
    if (error instanceof PrivateAddressError) throw new VerbError('execution_failed', error.message, { cause: error });
    throw new OpenApiCallError(id, undefined, `${id} got no answer from ${url.host}.`, { cause: error });
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel();
    throw new OpenApiCallError(id, response.status, `${id} answered HTTP ${response.status}.`);
  }
  const body = await bodyOf(id, response);
  if (!whole) return body === undefined ? { status: response.status } : { status: response.status, body };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new OpenApiCallError(id, response.status, `${id} answered with something other than the JSON object its spec describes.`);
  return body as Record<string, unknown>;
}

/**
 * A path parameter's value as one path segment. `.` and `..` (however escaped, URLs resolve them)
 * would take the call to another endpoint than the one the file allows: refused as the wrong input.
 */
function segmentOf(name: string, value: string): string {
  if (/^(?:\.|%2e){1,2}$/i.test(value)) throw new VerbInputError(`The ${name} cannot be a dot or two dots; give the one it names.`);
  return encodeURIComponent(value);
}

/** A path or header value, OpenAPI's `simple` style: an array's items, or an object's keys and values, joined by commas. */
function simple(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(',');
  if (value !== null && typeof value === 'object') return Object.entries(value).flat().map(String).join(',');
  return String(value);
}

/** A query value: `form` style (exploded by default: `tag=a&tag=b`, an object's keys as names), or `deepObject` (`filter[size]=2`). */
function addQuery(query: URLSearchParams, place: Placed, value: unknown): void {
  if (place.json) query.append(place.name, JSON.stringify(value));
  else if (Array.isArray(value)) {
    if (place.explode) for (const item of value) query.append(place.name, String(item));
    else query.append(place.name, value.map(String).join(place.style === 'pipeDelimited' ? '|' : place.style === 'spaceDelimited' ? ' ' : ','));
  } else if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (place.style === 'deepObject') for (const [key, item] of entries) query.append(`${place.name}[${key}]`, String(item));
    else if (place.explode) for (const [key, item] of entries) query.append(key, String(item));
    else query.append(place.name, entries.flat().map(String).join(','));
  } else query.append(place.name, String(value));
}

/** The answer's body: JSON when it says so, else text; undefined when empty. At most `ANSWER_BYTES_MAX`. */
async function bodyOf(id: string, response: Response): Promise<unknown> {
  const reader = response.body?.getReader();
  if (reader === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    // Node's types give a fetch body's chunks no type; they are bytes.
    const { done, value } = (await reader.read()) as { done: boolean; value?: Uint8Array };
    if (done || value === undefined) break;
    bytes += value.byteLength;
    if (bytes > ANSWER_BYTES_MAX) {
      await reader.cancel();
      throw new OpenApiCallError(id, response.status, `${id} answered with more than ${ANSWER_BYTES_MAX} bytes.`);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  if (!JSON_TYPE.test(response.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new OpenApiCallError(id, response.status, `${id} answered with JSON that does not parse.`, { cause: error });
  }
}

/** Keywords whose value is one schema, a list of schemas, or schemas by name. */
const ONE_SCHEMA = new Set(['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems']);
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions']);
/** OpenAPI's own annotations, and identifiers that would clash when one schema is compiled into several verbs. */
const DROPPED = new Set(['xml', 'discriminator', 'externalDocs', 'nullable', 'example', '$schema', '$id', '$anchor', '$dynamicAnchor']);

/**
 * `schema` (dereferenced, OpenAPI `version`) as JSON Schema 2020-12 for Ajv: see the module's
 * comment. `direction` says which way it travels: a `readOnly` property is not required of a
 * request, nor a `writeOnly` one of a response.
 */
export function toJsonSchema(schema: Schema, version: '3.0' | '3.1', direction: 'request' | 'response'): Schema {
  return convert(schema, version, direction, new Map());
}

/** How many times a schema that contains itself is spelled out along one path before the rest is accepted unchecked. */
const RECURSION_LEVELS = 3;

function convert(schema: Schema, version: '3.0' | '3.1', direction: 'request' | 'response', above: Map<object, number>): Schema {
  const levels = above.get(schema) ?? 0;
  if (levels >= RECURSION_LEVELS) return { description: 'The same shape as an enclosing one (it recurs); not checked below this depth.' };
  above.set(schema, levels + 1);
  const sub = (value: unknown): unknown => (isSchema(value) ? convert(value, version, direction, above) : value);
  let out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || key.startsWith('x-')) continue;
    if (ONE_SCHEMA.has(key)) out[key] = sub(value);
    else if (SCHEMA_LIST.has(key) && Array.isArray(value)) out[key] = value.map(sub);
    else if (SCHEMA_MAP.has(key) && isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, sub(item)]));
    else out[key] = plain(value);
  }
  if (levels === 0) above.delete(schema);
  else above.set(schema, levels);

  if (schema.example !== undefined && out.examples === undefined) out.examples = [plain(schema.example)];
  if (version === '3.0') {
    const bounded = exclusive(exclusive(out, 'exclusiveMinimum', 'minimum'), 'exclusiveMaximum', 'maximum');
    if (schema.nullable === true) return nullable(bounded);
    out = bounded;
  }
  const hidden = direction === 'request' ? 'readOnly' : 'writeOnly';
  if (Array.isArray(out.required) && isSchema(schema.properties)) {
    const properties = schema.properties;
    const shown = out.required.filter((name) => {
      const property = typeof name === 'string' ? properties[name] : undefined;
      return !(isSchema(property) && property[hidden] === true);
    });
    if (shown.length > 0) out.required = shown;
    else delete out.required;
  }
  return out;
}

/** 3.0's boolean `exclusiveMinimum: true` (JSON Schema draft 4's way: `minimum` is exclusive) as 2020-12's number. */
function exclusive(out: Schema, flagKey: 'exclusiveMinimum' | 'exclusiveMaximum', boundKey: 'minimum' | 'maximum'): Schema {
  if (typeof out[flagKey] !== 'boolean') return out;
  const { [flagKey]: flag, [boundKey]: bound, ...rest } = out;
  if (flag === true && typeof bound === 'number') return { ...rest, [flagKey]: bound };
  return bound === undefined ? rest : { ...rest, [boundKey]: bound };
}

/** 3.0's `nullable: true` in 2020-12's words: null is one more type (or value) it takes. */
function nullable(out: Schema): Schema {
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type)) out.type = out.type.includes('null') ? out.type : [...(out.type as unknown[]), 'null'];
  else return { anyOf: [out, { type: 'null' }] };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
  return out;
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** A value from the spec as JSON has it: YAML's dates become their ISO text. */
function plain(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

/**
 * The file's `narrate` as narrators: after each operation in `after`, the read `with` is called
 * with no arguments and `say` filled from its JSON answer — `{field}` (or `{a.b}`) is that field,
 * `{count}` an array's length (or the answer's own `count`). A field the answer lacks says nothing.
 */
function narratorsOf(file: OpenApiAppFile, tools: ReadonlyMap<string, Made>): Narrator[] {
  const spec = file.narrate;
  if (spec === undefined) return [];
  const made = tools.get(spec.with);
  if (made === undefined) return [];
  const read = made.tool;
  if (read.risk !== 'read') throw new AppFileError(file.file, 'narrate.with', `names "${spec.with}", which changes something; a narrator only reads (GET).`);
  if (!compileSchema(file, `operations.${spec.with} (its input schema)`, read.inputSchema)({})) {
    throw new AppFileError(file.file, 'narrate.with', `names "${spec.with}", which needs arguments; a narrator calls it with none.`);
  }
  const calls = outsideCallOf(file);
  // The narrator's read is an outside call like any other: admitted by the one gate (server/gate.ts).
  const say = async (context: VerbContext): Promise<string | undefined> => {
    const answer = await outsideCall(context, calls, spec.with, () => read.call({}, context.signal));
    return narrationOf(spec.say, made.whole ? answer : answer.body);
  };
  return spec.after.map((tool) => ({ follows: `${file.name}.${verbPartOf(tool)}`, remote: true, narrate: (_ran, context) => say(context) }));
}

