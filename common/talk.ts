/**
 * How a conversation is spoken: the one place the talk defaults live, each beside why it was chosen
 * (the timings behind them are in docs/performance.md). A bot file's `voice:` block may override any
 * of them; `resolveTalk` merges and checks.
 */
import { resolveOptions } from './options';
import type { Limits } from './options';

export interface Talk {
  /**
   * Flow-matching solver steps for every piece after the opening. Cost is very nearly linear in
   * steps, and 8 is the quality the free voice is judged by. Default 8.
   */
  steps: number;
  /**
   * Solver steps for the opening piece, the only piece anybody waits for. Fewer steps start sooner
   * but change how the voice sounds, so it defaults to `steps`; a bot that wants speed sets 3.
   */
  opening: number;
  /**
   * The fewest solver steps a later piece may be made with when, at `steps`, it would be ready only
   * after the audio before it has played out. Default `steps`: no piece is made with fewer, since a
   * voice that arrives sooner and sounds worse is a bad trade (the seed 003), and sizing each piece
   * to what the device makes in time keeps the silences away on its own (`no-silence`'s figures, at
   * both floors, are in docs/performance.md). A bot that would rather sound rougher than ever pause
   * sets it lower, from 1; the opening is never hurried (nothing plays before it).
   */
  floor: number;
  /**
   * How short the opening piece tries to be, in words: a first sentence longer than this is cut at
   * its first clause boundary past which the rest is still a phrase — never mid-phrase. Default 12:
   * a dozen words is little to make before the first sound (its time is in docs/performance.md).
   */
  words: number;
  /**
   * Silence between pieces, in milliseconds. A chapter's 450 ms is a drawl in a conversation;
   * 120 ms reads as a breath. Default 120.
   */
  gapMs: number;
  /**
   * Largest piece after the opening, in characters: sentences are packed greedily up to this.
   * 300 is where the audiobook engine's per-piece overhead stops mattering. Default 300.
   */
  pieceChars: number;
}

/**
 * The defaults. The opening is cut short for a fast first sound rather than made with fewer steps:
 * fewer steps would start sooner still but change how the voice sounds — hence `opening = steps`.
 */
export const TALK: Readonly<Talk> = Object.freeze({
  steps: 8,
  opening: 8,
  floor: 8,
  words: 12,
  gapMs: 120,
  pieceChars: 300,
});

const LIMITS: Limits<Talk> = {
  steps: { min: 1, max: 64, whole: true },
  opening: { min: 1, max: 64, whole: true },
  floor: { min: 1, max: 64, whole: true },
  words: { min: 3, max: 60, whole: true },
  gapMs: { min: 0, max: 2000 },
  pieceChars: { min: 40, max: 2000, whole: true },
};

/**
 * Merges a partial talk block over the defaults. `opening` and `floor` follow `steps` unless they
 * are given. Throws `OptionError` naming the field
 * (`voice.<field>`, as a bot file spells it), the value and the allowed range.
 */
export function resolveTalk(partial: Partial<Talk> = {}): Talk {
  const steps = partial.steps ?? TALK.steps;
  return resolveOptions('voice', { ...TALK, opening: steps, floor: steps }, partial, LIMITS, [{ option: 'floor', is: 'at most', than: 'steps' }]);
}
