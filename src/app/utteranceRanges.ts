/**
 * Each conversation's utterance ids start again from its lines, but the worker and the speakers
 * live as long as the page and remember what was cancelled: so each conversation of a page has a
 * range of ids of its own. Its ids are shifted into that range on the way out (to the speaker) and
 * back on the way in (from the speaker and the player); an id from another conversation's range
 * does not come in at all.
 */
import type { SpeakRequest } from '../core/speaking/pieceHandover';
import type { Pace } from '../../common/speaking/pace';
import type { PlayerPort, SpeakerFailure, SpeakerPort } from './createConversation';

/** How many utterance ids each conversation of a page has to itself. */
const UTTERANCE_RANGE = 1_000_000;

/** One conversation's range of the page's utterance ids. */
export interface UtteranceRange {
  /** The page's id for the conversation's `utteranceId`. */
  outward(utteranceId: number): number;
  /** The conversation's id for the page's `utteranceId`, or null when it is another conversation's. */
  inward(utteranceId: number): number | null;
}

/** Hands out a fresh range to each conversation, in turn; `size` ids each. */
export function utteranceRanges(size: number = UTTERANCE_RANGE): () => UtteranceRange {
  let base = 0;
  return () => {
    const mine = (base += size);
    return {
      outward: (utteranceId) => mine + utteranceId,
      inward: (utteranceId) => (utteranceId > mine && utteranceId < mine + size ? utteranceId - mine : null),
    };
  };
}

/** The page's sound, for all its conversations: ids here are the page's. */
export interface PageSound {
  speak(request: SpeakRequest): void;
  cancel(utteranceId: number): void;
  onFailed(listener: (failure: SpeakerFailure) => void): () => void;
  /**
   * Hears the on-device voice's pace now and each time it changes: the page's, shared by every
   * conversation (it names no utterance).
   */
  onPaced(listener: (pace: Pace) => void): () => void;
  stop(): void;
  /** Ducks the voice under the person, or brings it back. */
  duck(ducked: boolean): void;
  on(event: 'started' | 'ended', listener: (key: { utteranceId: number; piece: number }) => void): () => void;
}

/** The speaker and player as one conversation sees them: its own ids only. */
export function soundIn(range: UtteranceRange, sound: PageSound): { speaker: SpeakerPort; player: PlayerPort } {
  return {
    speaker: {
      speak: (request) => {
        sound.speak({ ...request, utteranceId: range.outward(request.utteranceId) });
      },
      cancel: (utteranceId) => {
        sound.cancel(range.outward(utteranceId));
      },
      onPaced: (listener) => sound.onPaced(listener),
      onFailed: (listener) =>
        sound.onFailed((failure) => {
          const utteranceId = range.inward(failure.utteranceId);
          if (utteranceId !== null) listener({ ...failure, utteranceId });
        }),
    },
    player: {
      stop: () => {
        sound.stop();
      },
      duck: (ducked) => {
        sound.duck(ducked);
      },
      on: (event, listener) =>
        sound.on(event, (key) => {
          const utteranceId = range.inward(key.utteranceId);
          if (utteranceId !== null) listener({ utteranceId, piece: key.piece });
        }),
    },
  };
}
