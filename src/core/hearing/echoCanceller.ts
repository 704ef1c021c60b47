/**
 * An echo canceller for the level meter: takes the assistant's own voice out of the microphone,
 * sample for sample, so the echo gate can hear a person's soft start ("y-" of "yeah") under a leak
 * it would otherwise have to stay over. Run by the level meter worklet on the audio thread, apart
 * from it so it can be tested in Node.
 *
 * Both the microphone and the player's output (the reference, which the worklet has sample-aligned
 * on its second input) are brought to 16 kHz (a low-pass under 8 kHz ahead of the decimation). A
 * normalised LMS filter of `taps` samples learns the path from the output to the microphone — the
 * latency of the capture, the speaker, the direct sound and the early reflections — and its estimate
 * of the leak is taken from the microphone. What is left (the residual) is the person, the noise,
 * and the room's late reverberation, which a filter this short cannot reach.
 *
 * A canceller that has not learned the path, or has lost it, would hand the gate a residual as loud
 * as the leak and then suddenly quieter or louder; so each frame says its residual's peak only while
 * the canceller is trusted: the leak it removes (the echo return loss enhancement, over the output's
 * recent audio) is at least `trustDb`, until it falls under `distrustDb` — or until one frame shows
 * the path lost (its residual louder than the microphone, see `#lostPath`), after which trust is
 * earned again from nothing. A capture starved of CPU hands the graph a stretch of silence and then
 * the sound it held back, later than before; the filter's estimate is then the leak as it no longer
 * is, and the residual the leak itself, which the second gate's low bar would take for a person.
 *
 * A person talking over the voice is not the voice's echo, and neither is a clatter: the filter
 * learns from them no more than from a sample of leak, because it learns from the residual clipped
 * at its usual size (a robust NLMS), and the enhancement is measured only over residual of about
 * that size. It holds no double-talk detector that stops it learning: on the bench's room each
 * one tried (the residual over the filter's estimate, the microphone over the output's usual
 * share) took the room's own reverberation for a person, held the filter, and left it cancelling less.
 */
import { checkOption, resolveOptions } from '../../../common/options';
import type { Limits, Relation } from '../../../common/options';
import { SPEECH_RATE_HZ } from '../../../common/voiceActivity';
import { BoxDecimator } from './speechFrames';
import type { CancelledFrame, Canceller } from './canceller';

/** How the canceller learns and when it is trusted. */
export interface EchoCancellerOptions {
  /**
   * The filter's length in 16 kHz samples: the longest path from the output to the microphone it
   * can learn. 1280 is 80 ms: the capture latency of one AudioContext (about 22 ms in Chromium) and
   * the room's reflections as they build up (to their loudest some 40 ms after the direct sound). At
   * 48 ms the build-up was left in the residual and burst out of it after the loudest syllables.
   * Longer paths (a Bluetooth headset) are never trusted, and the gate judges the microphone as it
   * comes. Default 1280.
   */
  taps: number;
  /** The NLMS step, 0..1: larger learns faster and settles noisier. Default 0.2. */
  step: number;
  /**
   * How fast, in ms, the size of residual the filter learns from may grow, e-fold: slow enough that
   * a brief loud sound (a clatter, a cough, a syllable) barely moves it. Default 150.
   */
  robustMs: number;
  /** The enhancement, in dB, from which the residual is trusted. Default 9. */
  trustDb: number;
  /** The enhancement, in dB, under which a trusted canceller is trusted no more. Default 5. */
  distrustDb: number;
  /** Time constant, in ms of output audio, of the powers the enhancement is measured from. Default 400. */
  powerMs: number;
  /** The quietest output power (mean square at 16 kHz) measured or learned from. Default 1e-6. */
  quietPower: number;
  /**
   * The correlation, either way, between a frame's residual and its estimate from which the frame
   * is the filter's own misfit of the leak (`EchoCanceller#misfit`), 0..1, or over 1 for never:
   * between what a fitted filter or a person leaves and what a drifted syllable does (docs/hearing.md
   * says how; docs/performance.md has the figures, which `npm run bench -- capture-lag` measures).
   * Default 0.3.
   */
  misfitCorrelation: number;
}

/** The defaults, each explained on its field in `EchoCancellerOptions`. */
const ECHO_CANCELLER: Readonly<EchoCancellerOptions> = Object.freeze({
  taps: 1280,
  step: 0.2,
  robustMs: 150,
  trustDb: 9,
  distrustDb: 5,
  powerMs: 400,
  quietPower: 1e-6,
  misfitCorrelation: 0.3,
});

const LIMITS: Limits<EchoCancellerOptions> = {
  taps: { min: 16, max: 8192, whole: true },
  step: { over: 0, max: 1 },
  robustMs: { over: 0 },
  trustDb: {},
  distrustDb: {},
  powerMs: { over: 0 },
  quietPower: { over: 0 },
  misfitCorrelation: { over: 0 },
};
const RELATIONS: readonly Relation<EchoCancellerOptions>[] = [{ option: 'distrustDb', is: 'under', than: 'trustDb' }];

/** Merges partial options over `ECHO_CANCELLER`; throws `OptionError` naming the option to fix (`echoCanceller.<field>`). */
export function resolveEchoCanceller(partial: Partial<EchoCancellerOptions> = {}): EchoCancellerOptions {
  return resolveOptions('echoCanceller', ECHO_CANCELLER, partial, LIMITS, RELATIONS);
}

/** How far over its usual size the residual is learned from, as a factor (Gänsler et al., 2000). */
const ROBUST_CLIP = 1.1;
/** E|ψ(e)| for a Gaussian residual clipped at `ROBUST_CLIP`: keeps the usual size near the residual's spread. */
const ROBUST_NORM = 0.60655;
/** How far over its usual size a residual sample is someone else's, as a factor: past the leak's own swings. */
const OUTLIER = 4;
/** The whitening filter's coefficient, 1 - a z⁻¹: tilts speech's spectrum about flat. */
const PRE_EMPHASIS = 0.9;
/** Where the residual's usual size starts: a leak's, not a silent room's, so the first leak is learned at once. */
const ROBUST_START = 0.01;
/** The share of a frame's microphone energy the estimate must carry for its misfit to be what was heard. */
const MISFIT_SHARE = 0.25;

/** The anti-aliasing low-pass's corner, in Hz: under 8 kHz, over the speech band a leak is heard in. */
const ANTI_ALIAS_HZ = 7000;

/** One section of a Butterworth low-pass (RBJ's biquad), run a sample at a time. */
class LowPass {
  readonly #b0: number;
  readonly #b1: number;
  readonly #a1: number;
  readonly #a2: number;
  #x1 = 0;
  #x2 = 0;
  #y1 = 0;
  #y2 = 0;

  constructor(rateHz: number, cornerHz: number, q: number) {
    const w = (2 * Math.PI * cornerHz) / rateHz;
    const alpha = Math.sin(w) / (2 * q);
    const a0 = 1 + alpha;
    this.#b0 = (1 - Math.cos(w)) / 2 / a0;
    this.#b1 = (1 - Math.cos(w)) / a0;
    this.#a1 = (-2 * Math.cos(w)) / a0;
    this.#a2 = (1 - alpha) / a0;
  }

  filter(x: number): number {
    const y = this.#b0 * (x + this.#x2) + this.#b1 * this.#x1 - this.#a1 * this.#y1 - this.#a2 * this.#y2;
    this.#x2 = this.#x1;
    this.#x1 = x;
    this.#y2 = this.#y1;
    this.#y1 = y;
    return y;
  }
}

/**
 * Brings one signal to 16 kHz, a sample at a time: a fourth-order Butterworth low-pass at
 * `ANTI_ALIAS_HZ`, then the mean of the input each output spans. A box filter alone lets the 8–16 kHz
 * band fold back, and folded sound is not the output's echo any filter can learn: it capped the
 * cancellation at about 12 dB.
 */
class Decimator {
  readonly #sections: readonly LowPass[];
  readonly #box: BoxDecimator;

  constructor(rateHz: number) {
    // A fourth-order Butterworth as two sections, Q = 1 / (2 cos(π/8)) and 1 / (2 cos(3π/8)).
    const corner = Math.min(ANTI_ALIAS_HZ, 0.45 * rateHz);
    this.#sections = [new LowPass(rateHz, corner, 0.5412), new LowPass(rateHz, corner, 1.3066)];
    this.#box = new BoxDecimator(rateHz);
  }

  /** Hears one input sample; returns the 16 kHz sample it completes, or null. */
  push(input: number): number | null {
    let sample = input;
    for (const section of this.#sections) sample = section.filter(sample);
    return this.#box.push(sample);
  }
}

export class EchoCanceller implements Canceller {
  readonly options: EchoCancellerOptions;
  readonly frameSamples: number;
  readonly #mic: Decimator;
  readonly #ref: Decimator;
  /** The filter, newest tap first. */
  readonly #weights: Float64Array;
  /** The reference's last `taps` samples, written twice (at i and i + taps) so a window is one run. */
  readonly #history: Float64Array;
  /** The same, whitened (`PRE_EMPHASIS`): what the filter learns from. */
  readonly #whitened: Float64Array;
  #whiteEnergy = 0;
  #lastRef = 0;
  #lastResidual = 0;
  #at = 0;
  /** Sum of squares of the reference samples in the window. */
  #energy = 0;
  /** Powers over the output's recent audio, for the enhancement. */
  #micPower = 0;
  #residualPower = 0;
  #trusted = false;
  /** The residual's usual size, for the robust update. */
  #scale = ROBUST_START;
  readonly #scaleKeep: number;
  /** The frame being measured: input samples in it, and its residual peak so far. */
  #filled = 0;
  #peak = 0;
  #lastEstimate = 0;
  /** The frame's whitened residual against its whitened estimate: their product's sum, and each one's energy. */
  #misfitCross = 0;
  #misfitEstimate = 0;
  #misfitResidual = 0;
  /** The frame's sums of squares, over its samples with output sounding: microphone, estimate, residual. */
  #frameMic = 0;
  #frameEstimate = 0;
  #frameResidual = 0;
  readonly #powerAlpha: number;

  constructor(inputRateHz: number, frameSamples: number, partial: Partial<EchoCancellerOptions> = {}) {
    checkOption('echoCanceller.inputRateHz', inputRateHz, { min: SPEECH_RATE_HZ });
    checkOption('echoCanceller.frameSamples', frameSamples, { min: 1, whole: true });
    this.options = resolveEchoCanceller(partial);
    this.frameSamples = frameSamples;
    this.#mic = new Decimator(inputRateHz);
    this.#ref = new Decimator(inputRateHz);
    this.#weights = new Float64Array(this.options.taps);
    this.#history = new Float64Array(2 * this.options.taps);
    this.#whitened = new Float64Array(2 * this.options.taps);
    this.#powerAlpha = 1 - Math.exp(-1000 / (this.options.powerMs * SPEECH_RATE_HZ));
    // Growing by at most (ROBUST_CLIP / ROBUST_NORM - 1) of the remainder each sample: e-fold per `robustMs`.
    this.#scaleKeep = 1 - 1000 / (this.options.robustMs * SPEECH_RATE_HZ * (ROBUST_CLIP / ROBUST_NORM - 1));
  }

  /** Whether the residual is trusted now. */
  get trusted(): boolean {
    return this.#trusted;
  }

  /** The leak removed, in dB, over the output's recent audio (0 before any). */
  get enhancementDb(): number {
    return this.#residualPower <= 0 || this.#micPower <= 0 ? 0 : 10 * Math.log10(this.#micPower / this.#residualPower);
  }

  /**
   * Hears one block: `mic` and `ref` are the microphone's and the output's first channels (either
   * may be missing: silence), `blockLength` samples whose first is `firstSample` on the audio clock.
   * Calls `emit` for each frame of `frameSamples` the block completes, at the same samples as the
   * level meter's own frames.
   */
  push(mic: Float32Array | undefined, ref: Float32Array | undefined, blockLength: number, firstSample: number, emit: (frame: CancelledFrame) => void): void {
    for (let i = 0; i < blockLength; i++) {
      // The two decimators are alike and fed alike, so they complete their samples together.
      const heard = this.#mic.push(mic?.[i] ?? 0);
      const played = this.#ref.push(ref?.[i] ?? 0);
      if (heard !== null && played !== null) this.#hear(heard, played);
      this.#filled += 1;
      if (this.#filled === this.frameSamples) {
        if (this.#lostPath()) {
          this.#trusted = false;
          // Trust is earned again from nothing: the enhancement measured so far was of the old path.
          this.#residualPower = this.#micPower;
        }
        emit({ residual: this.#trusted ? this.#peak : null, echoLeft: this.#trusted && this.#misfit(), endSample: firstSample + i + 1 });
        this.#filled = 0;
        this.#peak = 0;
        this.#misfitCross = 0;
        this.#misfitEstimate = 0;
        this.#misfitResidual = 0;
        this.#frameMic = 0;
        this.#frameEstimate = 0;
        this.#frameResidual = 0;
      }
    }
  }

  /**
   * Whether the frame just heard says the filter no longer matches the path: the output's estimate
   * was most of what the microphone heard (so a person or the room's noise cannot be what moved it),
   * and taking it out left more than there was. A person talking adds to the microphone and leaves
   * the residual under it; a filter that has lost the path (a capture that dropped samples and came
   * back later, a moved speaker) takes out a leak that is not there and adds its own.
   */
  #lostPath(): boolean {
    const quiet = this.options.quietPower * this.frameSamples;
    return this.#frameEstimate > quiet && 2 * this.#frameEstimate >= this.#frameMic && this.#frameResidual > this.#frameMic;
  }

  /**
   * Whether the frame just heard is the filter's misfit of the leak rather than anything new: the
   * estimate carried at least `MISFIT_SHARE` of the microphone's energy, and the residual (whitened,
   * as the filter learns it) follows the estimate with a correlation of at least `misfitCorrelation`
   * either way. A filter that fits leaves a residual uncorrelated with its estimate, and so does a
   * person, who is not the output's echo; one that has drifted on a loud syllable (the path moved a
   * little, the voice's spectrum changed faster than it learns) leaves the leak's own shape: too
   * much taken out, or too little. Its enhancement over `powerMs` can stay well over `trustDb` while
   * one syllable's residual is nearly as loud as the microphone, which the second gate's low bar
   * would take for a person; `#lostPath` catches the grosser case, a residual louder than the microphone.
   */
  #misfit(): boolean {
    const quiet = this.options.quietPower * this.frameSamples;
    if (!(this.#frameEstimate > quiet && this.#frameEstimate >= MISFIT_SHARE * this.#frameMic)) return false;
    const correlation = this.#misfitCross / Math.sqrt(this.#misfitEstimate * this.#misfitResidual + Number.MIN_VALUE);
    return Math.abs(correlation) >= this.options.misfitCorrelation;
  }

  /** One 16 kHz sample of each: cancels, measures, and learns. */
  #hear(mic: number, ref: number): void {
    const { taps, step, quietPower } = this.options;
    const history = this.#history;
    const whitened = this.#whitened;
    const weights = this.#weights;
    // The windows, newest first, are history[at .. at + taps) and whitened[at .. at + taps).
    this.#at = this.#at === 0 ? taps - 1 : this.#at - 1;
    const at = this.#at;
    const leaving = history[at] ?? 0;
    this.#energy = Math.max(0, this.#energy + ref * ref - leaving * leaving);
    history[at] = ref;
    history[at + taps] = ref;
    const white = ref - PRE_EMPHASIS * this.#lastRef;
    this.#lastRef = ref;
    const whiteLeaving = whitened[at] ?? 0;
    this.#whiteEnergy = Math.max(0, this.#whiteEnergy + white * white - whiteLeaving * whiteLeaving);
    whitened[at] = white;
    whitened[at + taps] = white;

    let estimate = 0;
    for (let k = 0; k < taps; k++) estimate += (weights[k] as number) * (history[at + k] as number);
    const residual = mic - estimate;
    // The residual as the whitened signals would have it: the path is the same filter either way.
    const error = residual - PRE_EMPHASIS * this.#lastResidual;
    this.#lastResidual = residual;
    this.#peak = Math.max(this.#peak, Math.abs(residual));
    const whiteEstimate = estimate - PRE_EMPHASIS * this.#lastEstimate;
    this.#lastEstimate = estimate;
    this.#misfitCross += error * whiteEstimate;
    this.#misfitEstimate += whiteEstimate * whiteEstimate;
    this.#misfitResidual += error * error;

    if (this.#energy / taps < quietPower) return;
    this.#frameMic += mic * mic;
    this.#frameEstimate += estimate * estimate;
    this.#frameResidual += residual * residual;

    // The enhancement is the leak's: a residual far over its usual size is someone else (a person,
    // a clatter) and says nothing of how well the leak is taken out.
    if (Math.abs(error) <= OUTLIER * this.#scale) {
      const alpha = this.#powerAlpha;
      this.#micPower += alpha * (mic * mic - this.#micPower);
      this.#residualPower += alpha * (residual * residual - this.#residualPower);
      const enhancement = this.enhancementDb;
      if (this.#trusted ? enhancement < this.options.distrustDb : enhancement >= this.options.trustDb) this.#trusted = !this.#trusted;
    }

    // Learns on the whitened signals (speech's energy lies low; whitened, its high bands are
    // learned as fast as its low ones), from the error clipped at `ROBUST_CLIP` times its usual
    // size (Gänsler's robust NLMS): a clatter or a person's first syllable, loud and brief, moves
    // the filter no further than a sample of leak does, and the usual size itself can only grow
    // about e-fold per `robustMs`, so it takes a sustained change (a louder leak) to follow.
    const scale = this.#scale;
    const clipped = Math.max(-ROBUST_CLIP * scale, Math.min(ROBUST_CLIP * scale, error));
    this.#scale = this.#scaleKeep * scale + ((1 - this.#scaleKeep) / ROBUST_NORM) * Math.abs(clipped);
    const gain = (step * clipped) / (this.#whiteEnergy + taps * quietPower);
    for (let k = 0; k < taps; k++) weights[k] = (weights[k] as number) + gain * (whitened[at + k] as number);
  }
}
