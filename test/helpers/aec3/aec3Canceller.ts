/**
 * WebRTC's own echo canceller, AEC3 (@ennuicastr/webrtcaec3.js, built to WebAssembly), behind the
 * level meter's canceller interface; `npm run bench -- capture-lag` runs it beside the NLMS, which
 * ships (docs/hearing.md says why). The microphone and the player's output go to it block by block,
 * and its cancelled microphone comes back in its 10 ms frames, which are the level meter's frames.
 * It learns the path (the capture's delay, the speaker, the room) and suppresses what its filter
 * leaves; loading it is the platform's (src/platform/audio/aec3.ts), so this file runs in Node as it is.
 *
 * AEC3 says nothing of how well it is doing through this build, so trust is measured here as it
 * is for the NLMS (echoCanceller.ts): the leak removed (the microphone's power over the residual's,
 * over the output's recent audio) from `trustDb` until it falls under `distrustDb`. A frame whose
 * residual is far over its usual size is someone else's sound (a person, a clatter), not a measure
 * of the leak, and is left out. It cannot tell its own misfit from a person: `echoLeft` stays false.
 *
 * AEC3 left the loudest syllables of a leak in its residual when the leak reached it less than 3 ms
 * after the output did, as a capture with next to no latency does (the fake microphone gives 0–10
 * ms), so the microphone reaches AEC3 `captureDelayMs` late. AEC3 itself hands each sample back 448 samples (9.3 ms at 48 kHz) after it
 * heard it, so a frame's residual is of the microphone about 13 ms before the frame: the second gate
 * hears a person's start that much later than the microphone's level does.
 */
import { checkOptions, OptionError, resolveOptions } from '../../../common/options';
import type { Limits, Relation } from '../../../common/options';
import type { CancelledFrame, Canceller } from '../../../src/core/hearing/canceller';

/** The part of an AEC3 instance (`new WebRtcAec3().AEC3(rate, 1, 1)`) the canceller uses. */
export interface Aec3Engine {
  analyze(data: Float32Array[], opts?: { sampleRateIn?: number }): void;
  processSize(data: Float32Array[], opts?: { sampleRateIn?: number; sampleRateOut?: number }): number;
  process(out: Float32Array[], data: Float32Array[], opts?: { sampleRateIn?: number; sampleRateOut?: number }): void;
}

/** When AEC3's residual is trusted. */
export interface Aec3CancellerOptions {
  /** The enhancement, in dB, from which the residual is trusted. Default 9, as the NLMS's. */
  trustDb: number;
  /** The enhancement, in dB, under which a trusted canceller is trusted no more. Default 5. */
  distrustDb: number;
  /** Time constant, in ms of output audio, of the powers the enhancement is measured from. Default 400. */
  powerMs: number;
  /** The quietest output power (mean square over a frame) measured from. Default 1e-6. */
  quietPower: number;
  /**
   * How late, in ms, the microphone reaches AEC3: the least lag behind the output it cancels well
   * (`npm run bench -- capture-lag` leaked at 0–2 ms without it). The residual is this much stale.
   * Default 4.
   */
  captureDelayMs: number;
  /**
   * How far, in dB, a frame's residual power may be over its usual power and still be the leak's:
   * past the leak's own swings, under a person's word. Default 12.
   */
  outlierDb: number;
}

/** The defaults, each explained on its field in `Aec3CancellerOptions`. */
export const AEC3_CANCELLER: Readonly<Aec3CancellerOptions> = Object.freeze({
  trustDb: 9,
  distrustDb: 5,
  powerMs: 400,
  quietPower: 1e-6,
  outlierDb: 12,
  captureDelayMs: 4,
});

const LIMITS: Limits<Aec3CancellerOptions> = {
  trustDb: {},
  distrustDb: {},
  powerMs: { over: 0 },
  quietPower: { over: 0 },
  outlierDb: { over: 0 },
  captureDelayMs: { min: 0, max: 100 },
};
const RELATIONS: readonly Relation<Aec3CancellerOptions>[] = [{ option: 'distrustDb', is: 'under', than: 'trustDb' }];

/** Merges partial options over `AEC3_CANCELLER`; throws `OptionError` naming the option to fix (`aec3Canceller.<field>`). */
function resolveAec3Canceller(partial: Partial<Aec3CancellerOptions> = {}): Aec3CancellerOptions {
  return resolveOptions('aec3Canceller', AEC3_CANCELLER, partial, LIMITS, RELATIONS);
}

/** AEC3's frame: 10 ms of input, in samples (the glue's own `~~(rate / 100)`). */
function aec3FrameSamples(inputRateHz: number): number {
  return Math.floor(inputRateHz / 100);
}

/** A level-meter frame's input, waiting for its cancelled samples. */
interface Pending {
  micEnergy: number;
  refEnergy: number;
  endSample: number;
}

export class Aec3Canceller implements Canceller {
  readonly options: Aec3CancellerOptions;
  readonly frameSamples: number;
  readonly #engine: Aec3Engine;
  /** The blocks' rate, for AEC3 to resample from (the output, and the cancelled microphone back to it). */
  readonly #rates: { sampleRateIn: number; sampleRateOut: number };
  readonly #silence: Float32Array;
  /** AEC3's output for one block: at most a block and one of its frames. */
  readonly #out: Float32Array;
  readonly #pending: Pending[] = [];
  /** The microphone's last `captureDelayMs`, and where the next sample goes in it. */
  readonly #late: Float32Array;
  #lateAt = 0;
  /** The block as AEC3 hears it: the microphone `captureDelayMs` late. */
  #delayed = new Float32Array(128);
  #micEnergy = 0;
  #refEnergy = 0;
  #heard = 0;
  /** The residual frame being measured: its samples so far, peak and energy. */
  #cancelled = 0;
  #peak = 0;
  #energy = 0;
  #micPower = 0;
  #residualPower = 0;
  #trusted = false;
  #measured = false;
  readonly #powerAlpha: number;
  readonly #outlier: number;

  /**
   * `engine` is a fresh AEC3 instance with one render and one capture channel; `inputRateHz` the
   * blocks' rate (AEC3 resamples it to its own and back); `frameSamples` a whole number of AEC3's
   * 10 ms frames, so each of the meter's frames is complete in the block that completes it.
   */
  constructor(engine: Aec3Engine, inputRateHz: number, frameSamples: number, partial: Partial<Aec3CancellerOptions> = {}) {
    checkOptions('aec3Canceller', { inputRateHz, frameSamples }, { inputRateHz: { min: 8000 }, frameSamples: { min: 1, whole: true } });
    const frame = aec3FrameSamples(inputRateHz);
    if (frameSamples % frame !== 0) throw new OptionError('aec3Canceller.frameSamples', frameSamples, `a whole number of 10 ms frames (${String(frame)} samples)`);
    this.options = resolveAec3Canceller(partial);
    this.frameSamples = frameSamples;
    this.#engine = engine;
    this.#rates = { sampleRateIn: inputRateHz, sampleRateOut: inputRateHz };
    this.#silence = new Float32Array(frame);
    this.#late = new Float32Array(Math.round((this.options.captureDelayMs / 1000) * inputRateHz));
    this.#out = new Float32Array(2 * frame + frameSamples);
    this.#powerAlpha = 1 - Math.exp(-frameSamples / ((this.options.powerMs / 1000) * inputRateHz));
    this.#outlier = 10 ** (this.options.outlierDb / 10);
  }

  get trusted(): boolean {
    return this.#trusted;
  }

  get enhancementDb(): number {
    return this.#residualPower <= 0 || this.#micPower <= 0 ? 0 : 10 * Math.log10(this.#micPower / this.#residualPower);
  }

  push(mic: Float32Array | undefined, ref: Float32Array | undefined, blockLength: number, firstSample: number, emit: (frame: CancelledFrame) => void): void {
    const heard = this.#lateBlock(this.#block(mic, blockLength));
    const played = this.#block(ref, blockLength);
    for (let i = 0; i < blockLength; i++) {
      this.#micEnergy += (heard[i] ?? 0) ** 2;
      this.#refEnergy += (played[i] ?? 0) ** 2;
      this.#heard += 1;
      if (this.#heard === this.frameSamples) {
        this.#pending.push({ micEnergy: this.#micEnergy, refEnergy: this.#refEnergy, endSample: firstSample + i + 1 });
        this.#micEnergy = 0;
        this.#refEnergy = 0;
        this.#heard = 0;
      }
    }
    this.#engine.analyze([played], { sampleRateIn: this.#rates.sampleRateIn });
    const capture = [heard];
    const size = this.#engine.processSize(capture, this.#rates);
    const out = this.#out.subarray(0, size);
    this.#engine.process([out], capture, this.#rates);
    for (const sample of out) {
      this.#peak = Math.max(this.#peak, Math.abs(sample));
      this.#energy += sample * sample;
      this.#cancelled += 1;
      if (this.#cancelled === this.frameSamples) {
        const input = this.#pending.shift();
        // The output is the input's own samples, frame for frame; nothing but a broken engine leaves it short.
        if (input === undefined) throw new Error('AEC3 returned more samples than it was given.');
        this.#measure(input.micEnergy, this.#energy, input.refEnergy);
        emit({ residual: this.#trusted ? this.#peak : null, echoLeft: false, endSample: input.endSample });
        this.#cancelled = 0;
        this.#peak = 0;
        this.#energy = 0;
      }
    }
  }

  /** The block's first channel, or silence; a Float32Array AEC3 may read in place. */
  #block(channel: Float32Array | undefined, blockLength: number): Float32Array {
    if (channel !== undefined) return channel.subarray(0, blockLength);
    return blockLength <= this.#silence.length ? this.#silence.subarray(0, blockLength) : new Float32Array(blockLength);
  }

  /** The microphone's block `captureDelayMs` late. */
  #lateBlock(block: Float32Array): Float32Array {
    const late = this.#late;
    if (late.length === 0) return block;
    if (this.#delayed.length < block.length) this.#delayed = new Float32Array(block.length);
    const delayed = this.#delayed.subarray(0, block.length);
    for (let i = 0; i < block.length; i++) {
      delayed[i] = late[this.#lateAt] ?? 0;
      late[this.#lateAt] = block[i] ?? 0;
      this.#lateAt = this.#lateAt + 1 === late.length ? 0 : this.#lateAt + 1;
    }
    return delayed;
  }

  /** One frame's energies: updates the enhancement over the output's audio, and trust from it. */
  #measure(micEnergy: number, residualEnergy: number, refEnergy: number): void {
    const n = this.frameSamples;
    if (refEnergy / n < this.options.quietPower) return;
    const mic = micEnergy / n;
    const residual = residualEnergy / n;
    if (!this.#measured) {
      this.#measured = true;
      this.#micPower = mic;
      this.#residualPower = residual;
    } else if (residual <= this.#outlier * Math.max(this.#residualPower, this.options.quietPower)) {
      this.#micPower += this.#powerAlpha * (mic - this.#micPower);
      this.#residualPower += this.#powerAlpha * (residual - this.#residualPower);
    }
    const enhancement = this.enhancementDb;
    if (this.#trusted ? enhancement < this.options.distrustDb : enhancement >= this.options.trustDb) this.#trusted = !this.#trusted;
  }
}
