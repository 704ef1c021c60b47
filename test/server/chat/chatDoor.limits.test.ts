import { afterEach, describe, expect, it } from 'vitest';
import { CLOSING_SENTENCES } from '../../../server/chat/answer';
import { ask, provider, startDoor } from './door';
import type { RunningDoor } from './door';
import { answering, deferred, startUpstream, talkingUntilClosed } from './localServers';
import type { Listening } from './localServers';

let running: (RunningDoor | Listening)[] = [];
const track = <T extends RunningDoor | Listening>(server: T): T => {
  running.push(server);
  return server;
};
afterEach(async () => {
  await Promise.all(running.map((server) => server.close()));
  running = [];
});

const REFUSAL = 'You have asked a lot in the last minute; try me again in a moment.';

async function streamed(door: RunningDoor) {
  const stream = await door.client.chat.completions.create({ ...ask('Go on'), stream: true });
  const pieces: string[] = [];
  let finish: string | null = null;
  let provider: string | undefined;
  for await (const chunk of stream) {
    provider ??= (chunk as { provider?: string }).provider;
    const content = chunk.choices[0]?.delta.content;
    if (content) pieces.push(content);
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  return { pieces, text: pieces.join(''), finish, provider };
}

describe('the chat door, within its limits', () => {
  it('says a refusal as the answer, in the stream, and asks no provider', async () => {
    const upstream = track(await startUpstream(answering(['Never.'])));
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], refuse: REFUSAL }));
    expect(await streamed(door)).toEqual({ pieces: [REFUSAL], text: REFUSAL, finish: 'stop', provider: 'none' });
    expect(upstream.received).toHaveLength(0);
    expect(door.ledger.reserved).toEqual([{ person: 'person-1', nowMs: expect.any(Number) as number }]);
    expect(door.ledger.settled).toEqual([]);
    expect(door.answered).toEqual([]);
  });

  it('says a refusal as the whole completion when the caller does not stream', async () => {
    const door = track(await startDoor({ providers: [], refuse: REFUSAL }));
    const completion = await door.client.chat.completions.create(ask('Again?'));
    expect(completion.choices[0]?.message.content).toBe(REFUSAL);
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('asks the provider while a turn with room is reserved, and sends nothing until it is', async () => {
    const upstream = track(await startUpstream(answering(['Here ', 'you are.'])));
    const reservedWhen = deferred<undefined>();
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], ahead: { reservedWhen: reservedWhen.promise } }));
    const answer = streamed(door);
    let settledFirst = false;
    void answer.then(() => {
      settledFirst = true;
    });
    // The provider is asked before the reservation is made; nothing reaches the caller meanwhile.
    await upstream.next();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settledFirst).toBe(false);
    reservedWhen.resolve(undefined);
    expect(await answer).toEqual({ pieces: ['Here ', 'you are.'], text: 'Here you are.', finish: 'stop', provider: 'alpha' });
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'alpha', ended: 'stop' });
    expect(door.ledger.settled.map((s) => s.reservation)).toEqual(['r1']);
    expect(door.ledger.settledRefused).toEqual([]);
  });

  it('stops a turn asked ahead whose reservation is refused, sends not a word of it, records what asking cost, and says the refusal', async () => {
    const upstream = track(await startUpstream(talkingUntilClosed('word ')));
    const reservedWhen = deferred<undefined>();
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], refuse: REFUSAL, ahead: { reservedWhen: reservedWhen.promise } }));
    const answer = streamed(door);
    const asked = await upstream.next();
    reservedWhen.resolve(undefined);
    expect(await answer).toEqual({ pieces: [REFUSAL], text: REFUSAL, finish: 'stop', provider: 'none' });
    expect(await asked.closed).toBe(true);
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'alpha', ended: 'aborted', startedMs: expect.any(Number) as number });
    expect(door.ledger.settled).toEqual([]);
    expect(door.answered).toEqual([]);
    expect(door.logs).toContainEqual({ event: 'answer.refused' });
  });

  it("stops an answer that runs past its minutes, hangs up on the provider, and says why", async () => {
    const upstream = track(await startUpstream(talkingUntilClosed('word ')));
    // 0.005 minutes is 300 ms.
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], limits: { minutes: 0.005 } }));
    const started = Date.now();
    const result = await streamed(door);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(result.pieces.length).toBeGreaterThan(2);
    // The last word ended mid-sentence, so the closing sentence follows a dash.
    expect(result.pieces.at(-1)).toBe(`— ${CLOSING_SENTENCES.minutes}`);
    expect(result.finish).toBe('length');
    expect(await (await upstream.next()).closed).toBe(true);
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'alpha', ended: 'minutes' });
  });

  it('cuts an answer whose provider goes silent mid-answer, says so, keeps what came, and hangs up', async () => {
    let received: Promise<boolean> | undefined;
    const upstream = track(
      await startUpstream(async (reply, one) => {
        received = one.closed;
        reply.token('The first ');
        reply.token('words. ');
        await new Promise((resolve) => setTimeout(resolve, 5_000));
      }),
    );
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], upstreamIdleMs: 150 }));
    const { text } = await streamed(door);
    expect(text).toBe(`The first words. ${CLOSING_SENTENCES.stalled}`);
    expect(await received).toBe(true);
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'alpha', ended: 'stalled' });
  });

  it('says the minutes ran out when they do before the first token', async () => {
    const upstream = track(
      await startUpstream((reply) => {
        reply.open();
      }),
    );
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], limits: { minutes: 0.002 } }));
    expect(await streamed(door)).toEqual({ pieces: [CLOSING_SENTENCES.minutes], text: CLOSING_SENTENCES.minutes, finish: 'length', provider: 'none' });
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: null, ended: 'minutes', costUsd: 0 });
  });

  it('stops an answer once its running cost passes its spend, and hangs up on the provider', async () => {
    const upstream = track(await startUpstream(talkingUntilClosed('abcd')));
    // A dollar per completion token (four characters) and nothing for the prompt: the third token passes $2.50.
    const door = track(
      await startDoor({
        providers: [provider('alpha', upstream.baseUrl)],
        prices: { 'alpha-model': { promptUsdPerMillion: 0, completionUsdPerMillion: 1_000_000 } },
        limits: { spend: 2.5 },
      }),
    );
    const result = await streamed(door);
    expect(result.pieces).toEqual(['abcd', 'abcd', 'abcd', ` — ${CLOSING_SENTENCES.spend}`]);
    expect(result.finish).toBe('length');
    expect(await (await upstream.next()).closed).toBe(true);
    const spent = await door.ledger.nextSettle();
    expect(spent).toMatchObject({ ended: 'spend', completionTokens: 3, estimated: true });
    expect(spent.costUsd).toBeCloseTo(3, 10);
  });

  it('passes on that the provider itself stopped at its length', async () => {
    const upstream = track(
      await startUpstream((reply) => {
        reply.token('Cut');
        reply.finish('length');
        reply.done();
      }),
    );
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)] }));
    expect(await streamed(door)).toMatchObject({ text: 'Cut', finish: 'length' });
    expect(await door.ledger.nextSettle()).toMatchObject({ ended: 'length' });
  });
});
