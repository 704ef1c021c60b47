/**
 * What the voice says again when it comes back after a duck: a person who coughed, or said
 * "mm-hmm", over the end of a sentence heard that end only at the duck's level, so the sentence
 * (the piece) whose end the duck ran past is said again from its start — once, however often it is
 * ducked over — and what followed it follows it again. When nothing of the answer is left to play
 * (the duck ran past the end of its last piece), the answer has ended and nothing is said again:
 * the turn is the person's.
 *
 * Pure: pieces and times are inputs.
 */

/** A piece that played out while the voice was ducked. */
export interface EndedPiece<K> {
  key: K;
  /** When its last sample played, ms. */
  endedAtMs: number;
  /** Whether it has been said again already. */
  saidAgain: boolean;
}

/**
 * The piece to say again when the voice comes back at `backAtMs` from a duck that began at
 * `duckedAtMs`, given the pieces that ended (in order) and whether any of the answer is still to
 * play; null when nothing is to be said again.
 */
export function pieceToSayAgain<K>(ended: readonly EndedPiece<K>[], duckedAtMs: number, backAtMs: number, answerGoesOn: boolean): K | null {
  if (!answerGoesOn) return null;
  const under = ended.find((piece) => piece.endedAtMs > duckedAtMs && piece.endedAtMs <= backAtMs && !piece.saidAgain);
  return under?.key ?? null;
}
