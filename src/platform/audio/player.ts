/**
 * The assistant's voice out: pieces of float PCM, at any sample rate, played one after another with
 * the bot's gap between them, every start placed on the audio clock (a timer never decides when a
 * sample sounds; timers only report what the clock already decided). Everything goes out through
 * one AnalyserNode, so `level()` is the envelope of what is actually heard — the orb's assistant level.
 */

import { checkOption, checkOptions } from '../../../common/options';
import type { Limit, Limits } from '../../../common/options';
import { pieceToSayAgain } from '../../core/speaking/sayAgain';
import { HEARING } from '../../core/hearing/tuning';
import { pieceQueue, startReporter } from './pieceQueue';
import type { Piece, PieceKey } from './pieceQueue';

export type { PieceKey } from './pieceQueue';

export interface PlayerEvents {
  /** The piece's first sample is sounding now (by the audio clock). */
  started: (key: PieceKey) => void;
  /** The piece's last sample has played (a piece ended with no samples ends at once). Dropped pieces get none. */
  ended: (key: PieceKey) => void;
  /** Whether any assistant audio is sounding changed (false once drained or stopped). */
  audible: (audible: boolean) => void;
}

/** A piece whose samples arrive over time (the endpoint voice's stream) or all at once. */
export interface PieceWriter {
  /** Appends mono samples in [-1, 1] at the piece's rate, scheduled right after what it already holds. Ignored once dropped. */
  write(samples: Float32Array): void;
  /** No more samples: the piece ends after what it holds, and the gap follows it. */
  end(): void;
  /** True once `stop()` dropped this piece. */
  readonly dropped: boolean;
}

export interface AudioPlayer {
  /**
   * Opens the next piece. Pieces play in the order opened, each starting `gapMs` after the previous
   * one's last sample; samples of a later piece wait (in memory) until its turn.
   */
  open(key: PieceKey, sampleRateHz: number): PieceWriter;
  /** A whole piece at once: open, write, end. */
  play(key: PieceKey, samples: Float32Array, sampleRateHz: number): void;
  /** Ramps to silence over `STOP_RAMP_MS`, silent within one render quantum after, and drops everything queued or open. */
  stop(): void;
  /**
   * Ducks the voice by `HEARING.duck.duckDb` within one render quantum (`true`), as a person falls quiet when
   * someone starts to speak, or brings it back to full level over `HEARING.duck.unduckMs` (`false`). Nothing
   * queued is dropped; a `stop()` ends the duck. Coming back, a piece whose end the duck ran past is
   * said again from its start, once, with what follows it after it (`sayAgain.ts`).
   */
  duck(ducked: boolean): void;
  /** Whether the voice is ducked now. */
  readonly ducked: boolean;
  /** Whether any piece is sounding now (the gap between two scheduled pieces counts as sounding). */
  readonly audible: boolean;
  /**
   * While `audible`, when the sounding began, in ms on the audio clock (its first piece's first
   * sample); null otherwise. `audible` turns true a timer's wait after that, and later on a busy
   * page: a microphone frame from before this time did not hear the voice, however late it is read.
   */
  readonly audibleFromMs: number | null;
  /** Whether nothing is sounding, queued or open. */
  readonly drained: boolean;
  /** The output's level now: the peak |sample| over the last ~10 ms at the output, 0..1. */
  level(): number;
  /** Everything the player sends out passes through this node: the echo gate's reference. */
  readonly output: AudioNode;
  /** Silence between pieces, in ms; applies to pieces not yet scheduled. */
  gapMs: number;
  /** Listens; returns the unsubscribe. */
  on<K extends keyof PlayerEvents>(event: K, listener: PlayerEvents[K]): () => void;
  /** Stops and disconnects; the player cannot be used afterwards. */
  dispose(): void;
}

export interface PlayerOptions {
  /** Silence between pieces, in ms (the bot's `gap`). */
  gapMs: number;
}

/** A player used after `dispose()`. */
export class PlayerDisposedError extends Error {
  override readonly name = 'PlayerDisposedError';
}

/** How long `stop()` takes the output gain from where it is to 0, in ms. */
export const STOP_RAMP_MS = 5;
/** How far a duck takes the voice down, and how soon it comes back: the hearing's table. */
const { duckDb: DUCK_DB, unduckMs: UNDUCK_MS } = HEARING.duck;
/** One render quantum at 48 kHz, in ms: a duck is done within it. */
const DUCK_RAMP_MS = 128 / 48;

/** The analyser's window in samples: about 10 ms at 48 kHz, the echo gate's frame. */
const LEVEL_WINDOW = 512;
/** The sample rates `createBuffer` accepts everywhere. */
const PIECE_RATE: Limit = { min: 8000, max: 96_000 };
const LIMITS: Limits<PlayerOptions> = { gapMs: { min: 0 } };


export function createAudioPlayer(context: BaseAudioContext, options: PlayerOptions): AudioPlayer {
  let { gapMs } = checkOptions('player', options, LIMITS);
  let disposed = false;
  const events = playerEvents();
  const analyser = context.createAnalyser();
  analyser.fftSize = LEVEL_WINDOW;
  analyser.connect(context.destination);
  const window = new Float32Array(LEVEL_WINDOW);
  /** Replaced after every stop: what plays next goes out through a fresh gain. */
  let output = outputGain(context, analyser);

  let ducked = false;
  /** When the duck under way began, on the audio clock in seconds. */
  let duckedAtS = 0;
  /**
   * Ramps the output gain from `from` to `to` over `rampMs` on the audio clock. From the level the
   * last ramp went to, not the param's `value`, which browsers report as of the last render quantum.
   */
  function ramp(from: number, to: number, rampMs: number): void {
    const nowS = context.currentTime;
    output.gain.cancelScheduledValues(nowS);
    output.gain.setValueAtTime(from, nowS);
    output.gain.linearRampToValueAtTime(to, nowS + rampMs / 1000);
  }

  let audible = false;
  let audibleFromMs: number | null = null;
  /** `fromS`: where the sounding began on the audio clock, when it begins. */
  function setAudible(now: boolean, fromS?: number): void {
    if (audible === now) return;
    audible = now;
    audibleFromMs = now ? (fromS ?? context.currentTime) * 1000 : null;
    events.emit('audible', now);
  }
  function reportStart(piece: Piece): void {
    if (piece.started || piece.dropped) return;
    piece.started = true;
    events.emit('started', piece.key);
  }

  const starts = startReporter(context, (piece, atS) => {
    setAudible(true, atS);
    reportStart(piece);
  });
  const queue = pieceQueue({
    context,
    output: () => output,
    gapMs: () => gapMs,
    scheduled: (piece, atS) => {
      starts.announce(piece, atS);
    },
    ended: (piece) => {
      reportStart(piece); // an empty piece starts and ends at once
      events.emit('ended', piece.key);
    },
    quiet: () => {
      setAudible(false);
    },
    keep: () => ducked,
  });

  /** Comes back from a duck: says again the piece whose end it ran past, or ramps up to full level. */
  function unduck(): void {
    const ended = queue.played().map((piece) => ({ key: piece, endedAtMs: piece.endS * 1000, saidAgain: piece.saidAgain }));
    const again = pieceToSayAgain(ended, duckedAtS * 1000, context.currentTime * 1000, !queue.drained);
    if (again === null) {
      queue.forgetPlayed();
      ramp(10 ** (DUCK_DB / 20), 1, UNDUCK_MS);
      return;
    }
    // What sounds now fades out through the ducked gain; the piece starts again on a fresh one, at full level.
    const faded = output;
    output = outputGain(context, analyser);
    starts.clear();
    fadeOut(context, faded, queue.sayAgainFrom(again, context.currentTime + STOP_RAMP_MS / 1000));
  }

  function open(key: PieceKey, sampleRateHz: number): PieceWriter {
    if (disposed) throw new PlayerDisposedError('This player was disposed; make a new one.');
    checkOption('piece.sampleRateHz', sampleRateHz, PIECE_RATE);
    const piece: Piece = { key, rateHz: sampleRateHz, pending: [], ended: false, closed: false, sources: new Set(), scheduled: false, started: false, dropped: false, buffers: [], endS: 0, saidAgain: false };
    queue.add(piece);
    return {
      write(samples: Float32Array) {
        if (piece.dropped || piece.ended || samples.length === 0) return;
        queue.write(piece, samples);
      },
      end() {
        if (piece.dropped || piece.ended) return;
        queue.end(piece);
      },
      get dropped() {
        return piece.dropped;
      },
    };
  }

  function stop(): void {
    fadeOut(context, output, queue.dropAll());
    starts.clear();
    output = outputGain(context, analyser);
    ducked = false;
    setAudible(false);
  }

  return {
    open,
    play(key, samples, sampleRateHz) {
      const writer = open(key, sampleRateHz);
      writer.write(samples);
      writer.end();
    },
    stop,
    duck(on) {
      if (disposed || on === ducked) return;
      ducked = on;
      if (on) {
        duckedAtS = context.currentTime;
        ramp(1, 10 ** (DUCK_DB / 20), DUCK_RAMP_MS);
      } else unduck();
    },
    get ducked() {
      return ducked;
    },
    get audible() {
      return audible;
    },
    get audibleFromMs() {
      return audibleFromMs;
    },
    get drained() {
      return queue.drained;
    },
    output: analyser,
    level: () => peakLevel(analyser, window),
    get gapMs() {
      return gapMs;
    },
    set gapMs(value: number) {
      gapMs = checkOption('player.gapMs', value, LIMITS.gapMs);
    },
    on(event, listener) {
      return events.on(event, listener);
    },
    dispose() {
      if (disposed) return;
      stop();
      disposed = true;
      output.disconnect();
      analyser.disconnect();
    },
  };
}

/** The player's listeners, one set per event. */
function playerEvents() {
  const listeners: { [K in keyof PlayerEvents]: Set<PlayerEvents[K]> } = { started: new Set(), ended: new Set(), audible: new Set() };
  return {
    emit<K extends keyof PlayerEvents>(event: K, ...args: Parameters<PlayerEvents[K]>): void {
      for (const listener of listeners[event]) (listener as (...a: Parameters<PlayerEvents[K]>) => void)(...args);
    },
    on<K extends keyof PlayerEvents>(event: K, listener: PlayerEvents[K]): () => void {
      listeners[event].add(listener);
      return () => listeners[event].delete(listener);
    },
  };
}

function outputGain(context: BaseAudioContext, analyser: AnalyserNode): GainNode {
  const gain = context.createGain();
  gain.connect(analyser);
  return gain;
}

/** The peak |sample| over the analyser's window, 0..1. */
function peakLevel(analyser: AnalyserNode, window: Float32Array<ArrayBuffer>): number {
  analyser.getFloatTimeDomainData(window);
  let peak = 0;
  for (const sample of window) peak = Math.max(peak, Math.abs(sample));
  return Math.min(1, peak);
}


/**
 * Takes `gain` down to silence over `STOP_RAMP_MS` on the audio clock and stops `sources` where
 * the ramp ends: a cut mid-waveform clicks, a ramp this short does not and is too short to hear as
 * late, and being on the clock a busy page cannot make it late. The faded gain and the sources are
 * let go once the sources have ended.
 */
function fadeOut(context: BaseAudioContext, gain: GainNode, sources: readonly AudioBufferSourceNode[]): void {
  const nowS = context.currentTime;
  const silentAtS = nowS + STOP_RAMP_MS / 1000;
  gain.gain.cancelScheduledValues(nowS);
  gain.gain.setValueAtTime(gain.gain.value, nowS);
  gain.gain.linearRampToValueAtTime(0, silentAtS);
  for (const source of sources) source.stop(silentAtS);
  const letGo = () => {
    for (const source of sources) source.disconnect();
    gain.disconnect();
  };
  const last = sources.at(-1);
  if (last === undefined) letGo();
  else last.onended = letGo;
}
