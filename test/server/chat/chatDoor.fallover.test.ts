import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { closingOf } from '../../helpers/words';
import { ask, closedAfterEach, provider, startDoor, streamed as streamedAnswer } from './door';
import type { RunningDoor } from './door';
import { answering, startUpstream, unreachableUrl } from './localServers';
import type { Reply, Script } from './localServers';

const track = closedAfterEach();

const failing = (status: number, code: string | null = null): Script => (reply) => {
  reply.fail(status, code, 'Incorrect API key provided: sk-alpha-secret-key');
};

/** Resolves once all the reply has written is on its way to the door, so a connection dropped then loses none of it. */
const sent = (reply: Reply) =>
  new Promise<void>((resolve) => {
    reply.res.write('', () => {
      resolve();
    });
  });

/** Two providers: `alpha` scripted by the test, `beta` answering "From beta." */
async function twoProviders(alpha: Script) {
  const first = track(await startUpstream(alpha));
  const second = track(await startUpstream(answering(['From ', 'beta.'])));
  const door = track(await startDoor({ providers: [provider('alpha', first.baseUrl), provider('beta', second.baseUrl)], firstTokenMs: 300 }));
  return { first, second, door };
}

/** The streamed answer's text, finish and provider. */
async function streamed(door: RunningDoor, question = 'Hello?') {
  const { text, finish, provider } = await streamedAnswer(door, question);
  return { text, finish, provider };
}

/** "Anyone?" asked over plain HTTP of a door whose two providers both fail (401, then 429). */
async function askingNobody(extra: { stream?: true }): Promise<Response> {
  const first = track(await startUpstream(failing(401)));
  const second = track(await startUpstream(failing(429)));
  const door = track(await startDoor({ providers: [provider('alpha', first.baseUrl), provider('beta', second.baseUrl)] }));
  return fetch(`${door.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer grant-ok', 'content-type': 'application/json' },
    body: JSON.stringify({ ...ask('Anyone?'), ...extra }),
  });
}

describe('the chat door, falling over to the next provider', () => {
  it.each([
    [401, 'a bad key'],
    [402, 'no credits'],
    [403, 'a key without permission'],
    [404, 'a model it does not have'],
    [429, 'a rate limit'],
    [500, 'its server failing'],
    [503, 'its server down'],
  ])('asks the next provider when the first answers %i (%s), and says which answered', async (status) => {
    const { second, door } = await twoProviders(failing(status));
    expect(await streamed(door)).toEqual({ text: 'From beta.', finish: 'stop', provider: 'beta' });
    expect(second.received).toHaveLength(1);
    expect(door.logs).toContainEqual(expect.objectContaining({ event: 'provider.fell-over', provider: 'alpha', failure: 'status', status }));
    expect((await door.ledger.nextSettle()).provider).toBe('beta');
    expect((await door.nextAnswered()).provider).toBe('beta');
  });

  it('asks the next provider when a 400 says the model is missing', async () => {
    const { door } = await twoProviders(failing(400, 'model_not_found'));
    expect((await streamed(door)).provider).toBe('beta');
    expect(door.logs).toContainEqual({ event: 'provider.fell-over', provider: 'alpha', failure: 'status', status: 400, code: 'model_not_found' });
  });

  it('asks the next provider when the first cannot be reached', async () => {
    const second = track(await startUpstream(answering(['Reached.'])));
    const door = track(await startDoor({ providers: [provider('alpha', `${await unreachableUrl()}/v1`), provider('beta', second.baseUrl)] }));
    expect(await streamed(door)).toMatchObject({ text: 'Reached.', provider: 'beta' });
    expect(door.logs).toContainEqual({ event: 'provider.fell-over', provider: 'alpha', failure: 'unreachable' });
  });

  it('asks the next provider when the first sends no token in time, hanging up on the first', async () => {
    const { first, door } = await twoProviders((reply) => {
      reply.open();
    });
    expect((await streamed(door)).provider).toBe('beta');
    expect(await (await first.next()).closed).toBe(true);
    expect(door.logs).toContainEqual({ event: 'provider.fell-over', provider: 'alpha', failure: 'timeout' });
  });

  it('asks the next provider when the first breaks off before its first token', async () => {
    const { door } = await twoProviders(async (reply) => {
      reply.open();
      await sent(reply);
      reply.destroy();
    });
    expect((await streamed(door)).provider).toBe('beta');
    expect(door.logs).toContainEqual({ event: 'provider.fell-over', provider: 'alpha', failure: 'stream' });
  });

  it('does not ask again when the request is malformed (400): a stream says so in OpenAI’s error shape, as OpenAI’s own client reads it', async () => {
    const { second, door } = await twoProviders(failing(400, 'invalid_value'));
    // The stream's headers went out while the provider was asked; the failure is its one event.
    const stream = await door.client.chat.completions.create({ ...ask('Hello?'), stream: true });
    const error = await (async () => {
      for await (const _chunk of stream) {
        // Nothing comes before the error.
      }
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(APIError);
    const api = error as APIError;
    expect(api.code).toBe('provider_refused_request');
    expect(api.message).toContain('"alpha" answered 400 (invalid_value)');
    expect(second.received).toHaveLength(0);
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: null, ended: 'failed', costUsd: 0 });
  });

  it('answers a whole completion that no provider would give with 502 in OpenAI’s error shape', async () => {
    const { door } = await twoProviders(failing(400, 'invalid_value'));
    const error = await door.client.chat.completions.create(ask('Hello?')).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(502);
    expect((error as APIError).code).toBe('provider_refused_request');
  });

  it('says in the stream that no provider answered, naming each and its status with the provider’s own sentence — and never a key', async () => {
    const response = await askingNobody({ stream: true });
    expect(response.status).toBe(200);
    const text = await response.text();
    // One event, the error, and no [DONE]: the stream did not end as an answer does.
    const events = text.split('\n\n').filter((event) => event !== '');
    expect(events).toHaveLength(1);
    const body = JSON.parse((events[0] ?? '').replace(/^data: /, '')) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'api_error', code: 'no_provider_answered' });
    expect(body.error.message).toContain('"alpha" answered 401. It said: “Incorrect API key provided: [key]”');
    expect(body.error.message).toContain('"beta" answered 429. It said: “Incorrect API key provided: [key]”');
    expect(text).not.toMatch(/secret/);
  });

  it('answers 502 naming each provider and its status with the provider’s own sentence when none answers — and never a key', async () => {
    const response = await askingNobody({});
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'api_error', code: 'no_provider_answered' });
    expect(body.error.message).toContain('"alpha" answered 401. It said: “Incorrect API key provided: [key]”');
    expect(body.error.message).toContain('"beta" answered 429. It said: “Incorrect API key provided: [key]”');
    expect(JSON.stringify(body)).not.toMatch(/secret/);
  });

  it('ends the answer with a closing sentence, not another provider, when the provider breaks after its first token', async () => {
    const { second, door } = await twoProviders(async (reply) => {
      reply.token('The answer is');
      await sent(reply);
      reply.destroy();
    });
    const result = await streamed(door);
    expect(result).toEqual({ text: `The answer is — ${closingOf('broke')}`, finish: 'stop', provider: 'alpha' });
    expect(second.received).toHaveLength(0);
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'alpha', ended: 'broke' });
  });

  it("asks the bot's own provider first with the bot's model; a fallback uses its own model", async () => {
    const first = track(await startUpstream(failing(503)));
    const second = track(await startUpstream(answering(['Fallback.'])));
    const door = track(
      await startDoor({
        providers: [provider('alpha', second.baseUrl, 'alpha-own'), provider('beta', first.baseUrl, 'beta-own')],
        bot: { provider: 'beta', model: 'beta-special' },
      }),
    );
    const completion = await door.client.chat.completions.create(ask('Who answers?'));
    expect((await first.next()).body.model).toBe('beta-special');
    expect((await second.next()).body.model).toBe('alpha-own');
    expect(completion.model).toBe('alpha-own');
  });
});
