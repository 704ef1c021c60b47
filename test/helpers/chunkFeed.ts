/**
 * Drives the chunker the way a streamed answer does, and cuts text into reproducible random deltas
 * for the tests that must not care how an answer was split.
 */
import { endText, pushText, startChunking } from '../../common/speaking/chunker';
import type { ChunkOptions } from '../../common/speaking/chunker';

/** What an answer arriving as `deltas` was cut into. */
export interface Fed {
  /** Every piece, in order. */
  pieces: string[];
  /** For each delta, the pieces `pushText` returned for it; `endText`'s come after, in `atEnd`. */
  perDelta: string[][];
  atEnd: string[];
}

export function feed(deltas: readonly string[], options?: ChunkOptions): Fed {
  let state = startChunking(options);
  const perDelta: string[][] = [];
  for (const delta of deltas) {
    const step = pushText(state, delta);
    state = step.state;
    perDelta.push(step.pieces);
  }
  const { pieces: atEnd } = endText(state);
  return { pieces: [...perDelta.flat(), ...atEnd], perDelta, atEnd };
}

/** Text as one delta per UTF-16 code unit: the finest any stream can split it, emoji halves and all. */
export function codeUnits(text: string): string[] {
  return Array.from({ length: text.length }, (_, at) => text.charAt(at));
}

/**
 * Cuts text into deltas of 1 to `longest` UTF-16 code units, so a split may fall mid-word, inside
 * a markdown fence, or between the two halves of an emoji, as a model's tokens can.
 */
export function randomDeltas(text: string, random: () => number, longest = 12): string[] {
  const deltas: string[] = [];
  for (let at = 0; at < text.length; ) {
    const length = 1 + Math.floor(random() * longest);
    deltas.push(text.slice(at, at + length));
    at += length;
  }
  return deltas;
}
