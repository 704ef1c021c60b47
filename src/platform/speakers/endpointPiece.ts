/**
 * One piece through the endpoint voice (see endpointSpeaker.ts): posted to the speak proxy with the
 * conversation's grant, its answer checked, and its body read into the player as it streams. Every
 * way it can fail is an `EndpointVoiceError` with the sentence the person is shown.
 */
import type { AudioPlayer, PieceKey, PieceWriter } from '../audio/player';
import { decodePcm16, ENDPOINT_PCM_RATE_HZ } from './pcm16';
import { EndpointVoiceError } from './speaker';
import type { SpeakRequest } from './speaker';
import { sayWord } from '../words';

/** The voice the endpoint is asked for, read for each piece so a change in settings applies. */
export interface EndpointVoice {
  /** The endpoint's voice name (the bot's or the reader's pick of the site's list); undefined: the site's default. */
  name: string | undefined;
  /** Speaking rate, 0.25–4 (OpenAI's range); undefined: the endpoint's own pace. */
  speed: number | undefined;
}

/** Where and how a piece is asked for. */
export interface SpeakEndpoint {
  url: string;
  send: typeof fetch;
  /** The conversation's grant, sent as `Authorization: Bearer`. */
  grant: () => string | Promise<string>;
  voice: () => EndpointVoice;
}

/** One piece on its way through the endpoint. */
export interface Job {
  readonly request: SpeakRequest;
  readonly abort: AbortController;
  /** The proxy's answer; undefined until the piece is asked for. */
  response: Promise<Response> | undefined;
  /** Its first samples reached the player, so the piece after it may be asked for. */
  sounded: boolean;
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Opened on the first sample, so a piece that fails before any sound leaves nothing in the player. */
  writer: PieceWriter | undefined;
  abandoned: boolean;
  /** Settles when the piece is abandoned, so the queue moves on without waiting for its reading to notice. */
  readonly gone: Promise<Outcome>;
  readonly leave: () => void;
}

/** How reading one piece ended. */
export type Outcome =
  | { kind: 'played' }
  | { kind: 'abandoned' }
  /** `heard`: some of the piece had reached the player. */
  | { kind: 'failed'; error: EndpointVoiceError; heard: boolean };

const abandoned: Outcome = { kind: 'abandoned' };

/** Read through a call, since a piece may be abandoned while its reading awaits. */
const isAbandoned = (job: Job): boolean => job.abandoned;

export function newJob(request: SpeakRequest): Job {
  let leave!: () => void;
  const gone = new Promise<Outcome>((resolve) => {
    leave = () => {
      resolve(abandoned);
    };
  });
  return { request, abort: new AbortController(), response: undefined, sounded: false, reader: undefined, writer: undefined, abandoned: false, gone, leave };
}

/** Content types that are raw PCM, or say nothing about the body (absent, generic bytes). */
const PCM_TYPES = new Set(['', 'application/octet-stream', 'audio/pcm', 'audio/l16', 'audio/raw', 'audio/x-raw']);

/** Whether a response's `content-type` can be raw 16-bit PCM. */
function isPcmContentType(contentType: string | null): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return PCM_TYPES.has(type);
}

/** The endpoint's failures, each with the sentence the person is shown (that this device's voice speaks instead). */
const failure = {
  noEndpoint: () => new EndpointVoiceError('no-endpoint', sayWord('page-voice.no-endpoint'), 404),
  notLive: () => new EndpointVoiceError('not-live', sayWord('page-voice.not-live'), 403),
  /** A ceiling refused the sentence; the server's sentence says which and when it frees up. */
  overCeiling: (said: string, status: number) => new EndpointVoiceError('refused', sayWord('page-voice.over-ceiling', { said }), status),
  refused: (status: number) => new EndpointVoiceError('refused', sayWord('page-voice.refused', { status }), status),
  unreachable: (cause: unknown) => new EndpointVoiceError('unreachable', sayWord('page-voice.unreachable'), undefined, { cause }),
  noGrant: (cause: unknown) => new EndpointVoiceError('no-grant', sayWord('page-voice.no-grant'), undefined, { cause }),
  notPcm: (type: string) => new EndpointVoiceError('not-pcm', sayWord('page-voice.not-pcm', { type })),
  empty: () => new EndpointVoiceError('empty', sayWord('page-voice.empty')),
  brokeOff: (cause: unknown) => new EndpointVoiceError('broken', sayWord('page-voice.broke-off'), undefined, { cause }),
  halfSample: () => new EndpointVoiceError('broken', sayWord('page-voice.half-sample')),
};

/** The failure for a response that answered with an error status. */
async function refusal(response: Response): Promise<EndpointVoiceError> {
  let code: unknown;
  let message: unknown;
  try {
    ({ error: code, message } = (await response.json()) as { error?: unknown; message?: unknown });
  } catch {
    // Not JSON: the status says enough.
  }
  if (response.status === 404 && code === 'no-endpoint') return failure.noEndpoint();
  if (response.status === 403 && code === 'not-live') return failure.notLive();
  if (response.status === 429 && code === 'refused' && typeof message === 'string' && message !== '') return failure.overCeiling(message, response.status);
  return failure.refused(response.status);
}

/** Posts the piece to the proxy in OpenAI's speech shape, asking for raw PCM. */
export async function postPiece(endpoint: SpeakEndpoint, job: Job): Promise<Response> {
  let grant: string;
  try {
    grant = await endpoint.grant();
  } catch (cause) {
    throw failure.noGrant(cause);
  }
  const voice = endpoint.voice();
  const body = {
    input: job.request.text,
    response_format: 'pcm',
    ...(voice.name === undefined ? {} : { voice: voice.name }),
    ...(voice.speed === undefined ? {} : { speed: voice.speed }),
  };
  try {
    return await endpoint.send(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${grant}` },
      body: JSON.stringify(body),
      signal: job.abort.signal,
    });
  } catch (cause) {
    throw failure.unreachable(cause);
  }
}

function failed(job: Job, error: EndpointVoiceError): Outcome {
  job.writer?.end();
  return { kind: 'failed', error, heard: job.writer !== undefined };
}

/** The answer's body once it is PCM, or how the piece ended without one. */
async function pcmBody(job: Job, answer: Promise<Response>): Promise<ReadableStream<Uint8Array> | Outcome> {
  let response: Response;
  try {
    response = await answer;
  } catch (cause) {
    if (isAbandoned(job)) return abandoned;
    return failed(job, cause instanceof EndpointVoiceError ? cause : failure.unreachable(cause));
  }
  if (isAbandoned(job)) {
    response.body?.cancel().catch(() => undefined);
    return abandoned;
  }
  if (!response.ok) return failed(job, await refusal(response));
  const type = response.headers.get('content-type');
  if (!isPcmContentType(type)) {
    response.body?.cancel().catch(() => undefined);
    return failed(job, failure.notPcm(type ?? 'something'));
  }
  if (response.body === null) return failed(job, failure.empty());
  return response.body;
}

/**
 * Reads one piece into the player as it arrives: every chunk is converted to float and written the
 * moment it lands, never waiting for the whole piece, because that wait is a silence before every
 * answer. `firstSound` is called once, when the piece's first samples reach the player.
 */
export async function readPiece(job: Job, answer: Promise<Response>, player: Pick<AudioPlayer, 'open'>, firstSound: () => void): Promise<Outcome> {
  const body = await pcmBody(job, answer);
  if ('kind' in body) return body;
  const key: PieceKey = { utteranceId: job.request.utteranceId, piece: job.request.piece };
  const reader = body.getReader();
  job.reader = reader;
  let carry: number | undefined;
  let bytes = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (cause) {
      if (isAbandoned(job)) return abandoned;
      return failed(job, failure.brokeOff(cause));
    }
    if (isAbandoned(job)) return abandoned;
    if (chunk.done) break;
    bytes += chunk.value.byteLength;
    const decoded = decodePcm16(chunk.value, carry);
    carry = decoded.carry;
    if (decoded.samples.length === 0) continue;
    job.writer ??= player.open(key, ENDPOINT_PCM_RATE_HZ);
    job.writer.write(decoded.samples);
    if (!job.sounded) {
      job.sounded = true;
      firstSound();
    }
  }
  if (bytes === 0) return failed(job, failure.empty());
  if (carry !== undefined) return failed(job, failure.halfSample());
  job.writer?.end();
  return { kind: 'played' };
}
