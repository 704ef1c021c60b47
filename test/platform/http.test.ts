import { describe, expect, it } from 'vitest';
import { failureOf, HttpError, httpClient, retryable } from '../../src/platform/http';
import type { Say, Trouble } from '../../src/platform/http';

function answering(status: number, body?: string) {
  const calls: { url: string; init?: RequestInit }[] = [];
  const fetcher = ((url: string, init?: RequestInit) => {
    calls.push({ url, init });
    return Promise.resolve(new Response(body ?? null, { status }));
  }) as typeof fetch;
  return { fetcher, calls };
}

/** Says each trouble back, so a test can see which one the client met. */
const troubles: Trouble[] = [];
const say: Say = (what, trouble) => {
  troubles.push(trouble);
  return `${trouble.kind}: ${what}`;
};

describe('the page’s HTTP client', () => {
  it('sends JSON under the page’s credentials with a timeout, and answers the JSON', async () => {
    const { fetcher, calls } = answering(200, '{"id":"t1"}');
    await expect(httpClient(say, fetcher).json('keep it', '/api/threads', { body: { bot: 'demo' } })).resolves.toEqual({ id: 't1' });
    const init = calls[0]?.init;
    expect(init).toMatchObject({ method: 'POST', credentials: 'same-origin', body: '{"bot":"demo"}' });
    expect(init?.headers).toEqual({ accept: 'application/json', 'content-type': 'application/json' });
    expect(init?.signal).toBeInstanceOf(AbortSignal);
    expect(init?.keepalive).toBeUndefined();
  });

  it('takes the caller’s signal in place of the timeout, and another accept, for a stream', async () => {
    const { fetcher, calls } = answering(200, 'data: x\n\n');
    const controller = new AbortController();
    await httpClient(say, fetcher).send('follow', '/api/presence', { accept: 'text/event-stream', signal: controller.signal });
    expect(calls[0]?.init).toMatchObject({ method: 'GET', headers: { accept: 'text/event-stream' } });
    expect(calls[0]?.init?.signal).toBe(controller.signal);
  });

  it('answers nothing for a 204', async () => {
    await expect(httpClient(say, answering(204).fetcher).json('forget it', '/api/memories/m', { method: 'DELETE' })).resolves.toBeUndefined();
  });

  it('fails with one typed error that keeps the status, the server’s sentence and whether to try again', async () => {
    const refused = await httpClient(say, answering(404, '{"error":"There is no such conversation of yours."}').fetcher).json('save a line', '/x').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ message: 'answered: save a line', status: 404, said: 'There is no such conversation of yours.', failure: 'refused' });
    expect(retryable(refused)).toBe(false);
    const overloaded = await httpClient(say, answering(503, '{"error":{"message":"Busy."}}').fetcher).json('save a line', '/x').catch((e: unknown) => e);
    expect(overloaded).toMatchObject({ status: 503, said: 'Busy.', failure: 'unreachable' });
    expect(retryable(overloaded)).toBe(true);
    expect(troubles.at(-1)).toEqual({ kind: 'answered', status: 503, said: 'Busy.', failure: 'unreachable' });
    const proxy = await httpClient(say, answering(502, '<html>').fetcher).json('save a line', '/x').catch((e: unknown) => e);
    expect(proxy).toMatchObject({ status: 502, said: undefined });
  });

  it('keeps the cause of a call that never answered or answered what is not JSON', async () => {
    const offline = new TypeError('Failed to fetch');
    const unreachable = await httpClient(say, (() => Promise.reject(offline))).json('save a line', '/x').catch((e: unknown) => e);
    expect(unreachable).toMatchObject({ message: 'unreachable: save a line', failure: 'unreachable', status: undefined, cause: offline });
    const garbled = await httpClient(say, answering(200, 'not json').fetcher).json('save a line', '/x').catch((e: unknown) => e);
    expect(garbled).toMatchObject({ message: 'not-json: save a line', failure: 'refused', status: 200 });
    expect((garbled as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('checks the answer’s shape when asked to', async () => {
    const isId = (value: unknown): value is { id: string } => typeof (value as { id?: unknown } | null)?.id === 'string';
    await expect(httpClient(say, answering(200, '{"id":"t1"}').fetcher).json('keep it', '/x', {}, isId)).resolves.toEqual({ id: 't1' });
    await expect(httpClient(say, answering(200, '{"name":"t1"}').fetcher).json('keep it', '/x', {}, isId)).rejects.toMatchObject({ message: 'misshapen: keep it', failure: 'refused' });
  });

  it('takes a 5xx, 408 and 429 as passing, any other status as a refusal', () => {
    expect([500, 503, 408, 429].map(failureOf)).toEqual(['unreachable', 'unreachable', 'unreachable', 'unreachable']);
    expect([400, 401, 404, 409].map(failureOf)).toEqual(['refused', 'refused', 'refused', 'refused']);
  });
});
