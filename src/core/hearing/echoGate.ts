/**
 * Barge-in from the microphone level alone: hears one frame at a time and says when a person has
 * talked over the assistant.
 *
 * While the assistant is audible the recogniser is stopped (it opens its own capture, which our echo
 * cancellation does not touch), so the only way to hear a person talk over the assistant is the level
 * of our own echo-cancelled stream. That stream still hears the speaker, and on a laptop the leak
 * clears any fixed threshold worth having. So the gate learns the leak (`leakPicture.ts`) and a
 * person has to stay clearly over it (`echoGateBar.ts`) for `minOverMs`, not for one click.
 *
 * Pure: the state is immutable plain data and time is the frame's `atMs`, never read.
 */
import { barFor, expectedLeak, leakOf, RATIO_SCALE, ratioOf, referenceLevel } from './echoGateBar';
import { checkEchoGate } from './echoGateOptions';
import type { EchoGateOptions } from './echoGateOptions';
import type { EchoGateState, HeardFrame } from './echoGateState';
import { EMPTY_PICTURE, forget, learn } from './leakPicture';

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

/** A gate that has heard nothing: no leak learned, so it warms up on the first assistant audio. */
export function startEchoGate(options: EchoGateOptions): EchoGateState {
  return {
    options: Object.freeze(checkEchoGate(options)),
    leak: EMPTY_PICTURE,
    turnMs: 0,
    lastAtMs: null,
    lastAudibleAtMs: null,
    recent: [],
    interrupted: false,
    ratio: EMPTY_PICTURE,
    reference: [],
    checkpoint: { last: EMPTY_PICTURE, previous: EMPTY_PICTURE, atMs: null },
  };
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
 * The level the remembered frames sustained throughout, letting the lowest of them off for up to
 * `bridgeMs` in all; null until they cover `spanMs`.
 */
function sustainedLevel(recent: readonly HeardFrame[], spanMs: number, bridgeMs: number): number | null {
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

function checkFrame(frame: EchoGateFrame): void {
  if (!Number.isFinite(frame.level) || frame.level < 0) {
    throw new RangeError(`echo gate frame level is ${String(frame.level)}; it must be a peak level from 0 to 1.`);
  }
  if (!Number.isFinite(frame.atMs)) {
    throw new RangeError(`echo gate frame atMs is ${String(frame.atMs)}; it must be a time in milliseconds.`);
  }
}

/**
 * Lets one frame pass that says nothing of a person (the canceller's own misfit of the leak, see
 * `GatePairFrame.echoLeft`): time goes on, the frame counts as a dip in what the gate sustains, and
 * nothing is learned from it. A gate that heard it as sound would take the misfit for a person; one
 * that learned from it would set its bar by it.
 */
export function hearNothing(state: EchoGateState, frame: EchoGateFrame): EchoGateState {
  checkFrame(frame);
  const { ms, lastAudibleAtMs, listening, reference } = passTime(state, frame);
  // Out of hearing, a silent frame is what any frame is: the gate forgets and re-arms.
  if (!listening) return hearFrame(state, { ...frame, level: 0 }).state;
  const recent = remember(state.recent, { atMs: frame.atMs, level: 0, ms }, state.options.minOverMs);
  return { ...state, lastAtMs: frame.atMs, lastAudibleAtMs, recent, reference };
}

/**
 * What a frame moves on, however it is heard: the time since the last one (`dtMs`) and the time it
 * stands for (`ms`, at most `longestFrameMs`), when the assistant was last audible, whether the
 * gate is listening, and the output levels kept.
 */
function passTime(state: EchoGateState, frame: EchoGateFrame) {
  const dtMs = state.lastAtMs === null ? 0 : Math.max(0, frame.atMs - state.lastAtMs);
  const lastAudibleAtMs = frame.assistantAudible ? frame.atMs : state.lastAudibleAtMs;
  return {
    dtMs,
    ms: Math.min(dtMs, state.options.longestFrameMs),
    lastAudibleAtMs,
    listening: lastAudibleAtMs !== null && frame.atMs - lastAudibleAtMs <= state.options.tailMs,
    reference: frame.assistantLevel === undefined ? [] : keepReference(state.reference, frame.atMs, frame.assistantLevel, state.options.referenceMs),
  };
}

/**
 * Hears one frame and returns the next state, and whether this frame completed a barge-in.
 *
 * Contract:
 * - A barge-in is the level sustained over the bar for `minOverMs` (forgiving `bridgeMs` of dips). It is
 *   reported once per stretch of assistant audio, and only while the assistant is audible or within
 *   `tailMs` after it stopped; the gate re-arms after `tailMs` of silence. A person talking while
 *   the assistant is silent is the recogniser's business, not the gate's.
 * - Only assistant-audible frames teach the leak, none while any frame of the last `minOverMs` was
 *   over the bar, and none sustained louder than `riseLimit` times the peak level: a person talking over
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
  const { dtMs, ms, lastAudibleAtMs, listening, reference } = passTime(state, frame);
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

  const sustained = sustainedLevel(recent, options.minOverMs, options.bridgeMs);
  /** The ratio this frame would teach, when the output is loud enough to learn from. */
  const ratioHeard = output !== null && output >= options.referenceMin ? Math.min(1, (sustained ?? level) / output / RATIO_SCALE) : null;
  if (warmingUp(state)) {
    if (!frame.assistantAudible) return { bargeIn: false, state: moved };
    const leak = learn(state.leak, sustained ?? level, ms, options.memoryMs);
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
  if (sustained !== null && sustained > bar) {
    const leak = state.checkpoint.previous;
    return {
      bargeIn: true,
      state: { ...moved, leak, interrupted: true, checkpoint: { last: leak, previous: leak, atMs: frame.atMs } },
    };
  }

  const suspect = recent.some((f) => f.level > bar);
  if (!frame.assistantAudible || sustained === null || suspect) return { bargeIn: false, state: moved };
  // A frame teaches only what is plausible as leak: not much louder than the leak's peak level, and,
  // judged by the output, not much more of it than the share the room gives back.
  const plausibleLevel = sustained <= options.riseLimit * peak;
  const plausibleRatio = ratioHeard !== null && RATIO_SCALE * ratioHeard <= options.riseLimit * Math.max(ratioOf(state), options.referenceMin);
  if (!plausibleLevel && !plausibleRatio) return { bargeIn: false, state: moved };

  const leak = plausibleLevel ? learn(state.leak, sustained, ms, options.memoryMs) : state.leak;
  const ratio = plausibleRatio ? learn(state.ratio, ratioHeard, ms, options.memoryMs) : state.ratio;
  const due = state.checkpoint.atMs === null || frame.atMs - state.checkpoint.atMs >= options.checkpointMs;
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
 * What the gate learned carries over from answer to answer in the same room, fading only slowly in
 * silence, so the second answer starts with a good bar; the very first one cannot, so after this
 * warm-up the bar is widened until the gate has heard `settleMs` (see `echoGateBar.ts`).
 */
function warmingUp(state: EchoGateState): boolean {
  const { options, leak, turnMs } = state;
  return leak.heardMs < options.warmUpMs || (leak.heardMs < options.settleMs && turnMs < options.warmUpMs);
}

/**
 * The gate after the voice carried on past what it heard (a backchannel, a cough: `yielding.ts`):
 * armed again at once for the rest of this stretch of audio, as if the sound had not been, with
 * what it had learned of the leak kept.
 */
export function listenAgain(state: EchoGateState): EchoGateState {
  return { ...state, interrupted: false, recent: [] };
}
