import { describe, expect, it, vi } from 'vitest';
import { closingOf } from '../../helpers/words';
import { ask, closedAfterEach, GRANT, provider, startDoor, streamed as streamedAnswer } from './door';
import type { RunningDoor } from './door';
import { answering, deferred, startUpstream, talkingUntilClosed, unreachableUrl } from './localServers';
import type { Reply } from './localServers';

const track = closedAfterEach();

const REFUSAL = 'You have asked a lot in the last minute; try me again in a moment.';

const streamed = (door: RunningDoor) => streamedAnswer(door, 'Go on');

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

  it('asks no provider before the turn is reserved, then answers once it is', async () => {
    const upstream = track(await startUpstream(answering(['Here ', 'you are.'])));
    const reservedWhen = deferred<undefined>();
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], reservedWhen: reservedWhen.promise }));
    const answer = streamed(door);
    await door.ledger.nextReserve();
    // The reservation is being made: the provider has not been asked.
    expect(upstream.received).toHaveLength(0);
    reservedWhen.resolve(undefined);
    expect(await answer).toEqual({ pieces: ['Here ', 'you are.'], text: 'Here you are.', finish: 'stop', provider: 'alpha' });
    expect(upstream.received).toHaveLength(1);
    expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'alpha', ended: 'stop' });
    expect(door.ledger.settled.map((s) => s.reservation)).toEqual(['r1']);
  });

  it('says whose windows refused a turn in x-confab-refused, streamed or whole, and an answer carries none', async () => {
    for (const by of ['person', 'site'] as const) {
      const door = track(await startDoor({ providers: [], refuse: REFUSAL, refusedBy: by }));
      for (const stream of [true, false]) {
        const response = await fetch(`${door.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${GRANT}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...ask('Again?'), stream }),
        });
        expect(response.headers.get('x-confab-refused')).toBe(by);
        expect(await response.text()).toContain(REFUSAL);
      }
      expect(door.logs).toContainEqual({ event: 'answer.refused', by });
    }
    const answeringDoor = track(await startDoor({ providers: [] }));
    for (const stream of [true, false]) {
      const response = await fetch(`${answeringDoor.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${GRANT}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...ask('Hello?'), stream }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-confab-refused')).toBeNull();
      await response.text();
    }
  });

  it("runs an answer to the end of its minutes and no further, then hangs up on the provider and says why", async () => {
    // The door's timers run on a simulated clock; its sockets stay real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const replying = deferred<Reply>();
      const upstream = track(await startUpstream((reply) => {
        replying.resolve(reply);
      }));
      // 0.005 minutes is 300 ms.
      const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], limits: { minutes: 0.005 } }));
      const opening = door.client.chat.completions.create({ ...ask('Go on'), stream: true });
      const reply = await replying.promise;
      reply.token('word ');
      const chunks = (await opening)[Symbol.asyncIterator]();
      /** The next chunk's choice, or undefined once the stream has ended. */
      const next = async () => {
        const read = await chunks.next();
        return read.done === true ? undefined : read.value.choices[0];
      };
      const pieces = [(await next())?.delta.content];
      // A moment before the minutes are out, the answer still runs: another word comes through.
      await vi.advanceTimersByTimeAsync(299);
      reply.token('word ');
      pieces.push((await next())?.delta.content);
      expect(pieces).toEqual(['word ', 'word ']);
      await vi.advanceTimersByTimeAsync(1);
      let finish: string | null = null;
      for (let choice = await next(); choice !== undefined; choice = await next()) {
        if (choice.delta.content) pieces.push(choice.delta.content);
        finish = choice.finish_reason ?? finish;
      }
      // The last word ended mid-sentence, so the closing sentence follows a dash.
      expect(pieces).toEqual(['word ', 'word ', `— ${closingOf('minutes')}`]);
      expect(finish).toBe('length');
      expect(await (await upstream.next()).closed).toBe(true);
      expect(await door.ledger.nextSettle()).toMatchObject({ provider: 'alpha', ended: 'minutes' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('cuts an answer whose provider goes silent mid-answer, says so, keeps what came, and hangs up', async () => {
    let received: Promise<boolean> | undefined;
    const upstream = track(
      await startUpstream(async (reply, one) => {
        received = one.closed;
        reply.token('The first ');
        reply.token('words. ');
        // Then nothing more, until the door hangs up.
        await one.closed;
      }),
    );
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl)], upstreamIdleMs: 150 }));
    const { text } = await streamed(door);
    expect(text).toBe(`The first words. ${closingOf('stalled')}`);
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
    expect(await streamed(door)).toEqual({ pieces: [closingOf('minutes')], text: closingOf('minutes'), finish: 'length', provider: 'none' });
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
    expect(result.pieces).toEqual(['abcd', 'abcd', 'abcd', ` — ${closingOf('spend')}`]);
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

  it('settles every admitted turn exactly once: a provider failing before a word, a client gone mid-answer, a limit cut', async () => {
    // Checked once the answer's ending is over as the client sees it (its stream read to the end) or,
    // for a client gone, once the door has hung up on the provider: a second settlement comes from
    // the same ending, never later.
    const expectOnce = async (door: RunningDoor, ended: string) => {
      expect(await door.ledger.nextSettle()).toMatchObject({ ended });
      expect(door.ledger.settled.map((one) => one.reservation)).toEqual(['r1']);
      expect(door.logs.filter((line) => line.event === 'settle.failed')).toEqual([]);
    };

    const failing = track(await startDoor({ providers: [provider('alpha', await unreachableUrl())] }));
    // Said as an error event in the stream; the turn is settled as failed whatever the client makes of it.
    await streamed(failing).catch(() => undefined);
    await expectOnce(failing, 'failed');

    const talking = track(await startUpstream(talkingUntilClosed('word ')));
    const left = track(await startDoor({ providers: [provider('alpha', talking.baseUrl)] }));
    const leaving = new AbortController();
    const stream = await left.client.chat.completions.create({ ...ask('Go on'), stream: true }, { signal: leaving.signal });
    // The client leaves at the first word, however its library then ends the read.
    await (async () => {
      for await (const chunk of stream) if (chunk.choices[0]?.delta.content) leaving.abort();
    })().catch(() => undefined);
    expect(await (await talking.next()).closed).toBe(true);
    await expectOnce(left, 'aborted');

    const cutUpstream = track(await startUpstream(talkingUntilClosed('word ')));
    const cut = track(await startDoor({ providers: [provider('alpha', cutUpstream.baseUrl)], limits: { minutes: 0.005 } }));
    expect((await streamed(cut)).finish).toBe('length');
    await expectOnce(cut, 'minutes');
  });

  it('sends every question with a ceiling on its answer: max_completion_tokens, or max_tokens for a provider that wants the old name', async () => {
    const upstream = track(await startUpstream(answering(['Fine.'])));
    const door = track(await startDoor({ providers: [provider('alpha', upstream.baseUrl), { ...provider('beta', upstream.baseUrl), tokensField: 'max_tokens' }] }));
    await streamed(door);
    expect((await upstream.next()).body).toMatchObject({ max_completion_tokens: 4096 });
    expect(upstream.received).toHaveLength(1);
    const old = track(await startDoor({ providers: [{ ...provider('beta', upstream.baseUrl), tokensField: 'max_tokens' }], answerTokens: 300 }));
    await streamed(old);
    const body = upstream.received.at(-1)?.body;
    expect(body).toMatchObject({ max_tokens: 300 });
    expect(body).not.toHaveProperty('max_completion_tokens');
  });
});
