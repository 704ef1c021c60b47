/**
 * The speak proxy: `POST /api/speak` in OpenAI's `/v1/audio/speech` shape, for a caller holding a
 * grant, passed to the voice endpoint the site names with the site's key — which never reaches the
 * browser. Mount it with `app.route('/', speakProxy(deps))`.
 *
 * It streams, and that is the point: the upstream's body is handed straight back as it arrives
 * and never collected, because a proxy that awaits the whole response is correct audio with a
 * silence before every turn. A client that goes away cancels the upstream read, so an abandoned
 * utterance stops being made (and paid for) rather than merely not played. The default format is
 * PCM, which the page queues into its audio graph as it lands.
 *
 * With no endpoint configured it answers 404 `{"error":"no-endpoint"}` and the page speaks for
 * itself: that is the designed path, not a rescue.
 *
 * The paid voice spends the site's money, so it is bought only as thinking is: with `live`
 * (`AGENTS_LIVE=1`). Until then it answers 403 `{"error":"not-live"}` without asking the endpoint,
 * and the page speaks with its own voice and says why. Each sentence is metered: its characters,
 * priced per million (`COPILOT_TTS_PRICE`), are reserved against the person's and the site's spend
 * windows before the endpoint is asked and settled once it has answered — its whole input, since
 * that is what the endpoint bills — or let go when it did not answer with audio. A refusal is 429
 * `{"error":"refused","by","message"}` with `x-confab-refused`. The paid voice is sold only for a bot
 * whose voice is the endpoint (`voice: { by: endpoint }`); any other grant is 403 `not-endpoint-voice`.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { bodyCap } from './bodyCap';
import { HTTPException } from 'hono/http-exception';
import type { Admission, Refused } from './chat/admission';
import { REFUSED_HEADER } from './chat/doorTypes';
import type { RefusedBy } from './chat/doorTypes';
import { isRecord } from '../common/isRecord';
import { requestWordsOf } from './words/requestWords';
import { say } from './words/words';
import type { Words } from './words/words';

/** The voice endpoint a site names (`COPILOT_TTS_*`). */
export interface SpeakEndpoint {
  /**
   * `COPILOT_TTS_URL`: the base an OpenAI SDK would take (`https://api.openai.com/v1`), to which
   * `/audio/speech` is added, or the speech path itself (any URL whose path already ends in
   * `/audio/speech`), used as it is. Trailing slashes are ignored.
   */
  url: string;
  /** `COPILOT_TTS_KEY`, sent as `Authorization: Bearer`; unset, no Authorization is sent. Never returned, never logged. */
  key?: string;
  /** `COPILOT_TTS_MODEL`, sent as `model`; unset, none is sent and the endpoint picks. A client's `model` is ignored. */
  model?: string;
  /** `COPILOT_TTS_VOICE`: the voice when a request names none. Default: the first voice offered. */
  voice?: string;
  /** `COPILOT_TTS_VOICES`: the voices offered. Empty or unset: any voice the endpoint takes. */
  voices?: readonly string[];
}

interface SpeakOptions {
  /** Largest request body, in bytes; past it, 413. Default 64 KiB. */
  bodyBytesMax: number;
  /** Longest `input`, in characters (UTF-16 code units, as OpenAI counts); past it, 413. Default 4096. */
  inputCharsMax: number;
}

const SPEAK_DEFAULTS: Readonly<SpeakOptions> = Object.freeze({
  bodyBytesMax: 64 * 1024,
  inputCharsMax: 4096,
});

export interface SpeakDeps<G> extends Partial<SpeakOptions> {
  /** The verified grant of `Authorization: Bearer <grant>`; throws `HTTPException(401)` when refused. */
  authorize: (c: Context) => G | Promise<G>;
  /** The endpoint, or undefined when the site names none. */
  endpoint: SpeakEndpoint | undefined;
  /**
   * The voices the grant's bot offers (its `voice.voices`), which replace the endpoint's list when
   * not empty. Default: the endpoint's list.
   */
  voicesFor?: (grant: G) => readonly string[] | undefined;
  /** `AGENTS_LIVE=1`: the endpoint may be bought from. Unset, it is never asked (403 `not-live`). */
  live: boolean;
  /**
   * Admits a sentence (`paidSentence`) through the one gate (`server/gate.ts`): its price held
   * against the grant's person's and the site's spend windows. Required: no sentence is bought unadmitted.
   */
  meter: (ask: { grant: G; spendHoldUsd: number; nowMs: number }) => Promise<Admission | Refused>;
  /**
   * How the grant's bot speaks (its `voice.by`): the paid voice is sold only to a bot whose voice is
   * the endpoint; any other is refused 403 `not-endpoint-voice`, as the page speaks for it.
   */
  voiceBy: (grant: G) => string | undefined;
  /** USD per million characters said (`COPILOT_TTS_PRICE`). Default `SPEECH_USD_PER_MILLION_CHARS`. */
  usdPerMillionChars?: number;
  /** Now, in ms since the epoch. Default `Date.now`. */
  clock?: () => number;
  /** How the endpoint is reached. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/** The price of the paid voice when the site names none: OpenAI's tts-1 list price, USD per million characters. */
const SPEECH_USD_PER_MILLION_CHARS = 15;

/** The provider a sentence of the paid voice is recorded under in the ledger. */
const SPEECH_PROVIDER = 'voice';

/** Audio formats OpenAI's speech endpoint takes. */
const SPEECH_FORMATS = ['pcm', 'mp3', 'opus', 'aac', 'flac', 'wav'] as const;
type SpeechFormat = (typeof SPEECH_FORMATS)[number];

/** The content type to send when an endpoint names none. */
const FORMAT_TYPES: Readonly<Record<SpeechFormat, string>> = {
  pcm: 'audio/pcm',
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
};

/** One utterance to say, validated. */
interface SpeechRequest {
  input: string;
  voice: string;
  responseFormat: SpeechFormat;
  /** 0.25–4; unset: the endpoint's own pace. */
  speed?: number;
}

/** The proxy's answers other than audio: `{ error: <code>, message, field? }`. */
type SpeakErrorCode = 'no-endpoint' | 'not-live' | 'not-endpoint-voice' | 'refused' | 'bad-request' | 'too-large' | 'unauthorized' | 'upstream' | 'upstream-unreachable' | 'server';

/** A request the proxy does not pass on, or an endpoint that did not answer. Messages hold no key. */
class SpeakError extends Error {
  override readonly name = 'SpeakError';
  constructor(
    readonly status: 400 | 403 | 404 | 413 | 429 | 502,
    readonly code: SpeakErrorCode,
    message: string,
    /** The request field at fault. */
    readonly field?: string,
    /** The endpoint's status, for `upstream`. */
    readonly upstreamStatus?: number,
    options?: ErrorOptions,
    /** Whose windows refused, for `refused`. */
    readonly refusedBy?: RefusedBy,
  ) {
    super(message, options);
  }
}

/** The URL speech is posted to: `url` when its path ends in `/audio/speech`, else `url` + `/audio/speech`. */
export function speechUrl(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname.replace(/\/+$/, '');
  parsed.pathname = path.endsWith('/audio/speech') ? path : `${path}/audio/speech`;
  return parsed.toString();
}

/**
 * The utterance `body` asks for, with `offered` voices (empty: any) and `fallbackVoice` for a
 * request that names none; a refusal is said in `words`. `model` and anything else a client sends
 * are ignored.
 */
function parseSpeechRequest(body: unknown, offered: readonly string[], fallbackVoice: string | undefined, inputCharsMax: number, words: Words): SpeechRequest {
  if (!isRecord(body)) throw new SpeakError(400, 'bad-request', say(words, 'requests.not-object'));
  const { input, voice, response_format: format, speed } = body;
  if (typeof input !== 'string' || input.trim() === '') {
    throw new SpeakError(400, 'bad-request', say(words, 'requests.speech-input'), 'input');
  }
  if (input.length > inputCharsMax) {
    throw new SpeakError(413, 'too-large', say(words, 'requests.speech-too-long', { chars: String(input.length), most: String(inputCharsMax) }), 'input');
  }
  if (voice !== undefined && voice !== null && typeof voice !== 'string') {
    throw new SpeakError(400, 'bad-request', say(words, 'requests.not-text', { field: 'voice' }), 'voice');
  }
  const chosen = typeof voice === 'string' && voice !== '' ? voice : fallbackVoice;
  if (chosen === undefined) throw new SpeakError(400, 'bad-request', say(words, 'requests.speech-no-voice'), 'voice');
  if (offered.length > 0 && !offered.includes(chosen)) {
    throw new SpeakError(400, 'bad-request', say(words, 'requests.speech-voice-offered', { voice: chosen, voices: offered.join(', ') }), 'voice');
  }
  if (format !== undefined && format !== null && !SPEECH_FORMATS.includes(format as SpeechFormat)) {
    throw new SpeakError(400, 'bad-request', say(words, 'requests.speech-format', { formats: SPEECH_FORMATS.join(', ') }), 'response_format');
  }
  if (speed !== undefined && speed !== null && (typeof speed !== 'number' || !Number.isFinite(speed) || speed < 0.25 || speed > 4)) {
    throw new SpeakError(400, 'bad-request', say(words, 'requests.speech-speed'), 'speed');
  }
  return {
    input,
    voice: chosen,
    responseFormat: (format ?? 'pcm') as SpeechFormat,
    ...(typeof speed === 'number' ? { speed } : {}),
  };
}

export function speakProxy<G>(deps: SpeakDeps<G>): Hono {
  const bodyBytesMax = deps.bodyBytesMax ?? SPEAK_DEFAULTS.bodyBytesMax;
  const inputCharsMax = deps.inputCharsMax ?? SPEAK_DEFAULTS.inputCharsMax;
  const fetchUpstream = deps.fetch ?? fetch;
  const usdPerMillionChars = deps.usdPerMillionChars ?? SPEECH_USD_PER_MILLION_CHARS;
  const clock = deps.clock ?? Date.now;
  const { endpoint } = deps;
  // A bad COPILOT_TTS_URL is found at start, not on the first utterance.
  const url = endpoint === undefined ? undefined : speechUrl(endpoint.url);

  const app = new Hono();

  app.post(
    '/api/speak',
    // Kept by the app's one body door (server/bodyCap.ts), refused in the proxy's own shape.
    bodyCap(bodyBytesMax, (c, { status, sentence }) => c.json({ error: status === 413 ? 'too-large' : 'bad-request', message: sentence }, status)),
    async (c) => {
      const grant = await deps.authorize(c);
      const words = requestWordsOf(c);
      if (endpoint === undefined || url === undefined) throw new SpeakError(404, 'no-endpoint', '');
      if (deps.voiceBy(grant) !== 'endpoint') throw new SpeakError(403, 'not-endpoint-voice', say(words, 'requests.device-voice'));
      if (!deps.live) throw new SpeakError(403, 'not-live', say(words, 'requests.voice-not-live'));
      let body: unknown;
      try {
        body = await c.req.json();
      } catch (error) {
        throw new SpeakError(400, 'bad-request', say(words, 'requests.not-json'), undefined, undefined, { cause: error });
      }
      const botVoices = deps.voicesFor?.(grant) ?? [];
      const offered = botVoices.length > 0 ? botVoices : (endpoint.voices ?? []);
      const fallbackVoice = endpoint.voice !== undefined && (offered.length === 0 || offered.includes(endpoint.voice)) ? endpoint.voice : offered[0];
      const speech = parseSpeechRequest(body, offered, fallbackVoice, inputCharsMax, words);

      const costUsd = (speech.input.length * usdPerMillionChars) / 1_000_000;
      const startedMs = clock();
      const admitted = await deps.meter({ grant, spendHoldUsd: costUsd, nowMs: startedMs });
      if (!admitted.ok) {
        throw new SpeakError(429, 'refused', admitted.sentence, undefined, undefined, undefined, admitted.by);
      }
      // Settled exactly once, however the request ends: with the sentence's price once the endpoint
      // answered with audio (it bills the whole input), else with nothing bought.
      const asked = { bought: false };
      try {
        return await ask(url, endpoint);
      } finally {
        await admitted
          .settle({
            provider: asked.bought ? SPEECH_PROVIDER : null,
            model: asked.bought ? (endpoint.model ?? 'speech') : null,
            promptTokens: 0,
            completionTokens: 0,
            ended: asked.bought ? 'stop' : 'failed',
            estimated: false,
            costUsd: asked.bought ? costUsd : 0,
            priced: true,
            nowMs: clock(),
          })
          .catch((error: unknown) => {
            console.error(JSON.stringify({ event: 'speak.settle-failed', error: error instanceof Error ? error.name : typeof error }));
          });
      }

      /** The endpoint's answer, streamed through; `asked.bought` once it may bill. */
      async function ask(target: string, site: SpeakEndpoint): Promise<Response> {
        const signal = c.req.raw.signal;
        let upstream: Response;
        try {
          upstream = await fetchUpstream(target, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(site.key === undefined || site.key === '' ? {} : { authorization: `Bearer ${site.key}` }),
            },
            body: JSON.stringify({
              ...(site.model === undefined ? {} : { model: site.model }),
              input: speech.input,
              voice: speech.voice,
              response_format: speech.responseFormat,
              ...(speech.speed === undefined ? {} : { speed: speech.speed }),
            }),
            // The client leaving aborts the upstream request, and with it the read of its body.
            signal,
          });
        } catch (error) {
          if (signal.aborted) {
            // The client left with the request already sent: what the endpoint may bill is counted.
            asked.bought = true;
            return new Response(null, { status: 499 });
          }
          throw new SpeakError(502, 'upstream-unreachable', say(words, 'requests.voice-unreachable'), undefined, undefined, { cause: error });
        }
        if (!upstream.ok || upstream.body === null) {
          await upstream.body?.cancel().catch(() => undefined);
          throw new SpeakError(502, 'upstream', say(words, 'requests.voice-failed', { status: String(upstream.status) }), undefined, upstream.status);
        }
        asked.bought = true;
        return new Response(upstream.body, {
          status: 200,
          headers: {
            'content-type': upstream.headers.get('content-type') ?? FORMAT_TYPES[speech.responseFormat],
            'cache-control': 'no-store',
          },
        });
      }
    },
  );

  app.onError((error, c) => {
    if (error instanceof SpeakError) {
      if (error.code === 'no-endpoint') return c.json({ error: error.code }, 404);
      if (error.refusedBy !== undefined) c.header(REFUSED_HEADER, error.refusedBy);
      return c.json(
        {
          error: error.code,
          message: error.message,
          ...(error.field === undefined ? {} : { field: error.field }),
          ...(error.upstreamStatus === undefined ? {} : { status: error.upstreamStatus }),
          ...(error.refusedBy === undefined ? {} : { by: error.refusedBy }),
        },
        error.status,
      );
    }
    if (error instanceof HTTPException && error.status === 401) {
      return c.json({ error: 'unauthorized', message: error.message || say(requestWordsOf(c), 'requests.grant-refused') }, 401);
    }
    if (error instanceof HTTPException) return c.json({ error: 'bad-request', message: error.message }, error.status);
    console.error(JSON.stringify({ event: 'speak.failed', error: error.name }));
    return c.json({ error: 'server', message: say(requestWordsOf(c), 'requests.server-failed') }, 500);
  });

  return app;
}
