/**
 * The endpoint voice: each piece is posted to the server's speak proxy (`POST /api/speak`, OpenAI's
 * speech shape, `response_format: pcm`) with the conversation's grant, and its body is read as it
 * streams — every chunk is converted to float and written to the player the moment it lands, never
 * waiting for the whole piece, because that wait is a silence before every answer.
 *
 * Pieces are heard in order and read one at a time. The piece after the one being read is asked for
 * once that one has produced its first samples: its first bytes are then waiting by the time this
 * one ends, an interruption throws away at most one piece's request, and an endpoint that does not
 * answer with audio is asked once, not once per queued piece. A piece's writer is opened on its
 * first sample, so a piece that fails before any sound leaves nothing in the player.
 *
 * Cancelling an utterance cancels the body's reader and aborts the request, so the rest stops being
 * sent (and paid for) rather than merely not played; whatever still arrives for it is thrown away.
 *
 * The first failure — no answer, an error status (the server's 404 `no-endpoint`, 403 `not-live` while
 * the site does not buy its paid voice, and 429 `refused` by a spend ceiling included), a body
 * that is not PCM, no audio, a stream that breaks or ends on half a sample — is reported once, for
 * the first piece not heard, and the speaker is dead from then on: everything queued is abandoned and
 * nothing is ever requested again. Re-voicing on the device is not done here: the conversation
 * machine re-speaks the unheard pieces with `voice: 'device'` on `speaker.failed` (see
 * `routeByVoice`, which keeps the page on the device voice afterwards).
 */
import type { AudioPlayer, PieceKey, PieceWriter } from '../audio/player';
import { decodePcm16, ENDPOINT_PCM_RATE_HZ } from './pcm16';
import { EndpointVoiceError, failureListeners } from './speaker';
import type { SpeakRequest, Speaker } from './speaker';

/** The voice the endpoint is asked for, read for each piece so a change in settings applies. */
export interface EndpointVoice {
  /** The endpoint's voice name (the bot's or the reader's pick of the site's list); undefined: the site's default. */
  name: string | undefined;
  /** Speaking rate, 0.25–4 (OpenAI's range); undefined: the endpoint's own pace. */
  speed: number | undefined;
}

export interface EndpointSpeakerOptions {
  /** Where pieces are posted. Default `/api/speak` (the page's own server). */
  url: string;
}

export const ENDPOINT_SPEAKER_DEFAULTS: Readonly<EndpointSpeakerOptions> = Object.freeze({ url: '/api/speak' });

export interface EndpointSpeakerDeps extends Partial<EndpointSpeakerOptions> {
  player: Pick<AudioPlayer, 'open'>;
  /** The conversation's grant (`POST /api/start`), sent as `Authorization: Bearer`. */
  grant: () => string | Promise<string>;
  voice: () => EndpointVoice;
  /** How the proxy is reached. Default: the page's `fetch`. */
  fetch?: typeof fetch;
}

/** The endpoint voice; `dead` once it has failed, after which it asks nothing of the endpoint. */
export interface EndpointSpeaker extends Speaker {
  readonly dead: boolean;
}

/** Content types that are raw PCM, or say nothing about the body (absent, generic bytes). */
const PCM_TYPES = new Set(['', 'application/octet-stream', 'audio/pcm', 'audio/l16', 'audio/raw', 'audio/x-raw']);

/** Whether a response's `content-type` can be raw 16-bit PCM. */
export function isPcmContentType(contentType: string | null): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return PCM_TYPES.has(type);
}

const FALLBACK = 'so this device’s own voice speaks instead for the rest of this visit';

/** The endpoint's failures, each with the sentence the person is shown. */
const failure = {
  noEndpoint: () => new EndpointVoiceError('no-endpoint', `This site names no voice endpoint, ${FALLBACK}.`, 404),
  notLive: () => new EndpointVoiceError('not-live', `This site does not buy its paid voice until it is set live, ${FALLBACK}.`, 403),
  /** A ceiling refused the sentence; the server's sentence says which and when it frees up. */
  overCeiling: (sentence: string, status: number) => new EndpointVoiceError('refused', `${sentence} The paid voice is held to it too, ${FALLBACK}.`, status),
  refused: (status: number) => new EndpointVoiceError('refused', `The voice service answered ${status}, ${FALLBACK}.`, status),
  unreachable: (cause: unknown) => new EndpointVoiceError('unreachable', `The voice service could not be reached, ${FALLBACK}.`, undefined, { cause }),
  noGrant: (cause: unknown) => new EndpointVoiceError('no-grant', `This conversation’s grant could not be had, ${FALLBACK}.`, undefined, { cause }),
  notPcm: (type: string) => new EndpointVoiceError('not-pcm', `The voice service sent ${type} where raw audio was expected, ${FALLBACK}.`),
  empty: () => new EndpointVoiceError('empty', `The voice service sent no audio, ${FALLBACK}.`),
  brokeOff: (cause: unknown) => new EndpointVoiceError('broken', `The voice service’s audio broke off, ${FALLBACK}.`, undefined, { cause }),
  halfSample: () => new EndpointVoiceError('broken', `The voice service’s audio ended on half a sample, ${FALLBACK}.`),
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

/** One piece on its way through the endpoint. */
interface Job {
  readonly request: SpeakRequest;
  readonly abort: AbortController;
  /** The proxy's answer; undefined until the piece is asked for. */
  response: Promise<Response> | undefined;
  /** Its first samples reached the player, so the piece after it may be asked for. */
  sounded: boolean;
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Opened on the first sample. */
  writer: PieceWriter | undefined;
  abandoned: boolean;
  /** Settles when the piece is abandoned, so the queue moves on without waiting for its reading to notice. */
  readonly gone: Promise<Outcome>;
  readonly leave: () => void;
}

/** How reading one piece ended. */
type Outcome =
  | { kind: 'played' }
  | { kind: 'abandoned' }
  /** `heard`: some of the piece had reached the player. */
  | { kind: 'failed'; error: EndpointVoiceError; heard: boolean };

const abandoned: Outcome = { kind: 'abandoned' };

/** Read through a call, since a piece may be abandoned while its reading awaits. */
const isAbandoned = (job: Job): boolean => job.abandoned;

function newJob(request: SpeakRequest): Job {
  let leave!: () => void;
  const gone = new Promise<Outcome>((resolve) => {
    leave = () => {
      resolve(abandoned);
    };
  });
  return { request, abort: new AbortController(), response: undefined, sounded: false, reader: undefined, writer: undefined, abandoned: false, gone, leave };
}

export function createEndpointSpeaker(deps: EndpointSpeakerDeps): EndpointSpeaker {
  const url = deps.url ?? ENDPOINT_SPEAKER_DEFAULTS.url;
  const send: typeof fetch = deps.fetch ?? ((input, init) => fetch(input, init));
  const failures = failureListeners();
  /** Pieces not yet finished, in the order they are heard; the first is the one being read. */
  let queue: Job[] = [];
  let dead = false;
  let reading = false;
  let disposed = false;

  async function post(job: Job): Promise<Response> {
    let grant: string;
    try {
      grant = await deps.grant();
    } catch (cause) {
      throw failure.noGrant(cause);
    }
    const voice = deps.voice();
    const body = {
      input: job.request.text,
      response_format: 'pcm',
      ...(voice.name === undefined ? {} : { voice: voice.name }),
      ...(voice.speed === undefined ? {} : { speed: voice.speed }),
    };
    try {
      return await send(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${grant}` },
        body: JSON.stringify(body),
        signal: job.abort.signal,
      });
    } catch (cause) {
      throw failure.unreachable(cause);
    }
  }

  /** The piece's answer, asking for it if it has not been asked for yet. */
  function ask(job: Job): Promise<Response> {
    if (job.response === undefined) {
      job.response = post(job);
      // A rejection is read when the piece's turn comes; one abandoned before then is never read.
      job.response.catch(() => undefined);
    }
    return job.response;
  }

  /** Asks for the piece being read, and for the one after it once this one has sounded. */
  function askAhead(): void {
    const [head, next] = queue;
    if (head === undefined) return;
    void ask(head);
    if (head.sounded && next !== undefined) void ask(next);
  }

  function abandon(job: Job): void {
    job.abandoned = true;
    job.leave();
    // Cancelling the reader first reaches the stream's source; the abort then tears the request down.
    if (job.reader !== undefined) job.reader.cancel().catch(() => undefined);
    job.abort.abort();
    job.writer?.end();
  }

  function failed(job: Job, error: EndpointVoiceError): Outcome {
    job.writer?.end();
    return { kind: 'failed', error, heard: job.writer !== undefined };
  }

  /** Reads one piece into the player as it arrives. */
  async function play(job: Job): Promise<Outcome> {
    const { utteranceId, piece } = job.request;
    const key: PieceKey = { utteranceId, piece };
    let response: Response;
    try {
      response = await ask(job);
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
    const reader = response.body.getReader();
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
      job.writer ??= deps.player.open(key, ENDPOINT_PCM_RATE_HZ);
      job.writer.write(decoded.samples);
      if (!job.sounded) {
        job.sounded = true;
        askAhead();
      }
    }
    if (bytes === 0) return failed(job, failure.empty());
    if (carry !== undefined) return failed(job, failure.halfSample());
    job.writer?.end();
    return { kind: 'played' };
  }

  /** The endpoint is dead: abandon everything queued and report once per utterance what was not heard. */
  function die(job: Job, error: EndpointVoiceError, heard: boolean): void {
    dead = true;
    const unheard = new Map<number, number>([[job.request.utteranceId, job.request.piece + (heard ? 1 : 0)]]);
    for (const other of queue) {
      if (other === job) continue;
      abandon(other);
      if (!unheard.has(other.request.utteranceId)) unheard.set(other.request.utteranceId, other.request.piece);
    }
    queue = [];
    for (const [utteranceId, piece] of unheard) {
      failures.report({ utteranceId, piece, voice: 'endpoint', reason: error.message, error });
    }
  }

  async function drain(): Promise<void> {
    if (reading) return;
    reading = true;
    try {
      for (let job = queue[0]; job !== undefined; job = queue[0]) {
        const outcome = await Promise.race([play(job), job.gone]);
        if (outcome.kind === 'failed' && !job.abandoned) {
          die(job, outcome.error, outcome.heard);
          return;
        }
        queue = queue.filter((queued) => queued !== job);
      }
    } finally {
      reading = false;
    }
  }

  return {
    get dead() {
      return dead;
    },
    speak(request) {
      // A dead endpoint is never asked again; `routeByVoice` sends such pieces to the device.
      if (dead || disposed) return;
      queue.push(newJob(request));
      askAhead();
      void drain();
    },
    cancel(utteranceId) {
      const gone = queue.filter((job) => job.request.utteranceId === utteranceId);
      if (gone.length === 0) return;
      for (const job of gone) abandon(job);
      queue = queue.filter((job) => !job.abandoned);
      askAhead();
    },
    onFailed: failures.add,
    dispose() {
      disposed = true;
      for (const job of queue) abandon(job);
      queue = [];
      failures.clear();
    },
  };
}
