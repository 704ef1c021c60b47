/**
 * Barge-in from the microphone level alone.
 *
 * While the assistant is audible the recogniser is stopped (it opens its own capture, which our
 * echo cancellation does not touch), so the only way to hear a person talk over the assistant is the
 * level of our own echo-cancelled stream. That stream still hears the speaker, and on a laptop the
 * leak clears any fixed threshold worth having. So the gate learns the leak: whatever the
 * microphone reads while the assistant talks is the leak, tracked as an envelope of its peaks, and a
 * person has to be clearly over it — over `margin` times the leak, never under `floor` — for a
 * while, not for one click.
 *
 * Pure: the state is immutable plain data and time is the frame's `atMs`, never read.
 */

/** How the gate learns the leak and decides that a person is talking. */
export interface EchoGateOptions {
  /**
   * How far over the learned leak a person must be, as a factor of the leak's level. 1.375
   * reproduces the measurements this gate was built from: a steady 0.35 leak settles the bar at
   * 0.48 and a 0.55 leak at 0.76. Default 1.375.
   */
  margin: number;
  /**
   * How far over the loudest peak the leak has held lately a person must be, as a factor. The bar
   * never drops under it, whatever the typical peak says, so the assistant's own loudest syllable
   * cannot trip the gate. Default 1.1.
   */
  peakMargin: number;
  /**
   * Time constant, in milliseconds of assistant audio, over which the typical syllable peak is
   * averaged. Default 1500.
   */
  typicalMs: number;
  /**
   * Time constant, in milliseconds, with which trust in the learned leak fades while the assistant
   * is silent. Default 10000.
   */
  forgetMs: number;
  /**
   * The lowest the bar ever goes, as a level 0..1. It sits over a quiet room's noise (a peak meter
   * reads about 0.01–0.03 there) and a headphone's faint spill, and under a quiet spoken word close
   * to the microphone (0.12–0.15), so on headphones a quiet word still interrupts. Default 0.09.
   */
  floor: number;
  /**
   * Time constant, in milliseconds, with which the leak envelope rises toward a louder frame that is
   * still under the bar. Fast enough to catch up with the assistant's louder syllables within a few
   * of them, slow enough that the rising edge of a person's first syllable barely moves it.
   * Default 80.
   */
  attackMs: number;
  /**
   * Time constant, in milliseconds, with which the leak envelope falls while the assistant is
   * audible. Long against the pauses between words and sentences, so the envelope rests on the
   * leak's peaks rather than its mean, and the next loud syllable finds the bar where the last left
   * it. Default 2500.
   */
  releaseMs: number;
  /**
   * Time constant, in milliseconds, with which the learned leak fades while the assistant is silent.
   * The room and the volume rarely change between turns, so the next turn should start with the
   * bar the last one learned; a minute of silence keeps about a third of it. Default 60000.
   */
  idleReleaseMs: number;
  /**
   * How long, in milliseconds, a person must be over the bar before it counts. Longer than a click
   * or a single loud frame, shorter than the first syllable of a word. Default 40.
   */
  minOverMs: number;
  /**
   * The longest dip under the bar, in milliseconds, that does not end a run over it: one frame's
   * worth at 10 ms frames, because a voice's peak level wobbles from frame to frame. Default 15.
   */
  bridgeMs: number;
  /**
   * How long after the assistant's audio stops, in milliseconds, the gate still listens for a
   * person over the bar. The room still rings with the leak for about 200 ms, and the player leaves
   * a 120 ms gap between pieces; a person who starts in either is talking over the assistant.
   * Default 250.
   */
  tailMs: number;
  /**
   * How much assistant audio, in milliseconds, the gate hears before it may report anything, when it
   * has learned nothing yet. Every frame in that time is taken as leak, so the very first syllables
   * of the very first turn set the bar instead of tripping it. Default 200.
   */
  warmUpMs: number;
  /**
   * How much assistant audio, in milliseconds, it takes for the gate to trust what it learned. Until
   * then the margin is widened (see `coldMargin`) and eases linearly down to `margin`, because the
   * first syllables heard need not be the loudest. Default 2000.
   */
  settleMs: number;
  /**
   * The margin right after the warm-up, as a factor of the leak, easing to `margin` over `settleMs`.
   * 2 leaves room for a later syllable half again as loud as the first ones. Default 2.
   */
  coldMargin: number;
}

/** The defaults, each explained on its field in `EchoGateOptions`. */
export const ECHO_GATE: Readonly<EchoGateOptions> = Object.freeze({
  margin: 1.375,
  peakMargin: 1.1,
  typicalMs: 1500,
  forgetMs: 10_000,
  floor: 0.09,
  attackMs: 80,
  releaseMs: 2500,
  idleReleaseMs: 60_000,
  minOverMs: 40,
  bridgeMs: 15,
  tailMs: 250,
  warmUpMs: 200,
  settleMs: 2000,
  coldMargin: 2,
});

/**
 * The longest stretch, in milliseconds, one frame may stand for when counting time over the bar: a
 * stalled meter that delivers a frame late must not turn one loud frame into a person.
 */
const LONGEST_FRAME_MS = 25;

/** How often, in milliseconds, the gate notes its leak so a barge-in can undo what the person's rising voice taught it. */
const CHECKPOINT_MS = 100;

/** Raised for an echo-gate option a person must fix; says which, what it was, and what it may be. */
export class EchoGateOptionError extends Error {
  override readonly name = 'EchoGateOptionError';
}

const LIMITS: Record<keyof EchoGateOptions, readonly [min: number, max: number]> = {
  margin: [1, 4],
  peakMargin: [0, 4],
  typicalMs: [1, 600_000],
  forgetMs: [1, 3_600_000],
  floor: [0, 1],
  attackMs: [0, 10_000],
  releaseMs: [1, 600_000],
  idleReleaseMs: [1, 3_600_000],
  minOverMs: [0, 2000],
  bridgeMs: [0, 500],
  tailMs: [0, 5000],
  warmUpMs: [0, 10_000],
  settleMs: [0, 60_000],
  coldMargin: [1, 8],
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
      `echo gate coldMargin (${options.coldMargin}) is under margin (${options.margin}); the gate is never surer of a leak it has barely heard, so make coldMargin at least margin.`,
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

/** The syllable-sized rise and fall of the held level the gate is in, while it learns. */
export interface Bump {
  /** The highest held level so far in it, 0..1. */
  readonly top: number;
  /** When it began, in milliseconds. */
  readonly sinceMs: number;
  /** True if anything in it was over the bar or not the assistant's, so it must not teach. */
  readonly spoilt: boolean;
}

/** Everything the gate knows, as immutable plain data; make one with `startEchoGate`. */
export interface EchoGateState {
  readonly options: Readonly<EchoGateOptions>;
  /** The loudest level the leak has held for `minOverMs` lately, 0..1: fast up, slow down. */
  readonly peak: number;
  /** The leak's typical syllable peak, 0..1: its bumps' tops, averaged over `typicalMs`. */
  readonly typical: number;
  /** Assistant audio heard so far, in milliseconds, capped at `settleMs`; fades when silent. */
  readonly heardMs: number;
  /** The previous frame's time, or null before the first frame. */
  readonly lastAtMs: number | null;
  /** The last frame in which the assistant was audible, or null if it never was. */
  readonly lastAudibleAtMs: number | null;
  /** The frames of the last `minOverMs`, oldest first. */
  readonly recent: readonly HeardFrame[];
  /** The last frame that was over the bar, or null; learning waits `bridgeMs` after it. */
  readonly lastOverAtMs: number | null;
  /** The bump being measured. */
  readonly bump: Bump;
  /** True once a barge-in was reported for this stretch of assistant audio; cleared when the audio stops. */
  readonly interrupted: boolean;
  /** The leak as noted at the last checkpoint and the one before, with the time of the last. */
  readonly checkpoint: {
    readonly peak: number;
    readonly typical: number;
    readonly previousPeak: number;
    readonly previousTypical: number;
    readonly atMs: number | null;
  };
}

/** One microphone frame as the level meter reports it. */
export interface EchoGateFrame {
  /** Peak |sample| over the frame (about 10 ms) of the echo-cancelled microphone stream, 0..1. */
  level: number;
  /** When the frame ended, in milliseconds on any clock that only goes forward. */
  atMs: number;
  /** Whether assistant audio was playing during the frame. */
  assistantAudible: boolean;
}

/** A gate that has heard nothing: no leak learned, so it warms up on the first assistant audio. */
export function startEchoGate(options: Partial<EchoGateOptions> = {}): EchoGateState {
  return {
    options: Object.freeze(resolveEchoGate(options)),
    peak: 0,
    typical: 0,
    heardMs: 0,
    lastAtMs: null,
    lastAudibleAtMs: null,
    recent: [],
    lastOverAtMs: null,
    bump: { top: 0, sinceMs: 0, spoilt: true },
    interrupted: false,
    checkpoint: { peak: 0, typical: 0, previousPeak: 0, previousTypical: 0, atMs: null },
  };
}

/** The margin over the leak in force after `heardMs` of assistant audio: `coldMargin` easing to `margin`. */
function marginAfter(options: Readonly<EchoGateOptions>, heardMs: number): number {
  const span = options.settleMs - options.warmUpMs;
  const trust = span <= 0 ? 1 : Math.min(1, Math.max(0, (heardMs - options.warmUpMs) / span));
  return options.coldMargin + (options.margin - options.coldMargin) * trust;
}

/** The level, 0..1, a person must hold over right now. */
export function barOf(state: EchoGateState): number {
  const { options } = state;
  const cold = marginAfter(options, state.heardMs) / options.margin;
  return Math.max(options.floor, cold * Math.max(options.margin * state.typical, options.peakMargin * state.peak));
}

/** Moves `from` toward `to` as a one-pole filter with time constant `tauMs` would over `dtMs`. */
function approach(from: number, to: number, dtMs: number, tauMs: number): number {
  if (tauMs <= 0) return to;
  return from + (to - from) * (1 - Math.exp(-dtMs / tauMs));
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
 * The level the remembered frames held throughout, letting the lowest frames off for up to
 * `bridgeMs` in all (a voice's peak wobbles from frame to frame); 0 until they cover `spanMs`.
 */
function heldLevel(recent: readonly HeardFrame[], spanMs: number, bridgeMs: number): number {
  let covered = 0;
  for (const f of recent) covered += f.ms;
  if (covered < spanMs || recent.length === 0) return 0;
  const lowestFirst = [...recent].sort((a, b) => a.level - b.level);
  let forgiven = 0;
  for (const f of lowestFirst) {
    if (forgiven + f.ms > bridgeMs) return f.level;
    forgiven += f.ms;
  }
  return 0;
}

function checkFrame(frame: EchoGateFrame): void {
  if (!Number.isFinite(frame.level) || frame.level < 0) {
    throw new RangeError(`echo gate frame level is ${String(frame.level)}; it must be a peak level from 0 to 1.`);
  }
  if (!Number.isFinite(frame.atMs)) {
    throw new RangeError(`echo gate frame atMs is ${String(frame.atMs)}; it must be a time in milliseconds.`);
  }
}

const BUMP_DROP = 0.6;
const LONGEST_BUMP_MS = 300;

/**
 * Hears one frame and returns the next state, and whether this frame completed a barge-in.
 */
export function hearFrame(
  state: EchoGateState,
  frame: EchoGateFrame,
): { state: EchoGateState; bargeIn: boolean } {
  checkFrame(frame);
  const { options } = state;
  const level = Math.min(1, frame.level);
  const dtMs = state.lastAtMs === null ? 0 : Math.max(0, frame.atMs - state.lastAtMs);
  const lastAudibleAtMs = frame.assistantAudible ? frame.atMs : state.lastAudibleAtMs;
  const listening = lastAudibleAtMs !== null && frame.atMs - lastAudibleAtMs <= options.tailMs;
  const recent = remember(state.recent, { atMs: frame.atMs, level, ms: Math.min(dtMs, LONGEST_FRAME_MS) }, options.minOverMs);
  const moved = { ...state, lastAtMs: frame.atMs, lastAudibleAtMs, recent };
  const spoilt = { top: 0, sinceMs: frame.atMs, spoilt: true };

  if (!listening) {
    const fade = Math.exp(-dtMs / options.idleReleaseMs);
    return {
      bargeIn: false,
      state: {
        ...moved,
        peak: state.peak * fade,
        typical: state.typical * fade,
        heardMs: state.heardMs * Math.exp(-dtMs / options.forgetMs),
        lastOverAtMs: null,
        bump: spoilt,
        interrupted: false,
      },
    };
  }

  if (state.interrupted) return { bargeIn: false, state: { ...moved, bump: spoilt } };

  const held = heldLevel(recent, options.minOverMs, options.bridgeMs);

  if (state.heardMs < options.warmUpMs) {
    if (!frame.assistantAudible) return { bargeIn: false, state: { ...moved, bump: spoilt } };
    const peak = Math.max(state.peak, held);
    return {
      bargeIn: false,
      state: {
        ...moved,
        peak,
        typical: peak,
        heardMs: state.heardMs + dtMs,
        bump: spoilt,
        checkpoint: { peak, typical: peak, previousPeak: peak, previousTypical: peak, atMs: frame.atMs },
      },
    };
  }

  const bar = barOf(state);
  if (held > bar) {
    const peak = Math.min(state.peak, state.checkpoint.previousPeak);
    const typical = Math.min(state.typical, state.checkpoint.previousTypical);
    return {
      bargeIn: true,
      state: {
        ...moved,
        peak,
        typical,
        lastOverAtMs: null,
        bump: spoilt,
        interrupted: true,
        checkpoint: { peak, typical, previousPeak: peak, previousTypical: typical, atMs: frame.atMs },
      },
    };
  }

  const lastOverAtMs = level > bar ? frame.atMs : state.lastOverAtMs;
  const quiet = lastOverAtMs === null || frame.atMs - lastOverAtMs > options.bridgeMs;
  const learning = frame.assistantAudible && (quiet || (globalThis as unknown as { NOFREEZE?: boolean }).NOFREEZE === true);
  if (!learning) return { bargeIn: false, state: { ...moved, lastOverAtMs, bump: { ...state.bump, spoilt: true } } };

  const peak = approach(state.peak, held, dtMs, held > state.peak ? options.attackMs : options.releaseMs);
  let typical = state.typical;
  let bump: Bump = state.bump;
  if (held >= bump.top) {
    bump = { ...bump, top: held };
  } else if (held < bump.top * BUMP_DROP || frame.atMs - bump.sinceMs >= LONGEST_BUMP_MS) {
    if (!bump.spoilt && bump.top * options.margin > options.floor) {
      typical = approach(typical, bump.top, frame.atMs - bump.sinceMs, options.typicalMs);
    }
    bump = { top: held, sinceMs: frame.atMs, spoilt: false };
  }
  const due = state.checkpoint.atMs === null || frame.atMs - state.checkpoint.atMs >= CHECKPOINT_MS;
  return {
    bargeIn: false,
    state: {
      ...moved,
      peak,
      typical,
      heardMs: Math.min(options.settleMs, state.heardMs + dtMs),
      lastOverAtMs,
      bump,
      checkpoint: due
        ? { peak, typical, previousPeak: state.checkpoint.peak, previousTypical: state.checkpoint.typical, atMs: frame.atMs }
        : state.checkpoint,
    },
  };
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

  /** The level a person must be over right now, 0..1. */
  get bar(): number {
    return barOf(this.#state);
  }

  /** The state as plain data, for inspection or to carry into a pure caller. */
  get state(): EchoGateState {
    return this.#state;
  }
}
