import { describe, expect, it } from 'vitest';
import { conversationApi, retryable } from '../../src/platform/conversationApi';
import { HttpError } from '../../src/platform/http';
import { answering } from '../helpers/answeringFetch';

const bot = { slug: 'demo', name: 'Sage', memory: 'person+recall', languages: ['en'], voice: { by: 'browser', visual: 'halo', language: 'en', voices: ['F1'], gapMs: 120, steps: 8, opening: 8, words: 12, pieceChars: 300 } };

describe('the conversation API client', () => {
  it('starts a conversation and checks the answer’s shape', async () => {
    const { fetcher, calls } = answering(200, { grant: 'g.s', expiresAt: 1, bot });
    await expect(conversationApi(fetcher).start('demo')).resolves.toMatchObject({ grant: 'g.s', bot: { name: 'Sage' } });
    expect(calls[0]).toMatchObject({ url: '/api/start', init: { method: 'POST', body: '{"bot":"demo"}' } });
    await expect(conversationApi(answering(200, { grant: 'g' }).fetcher).start('demo')).rejects.toThrow(/shape this page does not understand/);
  });

  it('saves a line, lists threads, lines and memories, and forgets them by id, escaping what goes in a path', async () => {
    const line = { id: 'l', threadId: 't/1', who: 'person', text: 'hi', clientId: 'c', interrupted: false, createdAt: 'now' };
    const saving = answering(201, line);
    await expect(conversationApi(saving.fetcher).addLine('t/1', { who: 'person', text: 'hi', clientId: 'c' })).resolves.toEqual(line);
    expect(saving.calls[0]?.url).toBe('/api/threads/t%2F1/lines');
    await expect(conversationApi(answering(200, { threads: [{ id: 't', bot: 'demo', title: 'hi', createdAt: 'a', lastLineAt: 'b' }] }).fetcher).threads('demo')).resolves.toHaveLength(1);
    await expect(conversationApi(answering(200, { memories: [{ id: 'm', bot: 'demo', text: 'I like tea', createdAt: 'a' }] }).fetcher).memories('demo')).resolves.toHaveLength(1);
    const leaving = answering(201, line);
    await conversationApi(leaving.fetcher).addLine('t/1', { who: 'person', text: 'hi', clientId: 'c' }, { keepalive: true });
    expect(leaving.calls[0]?.init?.keepalive).toBe(true);
    expect(saving.calls[0]?.init?.keepalive).toBeUndefined();
    const forgetting = answering(204);
    await conversationApi(forgetting.fetcher).forgetMemory('m');
    expect(forgetting.calls[0]?.init?.method).toBe('DELETE');
  });

  it('calls an unreachable or overloaded server retryable, and a refusal not, with the server’s own sentence', async () => {
    const offline = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    const error = await conversationApi(offline).createThread('demo').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect(retryable(error)).toBe(true);
    expect(retryable(await conversationApi(answering(503, {}).fetcher).threads('demo').catch((e: unknown) => e))).toBe(true);
    const refused = await conversationApi(answering(404, { error: 'There is no such conversation of yours.' }).fetcher).addLine('t', { who: 'person', text: 'x', clientId: 'c' }).catch((e: unknown) => e);
    expect(retryable(refused)).toBe(false);
    expect(refused).toMatchObject({ status: 404, message: expect.stringContaining('There is no such conversation of yours.') as unknown });
  });

  it('answers a pending action by approving or refusing it under the person’s session, and checks the outcome', async () => {
    const approving = answering(200, { outcome: 'done', sentence: 'Done. Your shopping list is empty.' });
    await expect(conversationApi(approving.fetcher).settleAction('a/1', true)).resolves.toEqual({ outcome: 'done', sentence: 'Done. Your shopping list is empty.' });
    expect(approving.calls[0]).toMatchObject({ url: '/api/actions/a%2F1/approve', init: { method: 'POST', credentials: 'same-origin' } });
    const refusing = answering(200, { outcome: 'denied', sentence: 'Okay, I’ve left it as it was.' });
    await conversationApi(refusing.fetcher).settleAction('a1', false);
    expect(refusing.calls[0]?.url).toBe('/api/actions/a1/deny');
    await expect(conversationApi(answering(200, { outcome: 'maybe', sentence: 'x' }).fetcher).settleAction('a1', true)).rejects.toThrow(/shape this page does not understand/);
  });
});
