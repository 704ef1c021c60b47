/**
 * What the echo gate learned of the leak: a fading histogram of the levels it heard, which can say
 * the level the loudest given stretch of remembered audio lay over. Pure and immutable.
 */

/** The histogram's bins: the first holds levels up to `LOWEST_LEVEL`, each next one `BIN_RATIO` higher, the last reaches 1. */
const LOWEST_LEVEL = 1e-3;
const BIN_RATIO = 1.05;
const BINS = Math.ceil(Math.log(1 / LOWEST_LEVEL) / Math.log(BIN_RATIO)) + 1;

/** The weight past which the histogram is rescaled so its numbers stay finite. */
const RESCALE_AT = 1e12;

/**
 * What the gate learned of the leak: a histogram of the levels it heard, each bin counting
 * milliseconds of assistant audio times `weight` at the time it was added (so older audio counts
 * for less as the weight grows, without touching every bin on every frame).
 */
export interface LeakPicture {
  readonly bins: readonly number[];
  /** Per bin, the same counts times their levels, so a bin can say what level it holds on average. */
  readonly sums: readonly number[];
  /** The sum of `bins`. */
  readonly total: number;
  /** What one millisecond heard now adds to a bin; grows with time heard and silence, rescaled when large. */
  readonly weight: number;
  /** How much assistant audio, in milliseconds, the picture stands for after fading. */
  readonly heardMs: number;
}

const NOTHING: readonly number[] = Object.freeze(new Array<number>(BINS).fill(0));

/** A picture of nothing heard. */
export const EMPTY_PICTURE: LeakPicture = Object.freeze({ bins: NOTHING, sums: NOTHING, total: 0, weight: 1, heardMs: 0 });

function binOf(level: number): number {
  if (level <= LOWEST_LEVEL) return 0;
  return Math.min(BINS - 1, Math.ceil(Math.log(level / LOWEST_LEVEL) / Math.log(BIN_RATIO)));
}

/**
 * The level over which `tailMs` of the pictured audio lies, to within a bin (5 %): the average level
 * of the bin where the count from the top reaches `tailMs`, so a steady leak reads as itself. 0 when
 * nothing was heard.
 */
export function levelWithTail(leak: LeakPicture, tailMs: number): number {
  const { total } = leak;
  if (total <= 0 || leak.heardMs <= 0) return 0;
  const wanted = Math.min(total, (tailMs / leak.heardMs) * total);
  let above = 0;
  let level = 0;
  for (let b = BINS - 1; b >= 0 && above < wanted; b--) {
    const here = leak.bins[b] ?? 0;
    if (here > 0) {
      above += here;
      level = (leak.sums[b] ?? 0) / here;
    }
  }
  return level;
}

/** Adds `ms` of assistant audio heard at `level` to the picture, letting older audio fade over `memoryMs`. */
export function learn(leak: LeakPicture, level: number, ms: number, memoryMs: number): LeakPicture {
  const fade = Math.exp(ms / memoryMs);
  const weight = leak.weight * fade;
  const heardMs = leak.heardMs / fade + ms;
  const bins = [...leak.bins];
  const sums = [...leak.sums];
  const bin = binOf(level);
  bins[bin] = (bins[bin] ?? 0) + ms * weight;
  sums[bin] = (sums[bin] ?? 0) + ms * weight * level;
  return rescaled({ bins, sums, total: leak.total + ms * weight, weight, heardMs });
}

/** The same picture with its weight brought back to 1 once it grows past `RESCALE_AT`. */
function rescaled(leak: LeakPicture): LeakPicture {
  if (leak.weight <= RESCALE_AT) return leak;
  const { weight } = leak;
  return {
    bins: leak.bins.map((v) => v / weight),
    sums: leak.sums.map((v) => v / weight),
    total: leak.total / weight,
    weight: 1,
    heardMs: leak.heardMs,
  };
}

/** Lets the whole picture fade over `dtMs` of silence, so new audio outweighs it sooner. */
export function forget(leak: LeakPicture, dtMs: number, idleForgetMs: number): LeakPicture {
  if (dtMs === 0) return leak;
  const fade = Math.exp(dtMs / idleForgetMs);
  return rescaled({ ...leak, weight: leak.weight * fade, heardMs: leak.heardMs / fade });
}
