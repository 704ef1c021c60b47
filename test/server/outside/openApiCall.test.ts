/**
 * Calling one OpenAPI operation (openApiCall.ts) against a fetch that records the request: each
 * argument where the spec places it, in OpenAPI's styles; the file's headers and the write's key
 * sent; a 204, a text answer and a wrong answer read as they are; a path argument that would climb
 * to another endpoint refused before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { VerbInputError } from '../../../server/verbs/errors';
import { OpenApiCallError, callOperation } from '../../../server/outside/openApiCall';
import type { Callable, CallTarget } from '../../../server/outside/openApiCall';
import type { Placed } from '../../../server/outside/openApiOperation';

const place = (name: string, where: Placed['in'], more: Partial<Placed> = {}): Placed => ({ name, in: where, style: undefined, explode: true, json: false, ...more });

/** A target whose fetch answers `response` and keeps every request it was given. */
function recording(response: () => Response): { target: CallTarget; sent: Request[] } {
  const sent: Request[] = [];
  const fetchFn: typeof fetch = (url, init) => {
    sent.push(new Request(url, init));
    return Promise.resolve(response());
  };
  return { target: { base: 'https://shop.example/v1/', headers: { api_key: 'site-key' }, fetchFn }, sent };
}

const signal = new AbortController().signal;

describe('calling an OpenAPI operation', () => {
  it('puts each argument in the path, the query, a header, a cookie or the JSON body, with the file’s headers and the write’s key', async () => {
    const operation: Callable = {
      id: 'updateOrder',
      method: 'PUT',
      path: '/stores/{store}/orders/{orderId}',
      bodyType: 'application/json',
      whole: false,
      placed: [
        place('store', 'path'),
        place('orderId', 'path'),
        place('tag', 'query'),
        place('ids', 'query', { style: 'pipeDelimited', explode: false }),
        place('filter', 'query', { style: 'deepObject' }),
        place('where', 'query', { json: true }),
        place('X-Trace', 'header'),
        place('session', 'cookie'),
      ],
    };
    const { target, sent } = recording(() => Response.json({ ok: true }));
    const input = { store: 'north/east', orderId: 7, tag: ['a', 'b'], ids: [1, 2], filter: { size: 2 }, where: { near: 'x' }, 'X-Trace': 'abc', session: 's 1', body: { quantity: 3 } };
    expect(await callOperation(operation, target, input, signal, 'key-1')).toEqual({ status: 200, body: { ok: true } });
    const [request] = sent;
    expect(request?.method).toBe('PUT');
    const url = new URL(request?.url ?? '');
    expect(url.pathname).toBe('/v1/stores/north%2Feast/orders/7');
    expect([...url.searchParams]).toEqual([['tag', 'a'], ['tag', 'b'], ['ids', '1|2'], ['filter[size]', '2'], ['where', '{"near":"x"}']]);
    expect(Object.fromEntries(request?.headers ?? [])).toMatchObject({ api_key: 'site-key', 'idempotency-key': 'key-1', 'x-trace': 'abc', cookie: 'session=s%201', 'content-type': 'application/json', accept: 'application/json' });
    expect(await request?.json()).toEqual({ quantity: 3 });
  });

  it('answers a 204 as its status alone, and a text answer as its text', async () => {
    const operation: Callable = { id: 'deleteOrder', method: 'DELETE', path: '/orders/{id}', bodyType: undefined, whole: false, placed: [place('id', 'path')] };
    const empty = recording(() => new Response(null, { status: 204 }));
    expect(await callOperation(operation, empty.target, { id: 3 }, signal, undefined)).toEqual({ status: 204 });
    expect(empty.sent[0]?.headers.has('idempotency-key')).toBe(false);
    const text = recording(() => new Response('gone', { status: 202, headers: { 'content-type': 'text/plain' } }));
    expect(await callOperation(operation, text.target, { id: 3 }, signal, undefined)).toEqual({ status: 202, body: 'gone' });
  });

  it('fails an answer that is not the JSON object the spec describes, naming the operation', async () => {
    const operation: Callable = { id: 'getOrder', method: 'GET', path: '/orders', bodyType: undefined, whole: true, placed: [] };
    const listed = recording(() => Response.json([1, 2]));
    await expect(callOperation(operation, listed.target, {}, signal, undefined)).rejects.toThrow(new OpenApiCallError('getOrder', 200, 'getOrder answered with something other than the JSON object its spec describes.'));
    const broken = recording(() => new Response('{', { headers: { 'content-type': 'application/json' } }));
    await expect(callOperation(operation, broken.target, {}, signal, undefined)).rejects.toThrow('getOrder answered with JSON that does not parse.');
  });

  it('refuses a path argument of a dot or two, however escaped, before anything is sent', async () => {
    const operation: Callable = { id: 'getOrder', method: 'GET', path: '/orders/{id}', bodyType: undefined, whole: false, placed: [place('id', 'path')] };
    const { target, sent } = recording(() => Response.json({}));
    for (const id of ['..', '.', '%2E%2e']) await expect(callOperation(operation, target, { id }, signal, undefined)).rejects.toBeInstanceOf(VerbInputError);
    expect(sent).toEqual([]);
  });
});
