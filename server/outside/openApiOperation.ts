/**
 * One operation of a spec as what a verb is made of, and where each argument goes when it is called:
 * - input: an object with the operation's path, query, header and cookie parameters as properties
 *   (the required ones required) and `body` for a JSON request body; a header the app file sends
 *   itself (an API key) is not the model's to give, nor are `Accept`, `Content-Type` and
 *   `Authorization` (OpenAPI ignores those as parameters);
 * - output: the JSON body itself when the operation's 200 (else 201, else first 2xx) JSON answer is
 *   an object schema; otherwise `{ status, body }` — the HTTP status and the JSON (or text) body,
 *   absent when there was none (`Answer`, `openApiCall.ts`);
 * - risk from the method: GET and HEAD read, DELETE destructive (asked first), anything else a write.
 *
 * An operation Confab cannot call as it is written (two arguments of one name, a body only in
 * another format than JSON) refuses the start with a sentence naming the file and the operation.
 */
import type { Risk } from '../verbs/verb';
import { AppFileError } from './appFile';
import type { OpenApiAppFile } from './appFile';
import { toJsonSchema } from './openApiSchema';
import type { OpenApiVersion, Schema } from './openApiSchema';
import type { FoundOperation, OperationObject, Parameter } from './openApiSpec';
import { riskOfMethod } from './outsideVerb';

/** Where an argument goes, by its name in the verb's input. */
export interface Placed {
  name: string;
  in: Parameter['in'];
  style: string | undefined;
  explode: boolean;
  /** Sent as JSON text (a parameter with `content` rather than `schema`). */
  json: boolean;
}

/** An operation as a verb's parts, and what calling it needs. */
export interface OpenApiOperation {
  /** Its `operationId`: the tool's name at the other end. */
  id: string;
  /** The HTTP method, upper case. */
  method: string;
  /** The path template, as the spec writes it: `/pet/{petId}`. */
  path: string;
  placed: readonly Placed[];
  /** The JSON media type its request body is sent as, when it takes one. */
  bodyType: string | undefined;
  /** Whether its answer is its JSON body itself (else an `Answer`). */
  whole: boolean;
  description: string;
  inputSchema: Schema;
  outputSchema: Schema;
  risk: Risk;
}

const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** A JSON media type: `application/json`, `application/problem+json`, with or without parameters. */
export const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Operation `id` (`found` in a spec of `version`) as a verb's parts, of the app `file`, which sends
 * the headers named in `sent` itself (lower case).
 */
export function operationOf(file: OpenApiAppFile, id: string, found: FoundOperation, version: OpenApiVersion, sent: ReadonlySet<string>): OpenApiOperation {
  const field = `operations.${id}`;
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const placed: Placed[] = [];
  for (const parameter of found.parameters) {
    // A header the app file sends (an API key) is the site's, not the model's to give or to change.
    if (parameter.in === 'header' && (IGNORED_HEADERS.has(parameter.name.toLowerCase()) || sent.has(parameter.name.toLowerCase()))) continue;
    if (parameter.name in properties) throw new AppFileError(file.file, field, `has two arguments called "${parameter.name}"; Confab cannot tell them apart.`);
    const [mediaType] = Object.values(parameter.content ?? {});
    properties[parameter.name] = described(toJsonSchema(parameter.schema ?? mediaType?.schema ?? {}, version, 'request'), parameter.description);
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
    properties.body = described(toJsonSchema(body.content?.[bodyType]?.schema ?? {}, version, 'request'), body.description);
    if (body.required === true) required.push('body');
  }

  const answer = answerSchemaOf(found.operation, version);
  const whole = answer !== undefined && isObjectSchema(answer);
  return {
    id,
    method: found.method.toUpperCase(),
    path: found.path,
    placed,
    bodyType,
    whole,
    description: descriptionOf(found.operation),
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    outputSchema: whole
      ? answer
      : {
          type: 'object',
          properties: { status: { type: 'integer', description: 'The HTTP status.' }, body: answer ?? { description: 'The answer: JSON, or text.' } },
          required: ['status'],
          additionalProperties: false,
        },
    risk: riskOfMethod(found.method),
  };
}

/** `schema`, with the parameter's or body's `description` when the schema has none of its own. */
function described(schema: Schema, description: string | undefined): Schema {
  return description === undefined || schema.description !== undefined ? schema : { ...schema, description };
}

/** The JSON schema of the operation's 200 answer, else its 201's, else its first 2xx's. */
function answerSchemaOf(operation: OperationObject, version: OpenApiVersion): Schema | undefined {
  const responses = operation.responses ?? {};
  const success = responses['200'] ?? responses['201'] ?? Object.entries(responses).find(([status]) => /^2(?:\d\d|XX)$/i.test(status))?.[1];
  const type = Object.keys(success?.content ?? {}).find((name) => JSON_TYPE.test(name));
  const schema = type === undefined ? undefined : success?.content?.[type]?.schema;
  return schema === undefined ? undefined : toJsonSchema(schema, version, 'response');
}

function isObjectSchema(schema: Schema): boolean {
  return schema.type === 'object' || (schema.type === undefined && typeof schema.properties === 'object');
}

/** The summary, then the description; Petstore's "Find pet by ID." then "Returns a single pet.": both; a description that repeats its summary: once. */
function descriptionOf(operation: OperationObject): string {
  const summary = operation.summary?.trim() ?? '';
  const more = operation.description?.trim() ?? '';
  const said = [summary, more].filter((part) => part !== '');
  if (said.length === 2 && more.startsWith(summary.replace(/\.$/, ''))) said.shift();
  return said.map((part) => (/[.!?]$/.test(part) ? part : `${part}.`)).join(' ');
}
