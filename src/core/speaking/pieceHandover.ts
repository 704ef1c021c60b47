/**
 * Which pieces of an utterance the speaker is handed, and when. Pieces packed as the text came are
 * handed at once; for the on-device voice, once it has said its pace, the sentences after them are
 * cut only as it is ready for more, each to what it can make before the audio ahead of it has
 * played out (`pace.ts`). Pure: given where the utterance stands, it returns what to keep and what
 * to speak; the conversation machine does both.
 */
import { cutPiece } from '../../../common/speaking/chunker';
import type { ChunkerState } from '../../../common/speaking/chunker';
import { budgetChars, paceAfter, PIECES_AHEAD } from '../../../common/speaking/pace';
import type { Pace } from '../../../common/speaking/pace';
import type { Talk } from '../../../common/talk';
import type { Voice } from '../../../common/conversation/events';

/** What the speaker is asked to voice: one piece of one utterance. */
export interface SpeakRequest {
  utteranceId: number;
  /** Index of the piece in its utterance; 0 is the opening piece. */
  piece: number;
  text: string;
  voice: Voice;
  /** Solver steps for this piece: the talk's `opening` for piece 0, its `steps` after. */
  steps: number;
  /** The fewest steps it may be made with if it would otherwise be late: the talk's `floor`. */
  floor: number;
}

/** Where one utterance stands with its speaker (the conversation's context has all of it). */
export interface Utterance {
  readonly utteranceId: number;
  /** Whether answers are spoken at all. */
  readonly speech: boolean;
  readonly voice: Voice;
  readonly talk: Talk;
  /** The on-device voice's last pace; null until it has said. */
  readonly pace: Pace | null;
  readonly chunker: ChunkerState;
  /** Texts handed to the speaker so far, by piece index. */
  readonly pieces: readonly string[];
  readonly settled: readonly boolean[];
  readonly played: readonly boolean[];
}

/** What a handover changes of the utterance, and the pieces to speak, in order. */
export interface Handover {
  readonly update: {
    chunker: ChunkerState;
    pace?: Pace;
    pieces?: string[];
    settled?: boolean[];
    played?: boolean[];
  };
  readonly speak: SpeakRequest[];
}

/** The request for piece `piece` of the utterance, in `voice`. */
export function request(utterance: Utterance, piece: number, text: string, voice: Voice): SpeakRequest {
  return {
    utteranceId: utterance.utteranceId,
    piece,
    text,
    voice,
    steps: stepsOf(utterance, piece),
    floor: utterance.talk.floor,
  };
}

function stepsOf(utterance: Utterance, piece: number): number {
  return piece === 0 ? utterance.talk.opening : utterance.talk.steps;
}

/**
 * Whether later pieces wait to be cut until the voice is ready for them: the on-device voice speaks
 * and has said its pace. Otherwise (the endpoint voice, which streams as it reads; speech off; no
 * pace yet) they are packed as the text comes.
 */
export function paced(utterance: Utterance): boolean {
  return utterance.speech && utterance.voice === 'device' && utterance.pace !== null;
}

/**
 * Hands the speaker `ready` (the opening, or pieces packed as the text came), then, for a voice
 * that keeps its pace, cuts more from the sentences kept while the voice has fewer than
 * `PIECES_AHEAD` to make, each to what it can make before the audio queued ahead of it has played
 * out (`budgetChars`), at `atMs` or when the voice last said. The pace kept is projected over the
 * pieces handed over until the voice says its own.
 */
export function speakOnward(utterance: Utterance, ready: readonly string[], atMs: number | undefined): Handover {
  const { pace } = utterance;
  if (!paced(utterance) || pace === null) {
    return speakPieces(utterance, { chunker: utterance.chunker }, ready);
  }
  const nowMs = Math.max(pace.atMs, atMs ?? pace.atMs);
  const pieces = [...ready];
  const stepsAt = (i: number) => stepsOf(utterance, utterance.pieces.length + i);
  let ahead = pieces.reduce((projected, text, i) => paceAfter(projected, text.length, stepsAt(i), nowMs), pace);
  let { chunker } = utterance;
  while (ahead.making < PIECES_AHEAD) {
    const next = cutPiece(chunker, budgetChars(ahead, utterance.talk.steps, nowMs));
    if (next.piece === null) break;
    chunker = next.state;
    ahead = paceAfter(ahead, next.piece.length, stepsAt(pieces.length), nowMs);
    pieces.push(next.piece);
  }
  return speakPieces(utterance, { chunker, pace: ahead }, pieces);
}

/** `update` with `pieces` added to those handed over, and a request for each — none with speech off. */
function speakPieces(utterance: Utterance, update: Handover['update'], pieces: readonly string[]): Handover {
  if (!utterance.speech || pieces.length === 0) return { update, speak: [] };
  const start = utterance.pieces.length;
  return {
    update: {
      ...update,
      pieces: [...utterance.pieces, ...pieces],
      settled: [...utterance.settled, ...pieces.map(() => false)],
      played: [...utterance.played, ...pieces.map(() => false)],
    },
    speak: pieces.map((text, i) => request(utterance, start + i, text, utterance.voice)),
  };
}
