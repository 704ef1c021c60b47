/**
 * How a conversation is spoken: the one place the talk defaults live, beside the measurements that
 * chose them. A bot file's `voice:` block may override any of them; `resolveTalk` merges and checks.
 */
export interface Talk {
  /**
   * Flow-matching solver steps for every piece after the opening. Cost is very nearly linear in
   * steps (one sentence measured at 329 ms for 2 steps, 576 ms for 4, 1,077 ms for 8), and 8 is the
   * quality the free voice is judged by. Default 8.
   */
  steps: number;
  /**
   * Solver steps for the opening piece, the only piece anybody waits for. Fewer steps start sooner
   * but change how the voice sounds, so it defaults to `steps`; a bot that wants speed sets 3.
   */
  opening: number;
  /**
   * The fewest solver steps a later piece may be made with when, at `steps`, it would be ready only
   * after the audio before it has played out. A piece that sounds a little rougher is better than a
   * silence that sounds as though the bot has stopped; the opening is never hurried (nothing plays
   * before it). From 1 to `steps`; default half of `steps`, rounded up (4 at 8 steps: the seed
   * measured 576 ms for a sentence at 4 steps against 1,077 ms at 8). `floor = steps` never hurries.
   */
  floor: number;
  /**
   * How short the opening piece tries to be, in words: a first sentence longer than this is cut at
   * its first clause boundary past which the rest is still a phrase — never mid-phrase. Default 12
   * (a dozen words is about 0.8 s of speech to synthesise before the first sound).
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
 * Measured on an M2 Max: a four-sentence answer spoken as one 219-character piece took 3.7 s to
 * its first sound; cutting the opening piece at its first sentence (or clause past a dozen words)
 * and streaming each piece as float PCM brought that near 1 s without changing a sample, and an
 * opening at 2 steps brought it to about 500 ms at a cost in quality — hence `opening = steps`.
 */
export const TALK: Readonly<Talk> = Object.freeze({
  steps: 8,
  opening: 8,
  floor: 4,
  words: 12,
  gapMs: 120,
  pieceChars: 300,
});

const LIMITS: Record<keyof Talk, readonly [min: number, max: number]> = {
  steps: [1, 64],
  opening: [1, 64],
  floor: [1, 64],
  words: [3, 60],
  gapMs: [0, 2000],
  pieceChars: [40, 2000],
};

/** Raised for a talk setting a person must fix (in a bot file or settings); says which and why. */
export class TalkSettingError extends Error {
  override readonly name = 'TalkSettingError';
}

/**
 * Merges a partial talk block over the defaults. `opening` follows `steps` unless it is given, and
 * `floor` is half of `steps` (rounded up) unless it is given. Throws `TalkSettingError` naming the
 * field, the value and the allowed range.
 */
export function resolveTalk(partial: Partial<Talk> = {}): Talk {
  const steps = partial.steps ?? TALK.steps;
  const floor = partial.floor ?? (Number.isInteger(steps) ? Math.max(1, Math.ceil(steps / 2)) : TALK.floor);
  const talk: Talk = { ...TALK, ...partial, steps, opening: partial.opening ?? steps, floor };
  for (const key of Object.keys(LIMITS) as (keyof Talk)[]) {
    const value = talk[key];
    const [min, max] = LIMITS[key];
    const whole = key !== 'gapMs';
    if (!Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
      throw new TalkSettingError(
        `voice.${key} is ${String(value)}; it must be ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}.`,
      );
    }
  }
  if (talk.floor > talk.steps) {
    throw new TalkSettingError(`voice.floor is ${talk.floor}; it must be a whole number from 1 to voice.steps (${talk.steps}).`);
  }
  return talk;
}
