/**
 * The echo gate's options: what each means, its default, the range it accepts, and the one merge
 * that checks them. `floor` is the lowest the bar goes, which is where it stays on headphones.
 */
import { resolveOptions } from '../../../common/options';
import type { Limits, Relation } from '../../../common/options';

/** How the gate learns the leak and decides that a person is talking. */
export interface EchoGateOptions {
  /**
   * How far over the leak's peak level a person must stay, as a factor. 1.375 reproduces the
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
   * The share of the remembered assistant audio whose sustained level lies over the leak's peak level,
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
   * The loudest sustained level taken as leak, as a factor over the leak's current peak level; a louder
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
   * the loudest sustained level of an answer runs about 1.13× its peak level; 1.2 keeps a person at full
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
   * How long, in milliseconds, a person must stay over the bar before it counts. Longer than a click
   * or a single loud frame, shorter than the first syllable of a word. Default 40.
   */
  minOverMs: number;
  /**
   * How much dip under the bar, in milliseconds, a run over it forgives: one frame's worth at 10 ms
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
};

const RELATIONS: readonly Relation<EchoGateOptions>[] = [
  { option: 'coldMargin', is: 'at least', than: 'margin', because: 'a gate is never surer of a leak it has barely heard' },
  { option: 'bridgeMs', is: 'under', than: 'minOverMs', because: 'a run over the bar that forgives its whole length would count silence' },
];

/**
 * Merges partial options over `ECHO_GATE` and checks them. Throws `OptionError` naming the field
 * (`echoGate.<field>`), the value and the allowed range, or the field that disagrees with another.
 */
export function resolveEchoGate(partial: Partial<EchoGateOptions> = {}): EchoGateOptions {
  return resolveOptions('echoGate', ECHO_GATE, partial, LIMITS, RELATIONS);
}
