import { describe, expect, it } from 'vitest';
import { createEndpointSpeaker } from '../../../src/platform/speakers/endpointSpeaker';
import type { EndpointSpeakerDeps } from '../../../src/platform/speakers/endpointSpeaker';
import type { EndpointFailureKind, SpeakerFailure } from '../../../src/platform/speakers/speaker';
import type { Sent } from './fakes';
import { fakeFetch, pcm16, pcmAnswer, piece, RecordingPlayer, settle } from './fakes';

function speaker(more: Partial<EndpointSpeakerDeps> = {}, fetchOptions: { ignoresAbort?: boolean } = {}) {
  const player = new RecordingPlayer();
  const fake = fakeFetch(fetchOptions);
  const failures: SpeakerFailure[] = [];
  const endpoint = createEndpointSpeaker({
    player,
    grant: () => 'grant-1',
    voice: () => ({ name: 'alloy', speed: 1.1 }),
    fetch: fake.fetch,
    ...more,
  });
  endpoint.onFailed((failure) => failures.push(failure));
  return { endpoint, player, sent: fake.sent, failures };
}

/** The request the test expects to be the `index`th sent. */
function sentAt<T>(sent: readonly T[], index: number): T {
  const one = sent[index];
  if (one === undefined) throw new Error(`Only ${sent.length} requests were sent; expected one at ${index}.`);
  return one;
}

describe('the endpoint speaker', () => {
  it('asks nothing of the endpoint until a piece is asked of it', async () => {
    const { sent, endpoint } = speaker();
    endpoint.cancel(1);
    await settle();
    expect(sent).toEqual([]);
  });

  it('posts each piece in OpenAI’s speech shape with the conversation’s grant', async () => {
    const { endpoint, sent } = speaker({ grant: () => Promise.resolve('grant-xyz') });
    endpoint.speak(piece(1, 0, 'endpoint', 'Hello there.'));
    await settle();
    const first = sentAt(sent, 0);
    expect(first.url).toBe('/api/speak');
    expect(first.headers.authorization).toBe('Bearer grant-xyz');
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.body).toEqual({ input: 'Hello there.', voice: 'alloy', response_format: 'pcm', speed: 1.1 });
  });

  it('leaves the voice and pace to the site when none is set', async () => {
    const { endpoint, sent } = speaker({ voice: () => ({ name: undefined, speed: undefined }) });
    endpoint.speak(piece(1, 0));
    await settle();
    expect(sentAt(sent, 0).body).toEqual({ input: 'Piece 0 of 1.', response_format: 'pcm' });
  });

  it('writes frames to the player as they land, before the body ends, carrying a split sample over', async () => {
    const { endpoint, player, sent } = speaker();
    endpoint.speak(piece(1, 0));
    await settle();
    const { response, body } = pcmAnswer();
    sentAt(sent, 0).answer.resolve(response);
    const bytes = pcm16(16384, -16384, 8192);
    body.push(bytes.slice(0, 3));
    await settle();
    expect(player.about(1, 0)).toEqual([
      { kind: 'open', key: { utteranceId: 1, piece: 0 }, rateHz: 24_000 },
      { kind: 'write', key: { utteranceId: 1, piece: 0 }, samples: Float32Array.of(0.5) },
    ]);

    body.push(bytes.slice(3));
    await settle();
    expect(player.samplesOf(1, 0)).toEqual([0.5, -0.5, 0.25]);
    expect(player.about(1, 0).some((call) => call.kind === 'end')).toBe(false);

    body.close();
    await settle();
    expect(player.about(1, 0).at(-1)).toEqual({ kind: 'end', key: { utteranceId: 1, piece: 0 } });
  });

  it('asks for the next piece once the one being read has sounded, and plays the pieces in order', async () => {
    const { endpoint, player, sent } = speaker();
    endpoint.speak(piece(1, 0));
    endpoint.speak(piece(1, 1));
    endpoint.speak(piece(1, 2));
    await settle();
    expect(sent).toHaveLength(1);

    const first = pcmAnswer();
    sentAt(sent, 0).answer.resolve(first.response);
    await settle();
    expect(sent).toHaveLength(1);
    first.body.push(pcm16(100));
    await settle();
    expect(sent.map((one) => one.body.input)).toEqual(['Piece 0 of 1.', 'Piece 1 of 1.']);

    // The second piece's bytes are all there while the first is still streaming; they wait for it.
    const second = pcmAnswer();
    sentAt(sent, 1).answer.resolve(second.response);
    second.body.push(pcm16(200));
    second.body.close();
    await settle();
    expect(player.opened()).toEqual(['1:0']);
    // One piece ahead at most: the third waits until the second is the one sounding.
    expect(sent).toHaveLength(2);

    first.body.push(pcm16(150));
    first.body.close();
    await settle();
    expect(player.opened()).toEqual(['1:0', '1:1']);
    expect(player.about(1, 0).at(-1)).toEqual({ kind: 'end', key: { utteranceId: 1, piece: 0 } });
    expect(player.samplesOf(1, 0)).toEqual([100 / 32768, 150 / 32768]);
    expect(player.samplesOf(1, 1)).toEqual([200 / 32768]);
    expect(sent).toHaveLength(3);
  });

  it('cancels the reader of an interrupted piece, so no more bytes arrive and nothing more is written', async () => {
    const { endpoint, player, sent } = speaker();
    endpoint.speak(piece(1, 0));
    endpoint.speak(piece(1, 1));
    await settle();
    const { response, body } = pcmAnswer();
    sentAt(sent, 0).answer.resolve(response);
    body.push(pcm16(1000, 2000));
    await settle();
    const before = player.calls.length;
    expect(player.samplesOf(1, 0)).toEqual([1000 / 32768, 2000 / 32768]);
    expect(sent).toHaveLength(2);

    endpoint.cancel(1);
    await settle();
    expect(body.cancelled).toBe(true);
    expect(sentAt(sent, 0).signal?.aborted).toBe(true);
    expect(sentAt(sent, 1).signal?.aborted).toBe(true);
    expect(body.push(pcm16(3000))).toBe(false);
    await settle();
    // The piece is ended where it stood (a stopped player has already dropped it); nothing is written.
    expect(player.calls.slice(before)).toEqual([{ kind: 'end', key: { utteranceId: 1, piece: 0 } }]);
  });

  it('throws away an answer that arrives for an interrupted utterance, and goes on with the next one', async () => {
    const { endpoint, player, sent, failures } = speaker({}, { ignoresAbort: true });
    endpoint.speak(piece(1, 0));
    await settle();
    endpoint.cancel(1);
    endpoint.speak(piece(2, 0));
    await settle();

    const late = pcmAnswer();
    sentAt(sent, 0).answer.resolve(late.response);
    late.body.push(pcm16(500));
    await settle();
    expect(late.body.cancelled).toBe(true);
    expect(player.opened()).toEqual([]);

    const next = pcmAnswer();
    sentAt(sent, 1).answer.resolve(next.response);
    next.body.push(pcm16(700));
    next.body.close();
    await settle();
    expect(player.opened()).toEqual(['2:0']);
    expect(failures).toEqual([]);
  });

  it('reports the server’s no-endpoint once, for the piece itself, and never asks again', async () => {
    const { endpoint, player, sent, failures } = speaker();
    endpoint.speak(piece(1, 0));
    endpoint.speak(piece(1, 1));
    await settle();
    sentAt(sent, 0).answer.resolve(Response.json({ error: 'no-endpoint' }, { status: 404 }));
    await settle();

    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ utteranceId: 1, piece: 0, voice: 'endpoint', error: { kind: 'no-endpoint', status: 404 } });
    expect(failures[0]?.reason).toMatch(/no voice endpoint.*this device’s own voice/);
    expect(endpoint.dead).toBe(true);

    endpoint.speak(piece(1, 2));
    endpoint.speak(piece(2, 0));
    await settle();
    expect(sent).toHaveLength(1);
    expect(player.calls).toEqual([]);
    expect(failures).toHaveLength(1);
  });

  it('says the site does not buy its paid voice yet, and a ceiling’s own sentence, then speaks on the device', async () => {
    const notLive = speaker();
    notLive.endpoint.speak(piece(1, 0));
    await settle();
    sentAt(notLive.sent, 0).answer.resolve(Response.json({ error: 'not-live', message: 'AGENTS_LIVE is not set.' }, { status: 403 }));
    await settle();
    expect(notLive.failures[0]).toMatchObject({ error: { kind: 'not-live', status: 403 } });
    expect(notLive.failures[0]?.reason).toMatch(/does not buy its paid voice.*this device’s own voice/);

    const refused = speaker();
    refused.endpoint.speak(piece(1, 0));
    await settle();
    const sentence = 'That is all this site may spend in a day for everybody together ($5.00); it frees up in 3 hours.';
    sentAt(refused.sent, 0).answer.resolve(Response.json({ error: 'refused', message: sentence, by: 'site' }, { status: 429 }));
    await settle();
    expect(refused.failures[0]).toMatchObject({ error: { kind: 'refused', status: 429 } });
    expect(refused.failures[0]?.reason).toBe(`${sentence} The paid voice is held to it too, so this device’s own voice speaks instead for the rest of this visit.`);
  });

  const before: [what: string, answer: (sent: Sent) => void, kind: EndpointFailureKind][] = [
    ['an error status', (one) => { one.answer.resolve(Response.json({ error: 'upstream', status: 502 }, { status: 502 })); }, 'refused'],
    ['a network error', (one) => { one.answer.reject(new TypeError('Failed to fetch')); }, 'unreachable'],
    ['JSON where PCM was expected', (one) => { one.answer.resolve(Response.json({ error: { message: 'quota' } }, { status: 200 })); }, 'not-pcm'],
    ['a compressed format', (one) => { one.answer.resolve(new Response(Uint8Array.of(1, 2, 3, 4), { headers: { 'content-type': 'audio/mpeg' } })); }, 'not-pcm'],
    ['an empty body', (one) => { one.answer.resolve(new Response(new Uint8Array(0), { headers: { 'content-type': 'audio/pcm' } })); }, 'empty'],
    ['a single byte', (one) => { one.answer.resolve(new Response(Uint8Array.of(7), { headers: { 'content-type': 'audio/pcm' } })); }, 'broken'],
  ];

  for (const [what, answer, kind] of before) {
    it(`falls back on ${what} before any sound: the same piece is reported, once, and nothing is asked again`, async () => {
      const { endpoint, player, sent, failures } = speaker();
      endpoint.speak(piece(3, 0));
      endpoint.speak(piece(3, 1));
      await settle();
      answer(sentAt(sent, 0));
      await settle();
      expect(failures).toMatchObject([{ utteranceId: 3, piece: 0, voice: 'endpoint', error: { kind } }]);
      expect(failures[0]?.reason).toMatch(/this device’s own voice speaks instead/);
      expect(player.calls).toEqual([]);
      endpoint.speak(piece(3, 2));
      endpoint.speak(piece(4, 0));
      await settle();
      expect(sent).toHaveLength(1);
      expect(failures).toHaveLength(1);
    });
  }

  it('keeps what was heard when the stream breaks mid-piece, and reports the piece after it', async () => {
    const { endpoint, player, sent, failures } = speaker();
    endpoint.speak(piece(1, 0));
    endpoint.speak(piece(1, 1));
    await settle();
    const { response, body } = pcmAnswer();
    sentAt(sent, 0).answer.resolve(response);
    body.push(pcm16(1200));
    await settle();
    const next = pcmAnswer();
    sentAt(sent, 1).answer.resolve(next.response);
    await settle();
    body.error(new TypeError('network error'));
    await settle();

    expect(failures).toMatchObject([{ utteranceId: 1, piece: 1, voice: 'endpoint', error: { kind: 'broken' } }]);
    expect(player.about(1, 0).at(-1)).toEqual({ kind: 'end', key: { utteranceId: 1, piece: 0 } });
    expect(player.opened()).toEqual(['1:0']);
    expect(sentAt(sent, 1).signal?.aborted).toBe(true);
    expect(sent).toHaveLength(2);
  });

  it('treats a body of an odd length as broken once its last byte is known', async () => {
    const { endpoint, player, sent, failures } = speaker();
    endpoint.speak(piece(1, 0));
    await settle();
    const { response, body } = pcmAnswer('application/octet-stream');
    sentAt(sent, 0).answer.resolve(response);
    body.push([...pcm16(10, 20), 5]);
    body.close();
    await settle();
    expect(player.samplesOf(1, 0)).toEqual([10 / 32768, 20 / 32768]);
    expect(failures).toMatchObject([{ utteranceId: 1, piece: 1, error: { kind: 'broken' } }]);
    expect(failures[0]?.reason).toMatch(/half a sample/);
  });

  it('falls back without a request when the grant cannot be had', async () => {
    const { endpoint, sent, failures } = speaker({ grant: () => Promise.reject(new Error('signed out')) });
    endpoint.speak(piece(1, 0));
    await settle();
    expect(sent).toEqual([]);
    expect(failures).toMatchObject([{ utteranceId: 1, piece: 0, error: { kind: 'no-grant' } }]);
  });

  it('reports nothing for a failure of a piece already interrupted, and stays alive', async () => {
    const { endpoint, sent, failures } = speaker({}, { ignoresAbort: true });
    endpoint.speak(piece(1, 0));
    await settle();
    endpoint.cancel(1);
    sentAt(sent, 0).answer.resolve(new Response('gateway', { status: 502 }));
    await settle();
    expect(failures).toEqual([]);
    expect(endpoint.dead).toBe(false);
  });

});
