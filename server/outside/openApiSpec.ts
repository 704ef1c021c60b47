/**
 * An OpenAPI app's spec, read once at start: a file beside the app file or an `https://` URL,
 * validated and dereferenced with Swagger Parser (every `$ref`, across components and files, made
 * the object it names; a schema that contains itself becomes a cycle), and its operations found by
 * `operationId`. A spec that does not parse or validate, or is Swagger 2, refuses the start with a
 * sentence naming the file and the field.
 *
 * Whatever the spec refers to over the network goes through the app's guarded fetch, https only:
 * no redirect is followed and no private address is read unless the file says `private: true`; a
 * spec read over the network does not get to read this machine's files.
 */
import { resolve as resolvePath } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { shownUrl } from './address';
import { AppFileError } from './appFile';
import type { OpenApiAppFile } from './appFile';
import type { OpenApiVersion, Schema } from './openApiSchema';

/** How long reading a spec (and what it refers to) over the network may take at start, in ms. */
const SPEC_READ_MS = 10_000;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: Schema;
  content?: Record<string, { schema?: Schema }>;
  style?: string;
  explode?: boolean;
}

/** A request body or an answer: its schemas by media type. */
interface MediaTypes {
  content?: Record<string, { schema?: Schema }>;
  description?: string;
  required?: boolean;
}

/** An Operation Object as the dereferenced spec has it: only what is read here. */
export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: MediaTypes;
  responses?: Record<string, MediaTypes>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

type Method = (typeof METHODS)[number];

type PathItem = Partial<Record<Method, OperationObject>> & { parameters?: Parameter[] };

/** The spec as Swagger Parser answers it, dereferenced. */
interface Document {
  openapi?: string;
  swagger?: string;
  paths?: Record<string, PathItem>;
}

/** One operation of the spec, where it is, and every parameter it takes. */
export interface FoundOperation {
  method: Method;
  /** The path template, as the spec writes it: `/pet/{petId}`. */
  path: string;
  operation: OperationObject;
  /** The path's parameters, then the operation's; the operation's win by name and place, as OpenAPI says. */
  parameters: Parameter[];
}

/** A spec as read: the dialect of its schemas, and its operations by `operationId`. */
export interface Spec {
  version: OpenApiVersion;
  operations: Map<string, FoundOperation>;
}

/** Reads and dereferences `file`'s spec through `fetchFn`; throws an `AppFileError` when it cannot. */
export async function readSpec(file: OpenApiAppFile, appsDir: string, fetchFn: typeof fetch): Promise<Spec> {
  const spec = file.openapi.spec;
  const remote = /^https:\/\//i.test(spec);
  const where = remote ? spec : resolvePath(appsDir, spec);
  let document: Document;
  try {
    const parsed: unknown = await new SwaggerParser().validate(where, {
      resolve: {
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
  return { version: document.openapi?.startsWith('3.1') === true ? '3.1' : '3.0', operations: operationsOf(document) };
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

function operationsOf(document: Document): Map<string, FoundOperation> {
  const found = new Map<string, FoundOperation>();
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (operation?.operationId === undefined) continue;
      const byPlace = new Map<string, Parameter>();
      for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) byPlace.set(`${parameter.in}\n${parameter.name}`, parameter);
      found.set(operation.operationId, { method, path, operation, parameters: [...byPlace.values()] });
    }
  }
  return found;
}
