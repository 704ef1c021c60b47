/**
 * The endpoint voice: each piece is posted to the server's speak proxy (`POST /api/speak`, OpenAI's
 * speech shape, `response_format: pcm`) and its body written to the player as it streams
 * (endpointPiece.ts). This file keeps the pieces in order, asks one ahead, cancels, and dies on the
 * first failure.
 */
import type { AudioPlayer } from '../audio/player';
import { newJob, postPiece, readPiece } from './endpointPiece';
import type { EndpointVoice, Job } from './endpointPiece';
import { failureListeners } from './speaker';
import type { EndpointVoiceError, Speaker } from './speaker';

interface EndpointSpeakerOptions {
  /** Where pieces are posted. Default `/api/speak` (the page's own server). */
  url: string;
}

const ENDPOINT_SPEAKER_DEFAULTS: Readonly<EndpointSpeakerOptions> = Object.freeze({ url: '/api/speak' });

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

export function createEndpointSpeaker(deps: EndpointSpeakerDeps): EndpointSpeaker {
  const endpoint = {
    url: deps.url ?? ENDPOINT_SPEAKER_DEFAULTS.url,
    send: deps.fetch ?? ((input, init) => fetch(input, init)),
    grant: deps.grant,
    voice: deps.voice,
  } satisfies Parameters<typeof postPiece>[0];
  const failures = failureListeners();
  /** Pieces not yet finished, in the order they are heard; the first is the one being read. */
  let queue: Job[] = [];
  let dead = false;
  let reading = false;
  let disposed = false;

  /** The piece's answer, asking for it if it has not been asked for yet. */
  function ask(job: Job): Promise<Response> {
    if (job.response === undefined) {
      job.response = postPiece(endpoint, job);
      // A rejection is read when the piece's turn comes; one abandoned before then is never read.
      job.response.catch(() => undefined);
    }
    return job.response;
  }

  /**
   * Asks for the piece being read, and for the one after it once this one has sounded: its first
   * bytes are then waiting by the time this one ends, an interruption throws away at most one
   * piece's request, and an endpoint that does not answer with audio is asked once, not once per
   * queued piece.
   */
  function askAhead(): void {
    const [head, next] = queue;
    if (head === undefined) return;
    void ask(head);
    if (head.sounded && next !== undefined) void ask(next);
  }

  /**
   * The first failure — no answer, an error status (the server's 404 `no-endpoint`, 403 `not-live`
   * while the site does not buy its paid voice, 429 `refused` by a spend ceiling), a body that is
   * not PCM, no audio, a stream that breaks or ends on half a sample — kills the speaker: everything
   * queued is abandoned, nothing is requested again, and each utterance's first unheard piece is
   * reported once. Re-voicing on the device is the conversation machine's, on `speaker.failed`
   * (see `routeByVoice`, which keeps the page on the device voice afterwards).
   */
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

  /** Reads the pieces one at a time, in order, until none is left or the endpoint dies. */
  async function drain(): Promise<void> {
    if (reading) return;
    reading = true;
    try {
      for (let job = queue[0]; job !== undefined; job = queue[0]) {
        const outcome = await Promise.race([readPiece(job, ask(job), deps.player, askAhead), job.gone]);
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

/**
 * Cancels the piece's reading and its request, so the rest stops being sent (and paid for) rather
 * than merely not played; whatever still arrives for it is thrown away.
 */
function abandon(job: Job): void {
  job.abandoned = true;
  job.leave();
  // Cancelling the reader first reaches the stream's source; the abort then tears the request down.
  if (job.reader !== undefined) job.reader.cancel().catch(() => undefined);
  job.abort.abort();
  job.writer?.end();
}
