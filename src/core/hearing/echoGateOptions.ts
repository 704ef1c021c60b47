/**
 * The echo gate's options: what each means and the range it accepts. The figures the page runs are
 * `HEARING.gate` in `tuning.ts`.
 */
import { resolveOptions } from '../../../common/options';
import type { Limits, Relation } from '../../../common/options';

/** How the gate learns the leak and decides that a person is talking; the page's figures are in `tuning.ts`. */
export interface EchoGateOptions {
  /** How far over the leak's peak level a person must stay, as a factor. */
  margin: number;
  /** The lowest the bar ever goes, as a level: where it stays on headphones. */
  floor: number;
  /** The share of the remembered voice whose sustained level lies over the leak's peak level, 0..1. */
  peakShare: number;
  /** The least voice, ms, that lies over the peak level however little has been heard, so a few frames cannot decide it. */
  peakMinMs: number;
  /** Time constant, ms of voice, with which what the gate learned gives way to what it hears now. */
  memoryMs: number;
  /** The loudest sustained level taken as leak, as a factor over the leak's current peak level; a louder frame teaches nothing. */
  riseLimit: number;
  /**
   * How far the leak's loudest moments run over its peak level, as a factor. When margin × peak level
   * would be over what the microphone can read (`fullScale`), a person at full scale still counts,
   * but only while peak level × headroom stays under full scale.
   */
  headroom: number;
  /** Time constant, ms, with which what was learned fades while the voice is silent. */
  idleForgetMs: number;
  /** How long, ms, a person must stay over the bar before it counts. */
  minOverMs: number;
  /** How much dip under the bar, ms, a run over it forgives. */
  bridgeMs: number;
  /** How long after the voice stops, ms, the gate still listens for a person over the bar. */
  tailMs: number;
  /**
   * How much voice, ms, a gate that has learned too little (under `settleMs`) hears before it
   * reports anything, at the start of each answer: all of it is taken as leak.
   */
  warmUpMs: number;
  /** How much remembered voice, ms, it takes to trust what was learned; until then the margin eases from `coldMargin`. */
  settleMs: number;
  /** The margin right after the warm-up, as a factor, easing to `margin` over `settleMs`. */
  coldMargin: number;
  /** The margin is widened by this factor when the voice starts after a silence, easing back over `turnSettleMs`. */
  turnMargin: number;
  /** Ms of voice over which `turnMargin` eases back to 1. */
  turnSettleMs: number;
  /**
   * When frames carry the voice's own output level (`assistantLevel`), how far back, ms, the loudest
   * output is taken as what the microphone may be hearing now (output and input latency, the room).
   */
  referenceMs: number;
  /** The quietest output, as a level, whose leak is learned from: under it the leak's share is mostly noise. */
  referenceMin: number;
  /** The level from which the microphone is taken to be at full scale: a clipping capture's peak meter reads 1 or a hair under. */
  fullScale: number;
  /** The longest stretch, ms, one frame may stand for: a late frame from a stalled meter is not a sustained sound. */
  longestFrameMs: number;
  /** How often, ms, the gate notes what it learned, so a barge-in can hand back the leak from before the person began. */
  checkpointMs: number;
}

const LIMITS: Limits<EchoGateOptions> = {
  margin: { min: 1, max: 4 },
  floor: { min: 0, max: 1 },
  peakShare: { min: 0.001, max: 0.5 },
  peakMinMs: { min: 0, max: 10_000 },
  memoryMs: { min: 100, max: 600_000 },
  riseLimit: { min: 1, max: 4 },
  headroom: { min: 1, max: 4 },
  idleForgetMs: { min: 1, max: 86_400_000 },
  minOverMs: { min: 10, max: 2000 },
  bridgeMs: { min: 0, max: 500 },
  tailMs: { min: 0, max: 5000 },
  warmUpMs: { min: 0, max: 10_000 },
  settleMs: { min: 0, max: 60_000 },
  coldMargin: { min: 1, max: 8 },
  turnMargin: { min: 1, max: 4 },
  turnSettleMs: { min: 0, max: 60_000 },
  referenceMs: { min: 10, max: 2000 },
  referenceMin: { min: 0, max: 1 },
  fullScale: { over: 0, max: 1 },
  longestFrameMs: { min: 1, max: 1000 },
  checkpointMs: { min: 1, max: 10_000 },
};

const RELATIONS: readonly Relation<EchoGateOptions>[] = [
  { option: 'coldMargin', is: 'at least', than: 'margin', because: 'a gate is never surer of a leak it has barely heard' },
  { option: 'bridgeMs', is: 'under', than: 'minOverMs', because: 'a run over the bar that forgives its whole length would count silence' },
];

/**
 * Checks a gate's options. Throws `OptionError` naming the field (`echoGate.<field>`), the value
 * and the allowed range, or the field that disagrees with another.
 */
export function checkEchoGate(options: EchoGateOptions): EchoGateOptions {
  return resolveOptions('echoGate', options, {}, LIMITS, RELATIONS);
}
