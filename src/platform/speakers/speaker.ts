/**
 * The one shape both voices take: the conversation machine's `speak` effect hands a speaker one
 * piece at a time, `cancelUtterance` abandons an utterance, and a piece that cannot be voiced comes
 * back as a failure the app turns into the machine's `speaker.failed`. Which voice speaks is the
 * request's `voice` (the bot file's `voice.by`, carried by the machine), never the reader's choice.
 *
 * A speaker never speaks on its own: nothing is synthesised or requested except for a `speak`
 * call, so "speech off" (the machine making no `speak` effects) means nothing is made or paid for.
 */
import type { SpeakRequest } from '../../core/speaking/pieceHandover';
import type { Voice } from '../../../common/conversation/events';

export type { SpeakRequest } from '../../core/speaking/pieceHandover';

/** Why the endpoint voice could not say a piece. */
export type EndpointFailureKind =
  /** The server names no voice endpoint (404 `no-endpoint`). */
  | 'no-endpoint'
  /** The site does not buy its paid voice yet (403 `not-live`: `AGENTS_LIVE` is not set). */
  | 'not-live'
  /** The request never got an answer (offline, DNS, connection refused). */
  | 'unreachable'
  /** The server or the endpoint answered with an error status. */
  | 'refused'
  /** The answer was not raw 16-bit PCM (JSON, text, a compressed format). */
  | 'not-pcm'
  /** The answer held no audio at all. */
  | 'empty'
  /** The audio stopped mid-stream or ended on half a sample. */
  | 'broken'
  /** The conversation's grant could not be had, so nothing could be asked. */
  | 'no-grant';

/** The endpoint voice failed; its message is a sentence for the person, its `cause` the detail. */
export class EndpointVoiceError extends Error {
  override readonly name = 'EndpointVoiceError';
  constructor(
    readonly kind: EndpointFailureKind,
    message: string,
    /** The HTTP status, for `refused` and `no-endpoint`. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The on-device voice could not make a piece; its message is a sentence for the person. */
export class DeviceVoiceError extends Error {
  override readonly name = 'DeviceVoiceError';
}

/** A piece that could not be voiced: what the app sends the machine as `speaker.failed`. */
export interface SpeakerFailure {
  utteranceId: number;
  /**
   * The first piece of the utterance that was not heard. For the endpoint voice that is the failed
   * piece itself when none of it reached the player, and the piece after it when part of it had
   * already sounded (that part stands; saying it again would repeat words).
   */
  piece: number;
  /** The voice that failed. */
  voice: Voice;
  /** A sentence for the person; never text of the answer. */
  reason: string;
  error: EndpointVoiceError | DeviceVoiceError;
}

/** Hears failures; returned by `onFailed` as the way to stop hearing them. */
type FailureListener = (failure: SpeakerFailure) => void;

/** One voice, or both behind one face. */
export interface Speaker {
  /**
   * Queues one piece. The pieces of an utterance arrive in order, piece 0 first, and are heard in
   * that order; the speaker answers through the player (`started`/`ended` for the piece's key) or
   * through `onFailed`.
   */
  speak(request: SpeakRequest): void;
  /**
   * Abandons an utterance: nothing more of it reaches the player, synthesis or reading in flight is
   * cancelled, and an answer that arrives for it later is thrown away. A piece already writing to
   * the player is ended there (the machine's `stopAudio` has normally dropped it already).
   */
  cancel(utteranceId: number): void;
  /** Listens for pieces that could not be voiced; returns the unsubscribe. */
  onFailed(listener: FailureListener): () => void;
  /** Abandons everything and stops listening; the speaker cannot be used afterwards. */
  dispose(): void;
}

/** The listeners of one speaker, and the one way failures reach them. */
export interface FailureListeners {
  readonly add: (listener: FailureListener) => () => void;
  readonly report: (failure: SpeakerFailure) => void;
  readonly clear: () => void;
}

/** A set of failure listeners, for a speaker's `onFailed`. */
export function failureListeners(): FailureListeners {
  const listeners = new Set<FailureListener>();
  return {
    add(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    report(failure) {
      for (const listener of [...listeners]) listener(failure);
    },
    clear() {
      listeners.clear();
    },
  };
}
