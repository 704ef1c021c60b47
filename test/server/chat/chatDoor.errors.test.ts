import { describe, expect, it } from 'vitest';
import { BOT_PROMPT, closedAfterEach, GRANT, provider, startDoor } from './door';
import type { RunningDoor } from './door';
import { answering, startUpstream } from './localServers';
import { requestRefusal } from '../../helpers/words';

const track = closedAfterEach();

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

async function post(door: RunningDoor, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${door.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GRANT}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as ErrorBody };
}

describe('the chat door, refusing what it cannot take', () => {
  it('answers 413 in OpenAI’s error shape for a body past 64 KiB, and keeps serving', async () => {
    const door = track(await startDoor());
    const huge = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(70 * 1024) }] });
    const { status, body } = await post(door, huge);
    expect(status).toBe(413);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large', param: null });
    const completion = await door.client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Still there?' }] });
    expect(completion.choices[0]?.message.content).toContain('Still there?');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const door = track(await startDoor());
    const { status, body } = await post(door, '{"messages": [');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: null, message: requestRefusal('requests.not-json') });
  });

  it('says what it cannot take in the page’s language', async () => {
    const door = track(await startDoor());
    const { body } = await post(door, '{"messages": []}', { 'x-confab-language': 'fr' });
    expect(body.error.message).toBe(requestRefusal('requests.messages-empty', {}, 'fr'));
  });

  it.each([
    ['[]', null],
    ['{"messages": "hello"}', 'messages'],
    ['{"messages": []}', 'messages'],
    ['{"messages": [{"role": "user", "content": 42}]}', 'messages[0].content'],
    ['{"messages": [{"role": "wizard", "content": "hi"}]}', 'messages[0].role'],
    ['{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "image_url", "image_url": {"url": "x"}}]}]}', 'messages[0].content[1].type'],
    ['{"messages": [{"role": "system", "content": "only a system prompt"}]}', 'messages'],
    ['{"messages": [{"role": "user", "content": "hi"}], "stream": "yes"}', 'stream'],
    ['{"messages": [{"role": "user", "content": "hi"}], "stream": true, "stream_options": {"include_usage": 1}}', 'stream_options.include_usage'],
  ])('answers 400 naming the field for %s', async (json, param) => {
    const door = track(await startDoor());
    const { status, body } = await post(door, json);
    expect(status).toBe(400);
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.param).toBe(param);
    if (param !== null) expect(body.error.message).toContain(param.replace(/\[\d+\]\.type$/, ''));
  });

  it('answers 401 in OpenAI’s error shape without a grant, or with one that is refused', async () => {
    const door = track(await startDoor());
    for (const headers of [{ authorization: '' }, { authorization: 'Bearer forged' }]) {
      const { status, body } = await post(door, '{"messages": [{"role": "user", "content": "hi"}]}', headers);
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_grant' });
    }
    expect(door.ledger.reserved).toEqual([]);
  });

  it('answers 404 when the bot the grant names is gone', async () => {
    const door = track(await startDoor({ bot: { slug: 'someone-else' } }));
    const { status, body } = await post(door, '{"messages": [{"role": "user", "content": "hi"}]}');
    expect(status).toBe(404);
    expect(body.error.code).toBe('bot_not_found');
  });

  it('logs no question, answer, prompt, grant or key', async () => {
    const upstream = track(await startUpstream(answering(['The secret ', 'answer.'], { usage: [5, 2] })));
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl), provider('beta', upstream.baseUrl)] }));
    await door.client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'My private question' }] });
    await door.ledger.nextSettle();
    const logged = JSON.stringify(door.logs);
    expect(door.logs.map((line) => line.event)).toContain('answer.ended');
    for (const secret of ['private question', 'secret answer', BOT_PROMPT, GRANT, 'sk-alpha']) expect(logged).not.toContain(secret);
  });
});
