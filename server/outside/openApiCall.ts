/**
 * Calling one operation of an OpenAPI app: the request built from the verb's arguments (each where
 * the spec places it, in OpenAPI's styles), sent to the file's `openapi.server` — never a server the
 * spec names — with the file's headers (secrets from the environment), a write's idempotency key as
 * `Idempotency-Key`, and the executor's signal, so a deadline or a barge-in aborts the request at
 * the other end. It goes through the app's guarded fetch (`address.ts`): no redirect is followed,
 * and a loopback, private or link-local address is refused unless the file says `private: true`.
 *
 * An answer other than 2xx throws an `OpenApiCallError` naming the operation and the status, never
 * the body; the executor says `execution_failed`. Nothing here logs an argument or a result.
 */
import { forModel } from '../../common/modelText';
import { VerbError, VerbInputError } from '../verbs/errors';
import { PrivateAddressError } from './address';
import { JSON_TYPE } from './openApiOperation';
import type { OpenApiOperation, Placed } from './openApiOperation';

/** The largest answer body read from an API, in bytes; the executor passes on at most 16 KiB of it. */
const ANSWER_BYTES_MAX = 1024 * 1024;

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

/** Where an app's calls go, and with what. */
export interface CallTarget {
  /** The file's `openapi.server`: the base URL every operation's path is put after. */
  base: string;
  /** The file's headers, secrets read from the environment. */
  headers: Readonly<Record<string, string>>;
  /** The app's guarded fetch: no redirects, no private address unless the file allows it. */
  fetchFn: typeof fetch;
}

/** What calling an operation needs of it. */
export type Callable = Pick<OpenApiOperation, 'id' | 'method' | 'path' | 'placed' | 'bodyType' | 'whole'>;

/**
 * Calls `operation` at `target` with the verb's `input` (validated against its input schema), aborted
 * by `signal`; a write's idempotency `key` goes as `Idempotency-Key`, which an API that honours it
 * never does twice. Answers the JSON object body (`whole`) or an `Answer`.
 */
export async function callOperation(operation: Callable, target: CallTarget, input: Record<string, unknown>, signal: AbortSignal, key: string | undefined): Promise<Record<string, unknown>> {
  const { id } = operation;
  const url = new URL(`${target.base.replace(/\/+$/, '')}${pathOf(operation, input)}`);
  const search = queryOf(operation.placed, input).toString();
  if (search !== '') url.search = search;
  const headers = headersOf(operation.placed, input);
  for (const [name, value] of Object.entries(target.headers)) headers.set(name, value);
  if (key !== undefined) headers.set('Idempotency-Key', key);
  const init: RequestInit = { method: operation.method, headers, signal, redirect: 'manual' };
  if (operation.bodyType !== undefined && input.body !== undefined) {
    headers.set('content-type', operation.bodyType);
    init.body = JSON.stringify(input.body);
  }

  let response: Response;
  try {
    response = await target.fetchFn(url, init);
  } catch (error) {
    // Cut off by the executor (a deadline, a barge-in): its own signal says which.
    if (signal.aborted) throw error;
    // The operator's to fix (`private: true`), so the person hears only the code's own word; the log has the cause.
    if (error instanceof PrivateAddressError) throw new VerbError('execution_failed', undefined, { cause: error });
    throw new OpenApiCallError(id, undefined, `${id} got no answer from ${url.host}.`, { cause: error });
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel();
    throw new OpenApiCallError(id, response.status, `${id} answered HTTP ${response.status}.`);
  }
  const body = await bodyOf(id, response);
  if (!operation.whole) return body === undefined ? { status: response.status } : { status: response.status, body };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new OpenApiCallError(id, response.status, `${id} answered with something other than the JSON object its spec describes.`);
  return body as Record<string, unknown>;
}

/** A parameter's value as text where a JSON one (`content`) is sent as JSON, else in `simple` style. */
function textOf(place: Placed, value: unknown): string {
  return place.json ? JSON.stringify(value) : simple(value);
}

function pathOf(operation: Callable, input: Record<string, unknown>): string {
  let path = operation.path;
  for (const place of operation.placed) {
    const value = input[place.name];
    if (place.in === 'path' && value !== undefined) path = path.replaceAll(`{${place.name}}`, segmentOf(place.name, textOf(place, value)));
  }
  return path;
}

function queryOf(placed: readonly Placed[], input: Record<string, unknown>): URLSearchParams {
  const query = new URLSearchParams();
  for (const place of placed) {
    const value = input[place.name];
    if (place.in === 'query' && value !== undefined) addQuery(query, place, value);
  }
  return query;
}

/** The headers and cookies the arguments give, and `Accept: application/json`. */
function headersOf(placed: readonly Placed[], input: Record<string, unknown>): Headers {
  const headers = new Headers({ accept: 'application/json' });
  const cookies: string[] = [];
  for (const place of placed) {
    const value = input[place.name];
    if (value === undefined) continue;
    if (place.in === 'header') headers.set(place.name, textOf(place, value));
    else if (place.in === 'cookie') cookies.push(`${place.name}=${encodeURIComponent(textOf(place, value))}`);
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  return headers;
}

/**
 * A path parameter's value as one path segment. `.` and `..` (however escaped, URLs resolve them)
 * would take the call to another endpoint than the one the file allows: refused as the wrong input.
 */
function segmentOf(name: string, value: string): string {
  if (/^(?:\.|%2e){1,2}$/i.test(value)) throw new VerbInputError(forModel(`The ${name} cannot be a dot or two dots; give the one it names.`));
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
    if (place.style === 'deepObject') for (const [name, item] of entries) query.append(`${place.name}[${name}]`, String(item));
    else if (place.explode) for (const [name, item] of entries) query.append(name, String(item));
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
