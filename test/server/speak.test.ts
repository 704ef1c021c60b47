import type { IncomingHttpHeaders } from 'node:http';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { afterEach, describe, expect, it } from 'vitest';
import { speakProxy, speechUrl } from '../../server/speak';
import type { SpeakDeps, SpeakEndpoint } from '../../server/speak';
import type { AnswerSpend } from '../../server/chat/doorTypes';
import { deferred, listen, serveApp, unreachableUrl, whenArrived } from './chat/localServers';
import type { Deferred, Listening } from './chat/localServers';

const KEY = 'sk-tts-very-secret';
const GRANT = 'grant-ok';

interface Grant {
  bot: string;
}

interface VoiceUpstream extends Listening {
  requests: { path: string; headers: IncomingHttpHeaders; body: Record<string, unknown>; closed: Promise<boolean> }[];
  /** Released by the test: the upstream then sends its last chunk and ends. */
  last: Deferred;
}

let running: Listening[] = [];
afterEach(async () => {
  await Promise.all(running.map((server) => server.close()));
  running = [];
});

/** A voice endpoint that sends PCM in two chunks and holds the second until the test releases it. */
async function voiceUpstream(options: { status?: number; contentType?: string } = {}): Promise<VoiceUpstream> {
  const requests: VoiceUpstream['requests'] = [];
  const last = deferred();
  const server = await listen((req, res) => {
    whenArrived(req, res, ({ text, closed }) => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(text) as Record<string, unknown>, closed });
      if (options.status !== undefined) {
        res.writeHead(options.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }));
        return;
      }
      res.writeHead(200, { 'content-type': options.contentType ?? 'audio/pcm' });
      res.write(Buffer.from([1, 2, 3, 4]));
      void last.promise.then(() => {
        if (!res.destroyed) res.end(Buffer.from([5, 6, 7, 8]));
      });
    });
  });
  const upstream = { ...server, requests, last };
  running.push(upstream);
  return upstream;
}

async function proxy(endpoint: SpeakEndpoint | undefined, more: Partial<SpeakDeps<Grant>> = {}): Promise<Listening> {
  const app = new Hono();
  app.route(
    '/',
    speakProxy<Grant>({
      authorize: (c) => {
        if (c.req.header('authorization') !== `Bearer ${GRANT}`) throw new HTTPException(401, { message: "This conversation's grant is not valid; start again." });
        return { bot: 'sage' };
      },
      endpoint,
      live: true,
      // The bot speaks with the endpoint, and every sentence is admitted (the gate's own tests refuse).
      voiceBy: () => 'endpoint',
      meter: () => Promise.resolve({ ok: true, settled: false, settle: () => Promise.resolve() }),
      ...more,
    }),
  );
  const server = await serveApp(app);
  running.push(server);
  return server;
}

function speak(server: Listening, body: unknown, init: RequestInit = {}) {
  return fetch(`${server.url}/api/speak`, {
    method: 'POST',
    headers: { authorization: `Bearer ${GRANT}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

describe('the speak proxy', () => {
  it('hands the first audio bytes on while the endpoint is still sending', async () => {
    const upstream = await voiceUpstream();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY });
    const response = await speak(server, { input: 'Hello there.', voice: 'alloy' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/pcm');

    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    // The endpoint's last chunk has not been released: these bytes came through as they were sent.
    expect(upstream.last.settled()).toBe(false);
    expect([...(first.value ?? [])]).toEqual([1, 2, 3, 4]);
    upstream.last.resolve();
    const rest: number[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(...next.value);
    expect(rest).toEqual([5, 6, 7, 8]);
  });

  it("sends the site's key and model with the request in OpenAI's shape, PCM by default, ignoring the client's model", async () => {
    const upstream = await voiceUpstream();
    upstream.last.resolve();
    const server = await proxy({ url: `${upstream.url}/v1/`, key: KEY, model: 'tts-site' });
    const response = await speak(server, { input: 'Say this.', voice: 'nova', speed: 1.25, model: 'client-choice', instructions: 'whisper' });
    await response.arrayBuffer();
    const [request] = upstream.requests;
    expect(request?.path).toBe('/v1/audio/speech');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.body).toEqual({ model: 'tts-site', input: 'Say this.', voice: 'nova', response_format: 'pcm', speed: 1.25 });
    expect(JSON.stringify([...response.headers])).not.toContain(KEY);
  });

  it('takes the endpoint as a base or as the speech path itself', async () => {
    expect(speechUrl('https://api.example.com/v1')).toBe('https://api.example.com/v1/audio/speech');
    expect(speechUrl('https://api.example.com/v1/')).toBe('https://api.example.com/v1/audio/speech');
    expect(speechUrl('https://api.example.com/v1/audio/speech')).toBe('https://api.example.com/v1/audio/speech');
    expect(speechUrl('https://api.example.com/v1/audio/speech/?tenant=a')).toBe('https://api.example.com/v1/audio/speech?tenant=a');
    const upstream = await voiceUpstream({ contentType: 'audio/mpeg' });
    upstream.last.resolve();
    const server = await proxy({ url: `${upstream.url}/v1/audio/speech`, key: KEY });
    const response = await speak(server, { input: 'Hi.', voice: 'alloy', response_format: 'mp3' });
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    await response.arrayBuffer();
    expect(upstream.requests[0]?.path).toBe('/v1/audio/speech');
  });

  it('cancels the endpoint’s request when the client goes away', async () => {
    const upstream = await voiceUpstream();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY });
    const controller = new AbortController();
    const response = await speak(server, { input: 'A long sentence.', voice: 'alloy' }, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    expect(await upstream.requests[0]?.closed).toBe(true);
    expect(upstream.last.settled()).toBe(false);
  });

  it('answers 404 {"error":"no-endpoint"} when the site names none', async () => {
    const server = await proxy(undefined);
    const response = await speak(server, { input: 'Hi.', voice: 'alloy' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'no-endpoint' });
  });

  it('answers 502 naming the endpoint’s status, never its words or the key', async () => {
    const upstream = await voiceUpstream({ status: 401 });
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY });
    const response = await speak(server, { input: 'Hi.', voice: 'alloy' });
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: 'upstream', status: 401 });
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('Incorrect');
  });

  it('answers 502 when the endpoint cannot be reached', async () => {
    const server = await proxy({ url: `${await unreachableUrl()}/v1`, key: KEY });
    const response = await speak(server, { input: 'Hi.', voice: 'alloy' });
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: 'upstream-unreachable' });
  });

  it('offers only the configured voices, defaulting to COPILOT_TTS_VOICE or else the first', async () => {
    const upstream = await voiceUpstream();
    upstream.last.resolve();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY, voices: ['alloy', 'nova'], voice: 'nova' });
    const refused = await speak(server, { input: 'Hi.', voice: 'echo' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'bad-request', field: 'voice' });
    await (await speak(server, { input: 'Hi.' })).arrayBuffer();
    expect(upstream.requests.map((request) => request.body.voice)).toEqual(['nova']);

    const first = await proxy({ url: `${upstream.url}/v1`, key: KEY, voices: ['alloy', 'nova'] });
    await (await speak(first, { input: 'Hi.' })).arrayBuffer();
    expect(upstream.requests.map((request) => request.body.voice)).toEqual(['nova', 'alloy']);
  });

  it("lets a bot's own voices replace the site's list", async () => {
    const upstream = await voiceUpstream();
    upstream.last.resolve();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY, voices: ['alloy'], voice: 'alloy' }, { voicesFor: () => ['sage-voice'] });
    expect((await speak(server, { input: 'Hi.', voice: 'alloy' })).status).toBe(400);
    await (await speak(server, { input: 'Hi.' })).arrayBuffer();
    expect(upstream.requests.map((request) => request.body.voice)).toEqual(['sage-voice']);
  });

  it.each([
    [{ voice: 'alloy' }, 400, 'input'],
    [{ input: '   ', voice: 'alloy' }, 400, 'input'],
    [{ input: 'x'.repeat(4097), voice: 'alloy' }, 413, 'input'],
    [{ input: 'Hi.', voice: 'alloy', speed: 5 }, 400, 'speed'],
    [{ input: 'Hi.', voice: 'alloy', speed: 'fast' }, 400, 'speed'],
    [{ input: 'Hi.', voice: 'alloy', response_format: 'ogg' }, 400, 'response_format'],
    [{ input: 'Hi.', voice: 3 }, 400, 'voice'],
    [{ input: 'Hi.' }, 400, 'voice'],
  ])('refuses %j with %i naming the field', async (body, status, field) => {
    const upstream = await voiceUpstream();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY });
    const response = await speak(server, body);
    expect(response.status).toBe(status);
    expect(await response.json()).toMatchObject({ field });
    expect(upstream.requests).toHaveLength(0);
  });

  it('takes an input of exactly 4096 characters', async () => {
    const upstream = await voiceUpstream();
    upstream.last.resolve();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY });
    const response = await speak(server, { input: 'x'.repeat(4096), voice: 'alloy' });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  });

  it('refuses a body that is not JSON, or past 64 KiB', async () => {
    const upstream = await voiceUpstream();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY });
    expect((await speak(server, '{"input":')).status).toBe(400);
    expect((await speak(server, { input: 'Hi.', voice: 'alloy', padding: 'x'.repeat(70 * 1024) })).status).toBe(413);
  });

  it('answers 401 without a grant, and asks the endpoint nothing', async () => {
    const upstream = await voiceUpstream();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY });
    const response = await speak(server, { input: 'Hi.', voice: 'alloy' }, { headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'unauthorized' });
    expect(upstream.requests).toHaveLength(0);
  });

  it('never asks the paid voice while the site is not live, and says why', async () => {
    const upstream = await voiceUpstream();
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY }, { live: false });
    const response = await speak(server, { input: 'Hello there.', voice: 'alloy' });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: 'not-live', message: expect.stringContaining('AGENTS_LIVE=1') as string });
    expect(upstream.requests).toHaveLength(0);
  });

  it('holds a sentence’s price before asking, and settles it once with what the characters cost', async () => {
    const upstream = await voiceUpstream();
    const held: number[] = [];
    const settled: AnswerSpend[] = [];
    const server = await proxy(
      { url: `${upstream.url}/v1`, key: KEY, model: 'tts-1' },
      {
        usdPerMillionChars: 20,
        meter: ({ spendHoldUsd }) => {
          held.push(spendHoldUsd);
          let once = false;
          return Promise.resolve({
            ok: true,
            get settled() {
              return once;
            },
            settle: (spend: AnswerSpend) => {
              once = true;
              settled.push(spend);
              return Promise.resolve();
            },
          });
        },
      },
    );
    upstream.last.resolve();
    const input = 'Hello there.'; // 12 characters
    const response = await speak(server, { input, voice: 'alloy' });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(held).toEqual([(12 * 20) / 1_000_000]);
    expect(settled).toEqual([expect.objectContaining({ provider: 'voice', model: 'tts-1', costUsd: (12 * 20) / 1_000_000 })]);
    // An endpoint that answers an error bills nothing: the hold is let go.
    const failing = await voiceUpstream({ status: 500 });
    const refusedServer = await proxy(
      { url: `${failing.url}/v1`, key: KEY },
      {
        meter: () =>
          Promise.resolve({
            ok: true,
            settled: false,
            settle: (spend: AnswerSpend) => {
              settled.push(spend);
              return Promise.resolve();
            },
          }),
      },
    );
    expect((await speak(refusedServer, { input, voice: 'alloy' })).status).toBe(502);
    expect(settled.slice(1)).toEqual([expect.objectContaining({ provider: null, costUsd: 0 })]);
  });

  it('says a ceiling’s refusal with whose it is, and asks nothing', async () => {
    const upstream = await voiceUpstream();
    const sentence = 'That is all this site may spend in a day for everybody together ($5.00); it frees up in 3 hours.';
    const server = await proxy({ url: `${upstream.url}/v1`, key: KEY }, { meter: () => Promise.resolve({ ok: false, sentence, by: 'site' }) });
    const response = await speak(server, { input: 'Hello there.', voice: 'alloy' });
    expect(response.status).toBe(429);
    expect(response.headers.get('x-confab-refused')).toBe('site');
    expect(await response.json()).toEqual({ error: 'refused', message: sentence, by: 'site' });
    expect(upstream.requests).toHaveLength(0);
  });
});
