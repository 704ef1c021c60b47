/**
 * Barge-in from the microphone level alone.
 *
 * While the assistant is audible the recogniser is stopped (it opens its own capture, which our echo
 * cancellation does not touch), so the only way to hear a person talk over the assistant is the level
 * of our own echo-cancelled stream. That stream still hears the speaker, and on a laptop the leak
 * clears any fixed threshold worth having. So the gate learns the leak: whatever the microphone reads
 * while the assistant talks is the leak, and a person has to hold the level clearly over it — over
 * `margin` times the leak's peak level, never under `floor` — for `minOverMs`, not for one click.
 *
 * The leak's peak level is not its mean: a voice's syllables peak at about twice its mean, and a bar
 * set from the mean is cleared by the assistant's own stressed syllables. Nor is it the single
 * loudest moment, which one rising edge of a person's voice can move. It is the level the leak
 * held (over `minOverMs`) for the loudest `peakShare` of the assistant audio heard lately, read from
 * a fading histogram of those held levels: a person's brief rise is too little audio to move it, and
 * a syllable louder than usual is one of many.
 *
 * What the gate learned carries over from answer to answer in the same room, fading only slowly in
 * silence, so the second answer starts with a good bar. The very first one cannot: the gate takes
 * its first `warmUpMs` as leak without judging (and the first `warmUpMs` of each answer until it
 * has heard `settleMs`), then widens the margin until it has heard `settleMs`. When the leak's own peaks come near full scale, no level the microphone can read is
 * clearly over them, and the gate says so (`canBargeIn`) rather than guess.
 *
 * Pure: the state is immutable plain data and time is the frame's `atMs`, never read.
 */

/** How the gate learns the leak and decides that a person is talking. */
export interface EchoGateOptions {
  /**
   * How far over the leak's peak level a person must hold, as a factor. 1.375 reproduces the
   * measurements this gate was built from: a steady 0.35 leak settles the bar at 0.48 and a 0.55
   * leak at 0.76. Default 1.375.
   */
  margin: number;
  /**
   * The lowest the bar ever goes, as a level 0..1. It sits over a quiet room's noise (a peak meter
   * reads about 0.01–0.03 there) and a headphone's faint spill, and under a quiet word spoken close
   * to the microphone (0.12–0.15), so on headphones a quiet word still interrupts. Default 0.09.
   */
  floor: number;
  /**
   * The share of the remembered assistant audio whose held level lies over the leak's peak level,
   * 0..1. 3 % is the tops of the stressed syllables: high enough to stand for the leak's peaks (at
   * 5 % an answer a little louder than the last tripped the bar in the benchmark), wide enough that
   * the few frames of a person's rising voice cannot move it. Default 0.03.
   */
  peakShare: number;
  /**
   * The least assistant audio, in milliseconds, that lies over the peak level however little has
   * been heard, so a few frames cannot decide it in a gate's first seconds. Short enough that the
   * first 200 ms of a first answer, mostly its opening syllable's rise, still yield its peak rather
   * than its middle (at 100 ms the bar sat under the second syllable). Default 50.
   */
  peakMinMs: number;
  /**
   * Time constant, in milliseconds of assistant audio, with which what the gate learned gives way to
   * what it hears now: long enough to span several sentences. A louder leak is followed up within a
   * second (its frames soon fill the top `peakShare`); a quieter one is followed down once the louder
   * audio has faded under `peakShare`, in about two `memoryMs`, and until then a person must be
   * louder to interrupt. Default 8000.
   */
  memoryMs: number;
  /**
   * The loudest held level taken as leak, as a factor over the leak's current peak level; a louder
   * frame teaches nothing. A louder answer still raises the peak level, through its many frames just
   * over it, while a person twice as loud as the leak who stays under the bar (in a gate's cold
   * first seconds, say) cannot teach it that a person is the leak. Default 1.3.
   */
  riseLimit: number;
  /**
   * How far the leak's loudest moments run over its peak level, as a factor. When margin × peak
   * level would be over what the microphone can read (`FULL_SCALE`), a person at full scale still
   * counts, but only while peak level × headroom stays under full scale: past that the leak itself
   * reaches full scale and nothing the microphone reads can be told from it. On speech envelopes
   * the loudest held level of an answer runs about 1.13× its peak level; 1.2 keeps a person at full
   * scale heard under a 0.7 leak with no false barge-in in the benchmark. Default 1.2.
   */
  headroom: number;
  /**
   * Time constant, in milliseconds, with which what was learned fades while the assistant is silent,
   * so that after a long pause the next answer's own audio takes over sooner. The room and volume
   * rarely change between turns, so the next turn starts with the bar the last one learned.
   * Default 60000.
   */
  idleForgetMs: number;
  /**
   * How long, in milliseconds, a person must hold over the bar before it counts. Longer than a click
   * or a single loud frame, shorter than the first syllable of a word. Default 40.
   */
  minOverMs: number;
  /**
   * How much dip under the bar, in milliseconds, a hold over it forgives: one frame's worth at 10 ms
   * frames, because a voice's peak level wobbles from frame to frame. Default 15.
   */
  bridgeMs: number;
  /**
   * How long after the assistant's audio stops, in milliseconds, the gate still listens for a person
   * over the bar. The room still rings with the leak for about 200 ms, and the player leaves a 120 ms
   * gap between pieces; a person who starts in either is talking over the assistant. Default 250.
   */
  tailMs: number;
  /**
   * How much assistant audio, in milliseconds, the gate hears before it reports anything when it has
   * learned too little to trust (under `settleMs`), at the start of each answer. All of it is taken
   * as leak, so the first syllable of an answer sets the bar instead of tripping it; a person who
   * talks in that time is taken for leak too, and the gate needs a few answers to forget them.
   * Default 200.
   */
  warmUpMs: number;
  /**
   * How much remembered assistant audio, in milliseconds, it takes for the gate to trust what it
   * learned. Until then the margin is `coldMargin`, easing linearly down to `margin`, because the
   * first syllables heard need not be the loudest. Default 2000.
   */
  settleMs: number;
  /**
   * The margin right after the warm-up, as a factor of the leak's peak level, easing to `margin` over
   * `settleMs`: room for a later syllable louder than the first ones. Default 1.75.
   */
  coldMargin: number;
  /**
   * The margin is widened by this factor when the assistant starts talking after a silence, easing
   * back over `turnSettleMs`: one answer can come out a little louder than the last, and until its
   * own syllables are heard the bar should allow for it. Default 1.25.
   */
  turnMargin: number;
  /** Milliseconds of assistant audio over which `turnMargin` eases back to 1. Default 500. */
  turnSettleMs: number;
  /**
   * When frames carry the assistant's own output level (`assistantLevel`), how far back, in
   * milliseconds, the loudest output is taken as what the microphone may be hearing now: the output
   * reaches the microphone late (output and input latency, the room), so the bar follows the
   * loudest output of this window. Default 200.
   */
  referenceMs: number;
}

/** The defaults, each explained on its field in `EchoGateOptions`. */
export const ECHO_GATE: Readonly<EchoGateOptions> = Object.freeze({
  margin: 1.375,
  floor: 0.09,
  peakShare: 0.03,
  peakMinMs: 50,
  memoryMs: 8000,
  riseLimit: 1.3,
  headroom: 1.2,
  idleForgetMs: 60_000,
  minOverMs: 40,
  bridgeMs: 15,
  tailMs: 250,
  warmUpMs: 200,
  settleMs: 2000,
  coldMargin: 1.75,
  turnMargin: 1.25,
  turnSettleMs: 500,
  referenceMs: 200,
});

/**
 * The level, 0..1, from which the microphone is taken to be at full scale: a peak meter on a
 * clipping capture reads 1 or a hair under it, so a frame this loud is as loud as it can say.
 */
export const FULL_SCALE = 0.97;

/**
 * The longest stretch, in milliseconds, one frame may stand for: a stalled meter that delivers a
 * frame late must not turn one loud frame into a held one, nor teach the leak for a whole stall.
 */
const LONGEST_FRAME_MS = 25;

/**
 * Leak ratios (microphone level over output level) are kept in the level histogram divided by this,
 * so a microphone that reads up to four times louder than the output still fits under 1.
 */
const RATIO_SCALE = 4;

/** The share of remembered audio whose leak ratio lies over the ratio's peak (see `ratioOf`). */
const RATIO_PEAK_SHARE = 0.03;

/** The quietest output, 0..1, whose leak is worth learning from: under it the ratio is mostly noise. */
const REFERENCE_MIN = 0.02;

/** How often, in milliseconds, the gate notes what it learned, so a barge-in can hand back a picture from before the person began. */
const CHECKPOINT_MS = 100;

/** The histogram's bins: the first holds levels up to `LOWEST_LEVEL`, each next one `BIN_RATIO` higher, the last reaches 1. */
const LOWEST_LEVEL = 1e-3;
const BIN_RATIO = 1.05;
const BINS = Math.ceil(Math.log(1 / LOWEST_LEVEL) / Math.log(BIN_RATIO)) + 1;

/** The weight past which the histogram is rescaled so its numbers stay finite. */
const RESCALE_AT = 1e12;

/** Raised for an echo-gate option a person must fix; says which, what it was, and what it may be. */
export class EchoGateOptionError extends Error {
  override readonly name = 'EchoGateOptionError';
}

const LIMITS: Record<keyof EchoGateOptions, readonly [min: number, max: number]> = {
  margin: [1, 4],
  floor: [0, 1],
  peakShare: [0.001, 0.5],
  peakMinMs: [0, 10_000],
  memoryMs: [100, 600_000],
  riseLimit: [1, 4],
  headroom: [1, 4],
  idleForgetMs: [1, 86_400_000],
  minOverMs: [10, 2000],
  bridgeMs: [0, 500],
  tailMs: [0, 5000],
  warmUpMs: [0, 10_000],
  settleMs: [0, 60_000],
  coldMargin: [1, 8],
  turnMargin: [1, 4],
  turnSettleMs: [0, 60_000],
  referenceMs: [10, 2000],
};

/**
 * Merges partial options over `ECHO_GATE` and checks them. Throws `EchoGateOptionError` naming the
 * field, the value and the allowed range, or the two fields that disagree.
 */
export function resolveEchoGate(partial: Partial<EchoGateOptions> = {}): EchoGateOptions {
  const options: EchoGateOptions = { ...ECHO_GATE, ...partial };
  for (const key of Object.keys(LIMITS) as (keyof EchoGateOptions)[]) {
    const value = options[key];
    const [min, max] = LIMITS[key];
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new EchoGateOptionError(`echo gate ${key} is ${String(value)}; it must be a number from ${min} to ${max}.`);
    }
  }
  if (options.coldMargin < options.margin) {
    throw new EchoGateOptionError(
      `echo gate coldMargin (${options.coldMargin}) is under margin (${options.margin}); a gate is never surer of a leak it has barely heard, so make coldMargin at least margin.`,
    );
  }
  if (options.bridgeMs >= options.minOverMs) {
    throw new EchoGateOptionError(
      `echo gate bridgeMs (${options.bridgeMs}) is not under minOverMs (${options.minOverMs}); a hold that forgives its whole length would count silence, so make bridgeMs smaller.`,
    );
  }
  return options;
}

/** One frame the gate still remembers: when it ended, its level, and how long it stood for (ms). */
export interface HeardFrame {
  readonly atMs: number;
  readonly level: number;
  readonly ms: number;
}

/**
 * What the gate learned of the leak: a histogram of the levels it held, each bin counting
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

/** Everything the gate knows, as immutable plain data; make one with `startEchoGate`. */
export interface EchoGateState {
  readonly options: Readonly<EchoGateOptions>;
  readonly leak: LeakPicture;
  /** Assistant audio learned since the assistant last started after a silence, in milliseconds. */
  readonly turnMs: number;
  /** The previous frame's time, or null before the first frame. */
  readonly lastAtMs: number | null;
  /** The last frame in which the assistant was audible, or null if it never was. */
  readonly lastAudibleAtMs: number | null;
  /** The frames of the last `minOverMs` of this stretch of listening, oldest first; empty while silent. */
  readonly recent: readonly HeardFrame[];
  /** True once a barge-in was reported for this stretch of assistant audio; cleared after `tailMs` of silence. */
  readonly interrupted: boolean;
  /**
   * What the gate learned of the leak as a share of the assistant's own output level (microphone
   * level over output level, divided by `RATIO_SCALE`), from frames that carried the output level.
   */
  readonly ratio: LeakPicture;
  /** The output levels of the last `referenceMs`, oldest first; empty when frames carry none. */
  readonly reference: readonly { readonly atMs: number; readonly level: number }[];
  /** The picture as it was at the last checkpoint and the one before, with the time of the last. */
  readonly checkpoint: { readonly last: LeakPicture; readonly previous: LeakPicture; readonly atMs: number | null };
}

/** One microphone frame as the level meter reports it. */
export interface EchoGateFrame {
  /** Peak |sample| over the frame (about 10 ms) of the echo-cancelled microphone stream, 0..1. */
  level: number;
  /** When the frame ended, in milliseconds on any clock that only goes forward. */
  atMs: number;
  /** Whether assistant audio was playing during the frame. */
  assistantAudible: boolean;
  /**
   * The assistant's own output level during the frame (the player's analyser), 0..1, when the
   * caller has it. With it the gate judges the microphone against what is being played right now —
   * the leak is a share of the output, loud syllables and quiet ones alike — instead of against the
   * leak's remembered peak alone, which a first answer's opening syllables set too low.
   */
  assistantLevel?: number;
}

const NOTHING: readonly number[] = Object.freeze(new Array<number>(BINS).fill(0));
const EMPTY: LeakPicture = Object.freeze({ bins: NOTHING, sums: NOTHING, total: 0, weight: 1, heardMs: 0 });

/** A gate that has heard nothing: no leak learned, so it warms up on the first assistant audio. */
export function startEchoGate(options: Partial<EchoGateOptions> = {}): EchoGateState {
  return {
    options: Object.freeze(resolveEchoGate(options)),
    leak: EMPTY,
    turnMs: 0,
    lastAtMs: null,
    lastAudibleAtMs: null,
    recent: [],
    interrupted: false,
    ratio: EMPTY,
    reference: [],
    checkpoint: { last: EMPTY, previous: EMPTY, atMs: null },
  };
}

function binOf(level: number): number {
  if (level <= LOWEST_LEVEL) return 0;
  return Math.min(BINS - 1, Math.ceil(Math.log(level / LOWEST_LEVEL) / Math.log(BIN_RATIO)));
}

/**
 * The level over which `tailMs` of the pictured audio lies, to within a bin (5 %): the average level
 * of the bin where the count from the top reaches `tailMs`, so a steady leak reads as itself. 0 when
 * nothing was heard.
 */
function levelWithTail(leak: LeakPicture, tailMs: number): number {
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

/**
 * The leak's peak level, 0..1: the level over which the loudest `peakShare` (at least `peakMinMs`)
 * of the remembered assistant audio held. For a steady leak it is that leak's level.
 */
export function leakOf(state: EchoGateState): number {
  const { options, leak } = state;
  return levelWithTail(leak, Math.max(options.peakShare * leak.heardMs, options.peakMinMs));
}

/** The factor on `margin` in force now: wide while little is learned, and at the start of each answer. */
function widening(state: EchoGateState): number {
  const { options } = state;
  const span = options.settleMs - options.warmUpMs;
  const trust = span <= 0 ? 1 : Math.min(1, Math.max(0, (state.leak.heardMs - options.warmUpMs) / span));
  const cold = options.coldMargin + (options.margin - options.coldMargin) * trust;
  const fresh = options.turnSettleMs <= 0 ? 0 : Math.max(0, 1 - state.turnMs / options.turnSettleMs);
  return (cold / options.margin) * (1 + (options.turnMargin - 1) * fresh);
}

function barFor(state: EchoGateState, peak: number): number {
  const { options } = state;
  const wide = widening(state);
  const bar = Math.max(options.floor, wide * options.margin * peak);
  if (bar > FULL_SCALE && wide * options.headroom * peak < FULL_SCALE) return FULL_SCALE;
  return bar;
}

/**
 * The level, 0..1, a person must hold over right now. Over 1 when the leak itself reaches full
 * scale: nothing the microphone can read clears it (see `canBargeIn`).
 */
export function barOf(state: EchoGateState): number {
  const reference = referenceLevel(state.reference);
  const byLevel = barFor(state, leakOf(state));
  return reference !== null && state.ratio.heardMs > 0 ? Math.max(byLevel, barFor(state, expectedLeak(state, reference))) : byLevel;
}

/** The loudest output level of the remembered reference frames, or null when frames carry none. */
function referenceLevel(reference: EchoGateState['reference']): number | null {
  if (reference.length === 0) return null;
  let loudest = 0;
  for (const r of reference) loudest = Math.max(loudest, r.level);
  return loudest;
}

/**
 * The leak ratio's peak: the share of the output the microphone hears back, at its loud end — the
 * top 3 % of it, since the share swings with the sound (a small speaker drops a vowel's bass and
 * plays a hiss in full), where the leak's level swings only with loudness.
 */
export function ratioOf(state: EchoGateState): number {
  const { options, ratio } = state;
  return RATIO_SCALE * levelWithTail(ratio, Math.max(RATIO_PEAK_SHARE * ratio.heardMs, options.peakMinMs));
}

/** The leak the microphone may hear now, from the output of the last `referenceMs` and the learned ratio. */
function expectedLeak(state: EchoGateState, reference: number): number {
  return ratioOf(state) * reference;
}

/**
 * False when the leak is so loud that no level the microphone can read would clear the bar; the app
 * can tell the person to lower the volume or use headphones to interrupt by voice.
 */
export function canBargeIn(state: EchoGateState): boolean {
  return barOf(state) < 1;
}

/** Keeps the newest frames that together cover `spanMs`, oldest first. */
function remember(recent: readonly HeardFrame[], frame: HeardFrame, spanMs: number): HeardFrame[] {
  const kept: HeardFrame[] = [frame];
  let covered = frame.ms;
  for (let i = recent.length - 1; i >= 0 && covered < spanMs; i--) {
    const older = recent[i] as HeardFrame;
    kept.unshift(older);
    covered += older.ms;
  }
  return kept;
}

/**
 * The level the remembered frames held throughout, letting the lowest of them off for up to
 * `bridgeMs` in all; null until they cover `spanMs`.
 */
function heldLevel(recent: readonly HeardFrame[], spanMs: number, bridgeMs: number): number | null {
  let covered = 0;
  for (const f of recent) covered += f.ms;
  if (covered < spanMs) return null;
  let forgiven = 0;
  const lowestUnforgiven = [...recent]
    .sort((a, b) => a.level - b.level)
    .find((f) => {
      forgiven += f.ms;
      return forgiven > bridgeMs;
    });
  return lowestUnforgiven === undefined ? null : lowestUnforgiven.level;
}

/** Adds `ms` of assistant audio held at `level` to the picture, letting older audio fade over `memoryMs`. */
function learn(leak: LeakPicture, level: number, ms: number, memoryMs: number): LeakPicture {
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
function forget(leak: LeakPicture, dtMs: number, idleForgetMs: number): LeakPicture {
  if (dtMs === 0) return leak;
  const fade = Math.exp(dtMs / idleForgetMs);
  return rescaled({ ...leak, weight: leak.weight * fade, heardMs: leak.heardMs / fade });
}

function checkFrame(frame: EchoGateFrame): void {
  if (!Number.isFinite(frame.level) || frame.level < 0) {
    throw new RangeError(`echo gate frame level is ${String(frame.level)}; it must be a peak level from 0 to 1.`);
  }
  if (!Number.isFinite(frame.atMs)) {
    throw new RangeError(`echo gate frame atMs is ${String(frame.atMs)}; it must be a time in milliseconds.`);
  }
}

/**
 * Hears one frame and returns the next state, and whether this frame completed a barge-in.
 *
 * Contract:
 * - A barge-in is the level held over the bar for `minOverMs` (forgiving `bridgeMs` of dips). It is
 *   reported once per stretch of assistant audio, and only while the assistant is audible or within
 *   `tailMs` after it stopped; the gate re-arms after `tailMs` of silence. A person talking while
 *   the assistant is silent is the recogniser's business, not the gate's.
 * - Only assistant-audible frames teach the leak, none while any frame of the last `minOverMs` was
 *   over the bar, and none held louder than `riseLimit` times the peak level: a person talking over
 *   the top does not teach the gate that interruptions are normal. A barge-in hands back the picture
 *   from 100–200 ms before it, ahead of the person's rising voice, so the next answer starts with
 *   the leak's own bar.
 * - Frames must come in time order; a frame that goes back in time counts as no time passing. A frame
 *   stands for at most 25 ms. Levels over 1 are read as 1.
 */
export function hearFrame(
  state: EchoGateState,
  frame: EchoGateFrame,
): { state: EchoGateState; bargeIn: boolean } {
  checkFrame(frame);
  const { options } = state;
  const level = Math.min(1, frame.level);
  const dtMs = state.lastAtMs === null ? 0 : Math.max(0, frame.atMs - state.lastAtMs);
  const ms = Math.min(dtMs, LONGEST_FRAME_MS);
  const lastAudibleAtMs = frame.assistantAudible ? frame.atMs : state.lastAudibleAtMs;
  const listening = lastAudibleAtMs !== null && frame.atMs - lastAudibleAtMs <= options.tailMs;
  const reference = frame.assistantLevel === undefined ? [] : keepReference(state.reference, frame.atMs, frame.assistantLevel, options.referenceMs);
  const output = referenceLevel(reference);

  if (!listening) {
    const leak = forget(state.leak, dtMs, options.idleForgetMs);
    return {
      bargeIn: false,
      state: {
        options,
        leak,
        ratio: forget(state.ratio, dtMs, options.idleForgetMs),
        reference,
        turnMs: 0,
        lastAtMs: frame.atMs,
        lastAudibleAtMs,
        recent: [],
        interrupted: false,
        checkpoint: { last: leak, previous: leak, atMs: null },
      },
    };
  }

  const recent = remember(state.recent, { atMs: frame.atMs, level, ms }, options.minOverMs);
  const moved: EchoGateState = { ...state, lastAtMs: frame.atMs, lastAudibleAtMs, recent, reference };
  if (state.interrupted) return { bargeIn: false, state: moved };

  const held = heldLevel(recent, options.minOverMs, options.bridgeMs);
  /** The ratio this frame would teach, when the output is loud enough to learn from. */
  const ratioHeard = output !== null && output >= REFERENCE_MIN ? Math.min(1, (held ?? level) / output / RATIO_SCALE) : null;
  if (warmingUp(state)) {
    if (!frame.assistantAudible) return { bargeIn: false, state: moved };
    const leak = learn(state.leak, held ?? level, ms, options.memoryMs);
    const ratio = ratioHeard === null ? state.ratio : learn(state.ratio, ratioHeard, ms, options.memoryMs);
    return {
      bargeIn: false,
      state: { ...moved, leak, ratio, turnMs: state.turnMs + ms, checkpoint: { last: leak, previous: leak, atMs: frame.atMs } },
    };
  }

  const peak = leakOf(state);
  const judgedByOutput = output !== null && state.ratio.heardMs > 0;
  // Judged by the output as well, a person must be over both bars: the level one is fooled by a
  // first answer's loud later syllables, the output one by a sound the room returns more of than
  // usual (a hiss a small speaker plays in full where it drops a vowel's bass); rarely both at once.
  const bar = judgedByOutput ? Math.max(barFor(state, peak), barFor(state, expectedLeak(state, output))) : barFor(state, peak);
  if (held !== null && held > bar) {
    const leak = state.checkpoint.previous;
    return {
      bargeIn: true,
      state: { ...moved, leak, interrupted: true, checkpoint: { last: leak, previous: leak, atMs: frame.atMs } },
    };
  }

  const suspect = recent.some((f) => f.level > bar);
  if (!frame.assistantAudible || held === null || suspect) return { bargeIn: false, state: moved };
  // A frame teaches only what is plausible as leak: not much louder than the leak's peak level, and,
  // judged by the output, not much more of it than the share the room gives back.
  const plausibleLevel = held <= options.riseLimit * peak;
  const plausibleRatio = ratioHeard !== null && RATIO_SCALE * ratioHeard <= options.riseLimit * Math.max(ratioOf(state), REFERENCE_MIN);
  if (!plausibleLevel && !plausibleRatio) return { bargeIn: false, state: moved };

  const leak = plausibleLevel ? learn(state.leak, held, ms, options.memoryMs) : state.leak;
  const ratio = plausibleRatio ? learn(state.ratio, ratioHeard, ms, options.memoryMs) : state.ratio;
  const due = state.checkpoint.atMs === null || frame.atMs - state.checkpoint.atMs >= CHECKPOINT_MS;
  return {
    bargeIn: false,
    state: {
      ...moved,
      leak,
      ratio,
      turnMs: state.turnMs + ms,
      checkpoint: due ? { last: leak, previous: state.checkpoint.last, atMs: frame.atMs } : state.checkpoint,
    },
  };
}

/** The output levels of the last `spanMs` up to `atMs`, with this frame's, oldest first. */
function keepReference(reference: EchoGateState['reference'], atMs: number, level: number, spanMs: number): EchoGateState['reference'] {
  const heard = Number.isFinite(level) ? Math.min(1, Math.max(0, level)) : 0;
  return [...reference.filter((r) => atMs - r.atMs < spanMs && r.atMs <= atMs), { atMs, level: heard }];
}

/**
 * Whether the gate takes what it hears as leak without judging: until it has heard `warmUpMs` at
 * all, and, until it has heard `settleMs`, for the first `warmUpMs` of each answer too — a first
 * answer cut short by a barge-in leaves too little learned for the next answer's opening syllables.
 */
function warmingUp(state: EchoGateState): boolean {
  const { options, leak, turnMs } = state;
  return leak.heardMs < options.warmUpMs || (leak.heardMs < options.settleMs && turnMs < options.warmUpMs);
}

/** A convenience holder for one gate's state, for callers that keep it in an object rather than a store. */
export class EchoGate {
  #state: EchoGateState;

  constructor(options: Partial<EchoGateOptions> = {}) {
    this.#state = startEchoGate(options);
  }

  /** Hears one frame; true when it completed a barge-in. */
  hear(frame: EchoGateFrame): boolean {
    const next = hearFrame(this.#state, frame);
    this.#state = next.state;
    return next.bargeIn;
  }

  /** The level a person must hold over right now, 0..1 (over 1 when nothing can clear it). */
  get bar(): number {
    return barOf(this.#state);
  }

  /** The state as plain data, for inspection or to carry into a pure caller. */
  get state(): EchoGateState {
    return this.#state;
  }
}
