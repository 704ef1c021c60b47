/**
 * The assistant's voice out: pieces of float PCM, at any sample rate, played one after another with
 * the bot's gap between them, every start placed on the audio clock (a timer never decides when a
 * sample sounds; timers only report what the clock already decided).
 *
 * A piece may arrive whole (the on-device voice) or in frames as it streams (the endpoint voice).
 * The piece being played schedules each frame the moment it lands, right after the last; later
 * pieces wait in memory for their turn, so order is kept however the synthesis finishes. Once a
 * piece has ended, the next one is scheduled `gapMs` after its last sample, sample-accurately.
 *
 * `stop()` takes the output down to silence over `STOP_RAMP_MS` on the audio clock (a cut
 * mid-waveform clicks; a 5 ms ramp does not, and is far too short to hear as late), stops every
 * source where the ramp ends, and drops everything queued: silent within one render quantum after
 * the ramp. What plays next goes out through a fresh gain.
 *
 * All of it passes through one AnalyserNode, so `level()` is the envelope of what is actually
 * going out — the assistant's level for the orb.
 */

/** Which piece of which utterance a stretch of audio is. */
export interface PieceKey {
  readonly utteranceId: number;
  readonly piece: number;
}

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
  /** Whether any piece is sounding now (the gap between two scheduled pieces counts as sounding). */
  readonly audible: boolean;
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

/** A player option no piece could be played with. */
export class PlayerOptionError extends Error {
  override readonly name = 'PlayerOptionError';
}

/** How long `stop()` takes the output gain from where it is to 0, in ms. */
export const STOP_RAMP_MS = 5;

/** The analyser's window: 512 samples is ~10.7 ms at 48 kHz, the echo gate's frame. */
const LEVEL_WINDOW = 512;
/** The sample rates `createBuffer` accepts everywhere. */
const MIN_RATE_HZ = 8000;
const MAX_RATE_HZ = 96_000;

/** One piece in the queue. */
interface Piece {
  readonly key: PieceKey;
  readonly rateHz: number;
  /** Frames written before the piece's turn, waiting to be scheduled. */
  pending: Float32Array[];
  /** `end()` was called. */
  ended: boolean;
  /** Ended with every frame scheduled: the next piece's turn has come. */
  closed: boolean;
  /** Sources scheduled for it that have not finished. */
  readonly sources: Set<AudioBufferSourceNode>;
  /** Whether any frame was scheduled (an empty piece gets no gap after it). */
  scheduled: boolean;
  /** Whether `started` was reported. */
  started: boolean;
  dropped: boolean;
}

export function createAudioPlayer(context: BaseAudioContext, options: PlayerOptions): AudioPlayer {
  checkGap(options.gapMs);
  let gapMs = options.gapMs;
  const listeners: { [K in keyof PlayerEvents]: Set<PlayerEvents[K]> } = { started: new Set(), ended: new Set(), audible: new Set() };
  const emit = <K extends keyof PlayerEvents>(event: K, ...args: Parameters<PlayerEvents[K]>) => {
    for (const listener of listeners[event]) (listener as (...a: Parameters<PlayerEvents[K]>) => void)(...args);
  };

  const analyser = context.createAnalyser();
  analyser.fftSize = LEVEL_WINDOW;
  analyser.connect(context.destination);
  const window = new Float32Array(LEVEL_WINDOW);
  let output = outputGain();

  /** Pieces not yet played out, in the order they were opened; the closed ones come first. */
  let queue: Piece[] = [];
  /** Where the next scheduled sample goes, in audio-clock seconds. */
  let cursorS = 0;
  /** Sources scheduled and not yet finished, across pieces. */
  let live = 0;
  let audible = false;
  /** Timers that report a piece's start; cleared by `stop`. */
  const startTimers = new Set<ReturnType<typeof setTimeout>>();
  let disposed = false;

  function outputGain(): GainNode {
    const gain = context.createGain();
    gain.connect(analyser);
    return gain;
  }

  function setAudible(now: boolean): void {
    if (audible === now) return;
    audible = now;
    emit('audible', now);
  }

  function reportStart(piece: Piece): void {
    if (piece.started || piece.dropped) return;
    piece.started = true;
    emit('started', piece.key);
  }

  /** Pieces whose start waits for a suspended context's clock to run, with where they start; one listener for all. */
  const waitingForClock = new Map<Piece, number>();
  function clockRuns(): void {
    if (context.state !== 'running') return;
    context.removeEventListener('statechange', clockRuns);
    const waiting = [...waitingForClock];
    waitingForClock.clear();
    for (const [piece, atS] of waiting) if (!piece.dropped) announceStart(piece, atS);
  }

  /**
   * Reports `started` when the clock reaches `atS`; the sound itself is already scheduled. A
   * suspended context (no gesture yet, or the system took the audio away) has a stopped clock, so
   * nothing is reported until it runs again: a piece is not "heard" while nothing can be.
   */
  function announceStart(piece: Piece, atS: number): void {
    const report = () => {
      // A late timer for a piece that already played out (a busy page) reports nothing.
      if (piece.dropped || piece.started) return;
      setAudible(true);
      reportStart(piece);
    };
    if (context.state === 'suspended') {
      if (waitingForClock.size === 0) context.addEventListener('statechange', clockRuns);
      waitingForClock.set(piece, atS);
      return;
    }
    const waitMs = (atS - context.currentTime) * 1000;
    if (waitMs <= 0) {
      report();
      return;
    }
    const timer = setTimeout(() => {
      startTimers.delete(timer);
      report();
    }, waitMs);
    startTimers.add(timer);
  }

  function schedule(piece: Piece, samples: Float32Array): void {
    const buffer = context.createBuffer(1, samples.length, piece.rateHz);
    buffer.copyToChannel(samples as Float32Array<ArrayBuffer>, 0);
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(output);
    // A frame that lands after its place on the clock has passed (the stream fell behind) starts now.
    const startS = Math.max(cursorS, context.currentTime);
    cursorS = startS + buffer.duration;
    piece.sources.add(source);
    live += 1;
    source.onended = () => {
      source.disconnect();
      piece.sources.delete(source);
      live -= 1;
      finishHead();
      if (live === 0) setAudible(false);
    };
    source.start(startS);
    if (!piece.scheduled) {
      piece.scheduled = true;
      announceStart(piece, startS);
    }
  }

  /** Reports and drops the pieces at the head of the queue that have played out. */
  function finishHead(): void {
    for (let head = queue[0]; head?.closed === true && head.sources.size === 0; head = queue[0]) {
      queue.shift();
      reportStart(head); // an empty piece starts and ends at once
      emit('ended', head.key);
    }
  }

  /** The piece whose frames are scheduled as they land: the first one not closed. */
  function current(): Piece | undefined {
    return queue.find((piece) => !piece.closed);
  }

  /**
   * Closes the current piece while it has ended, scheduling the next one `gapMs` after its last
   * sample, and that one's waiting frames, and so on.
   */
  function advance(): void {
    for (let piece = current(); piece?.ended === true; piece = current()) {
      piece.closed = true;
      if (piece.scheduled) cursorS += gapMs / 1000;
      const next = current();
      if (next === undefined) break;
      for (const samples of next.pending) schedule(next, samples);
      next.pending = [];
    }
    finishHead();
  }

  function open(key: PieceKey, sampleRateHz: number): PieceWriter {
    if (disposed) throw new PlayerOptionError('This player was disposed; make a new one.');
    if (!(Number.isFinite(sampleRateHz) && sampleRateHz >= MIN_RATE_HZ && sampleRateHz <= MAX_RATE_HZ)) {
      throw new PlayerOptionError(`A piece's sample rate is ${sampleRateHz} Hz; give one from ${MIN_RATE_HZ} to ${MAX_RATE_HZ}.`);
    }
    const piece: Piece = { key, rateHz: sampleRateHz, pending: [], ended: false, closed: false, sources: new Set(), scheduled: false, started: false, dropped: false };
    queue.push(piece);
    return {
      write(samples: Float32Array) {
        if (piece.dropped || piece.ended || samples.length === 0) return;
        if (current() === piece) schedule(piece, samples);
        else piece.pending.push(samples);
      },
      end() {
        if (piece.dropped || piece.ended) return;
        piece.ended = true;
        advance();
      },
      get dropped() {
        return piece.dropped;
      },
    };
  }

  function stop(): void {
    // The ramp is on the audio clock, so a busy page cannot make it late; the sources end where it
    // does, and the faded gain is let go once they have.
    const fading = output;
    const nowS = context.currentTime;
    const silentAtS = nowS + STOP_RAMP_MS / 1000;
    fading.gain.cancelScheduledValues(nowS);
    fading.gain.setValueAtTime(fading.gain.value, nowS);
    fading.gain.linearRampToValueAtTime(0, silentAtS);
    const fadingSources: AudioBufferSourceNode[] = [];
    for (const piece of queue) {
      piece.dropped = true;
      for (const source of piece.sources) {
        source.onended = null;
        source.stop(silentAtS);
        fadingSources.push(source);
      }
      piece.sources.clear();
      piece.pending = [];
    }
    const letGo = () => {
      for (const source of fadingSources) source.disconnect();
      fading.disconnect();
    };
    const last = fadingSources.at(-1);
    if (last === undefined) letGo();
    else last.onended = letGo;
    for (const timer of startTimers) clearTimeout(timer);
    startTimers.clear();
    waitingForClock.clear();
    context.removeEventListener('statechange', clockRuns);
    queue = [];
    live = 0;
    cursorS = 0;
    output = outputGain();
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
    get audible() {
      return audible;
    },
    get drained() {
      return queue.length === 0 && live === 0;
    },
    output: analyser,
    level() {
      analyser.getFloatTimeDomainData(window);
      let peak = 0;
      for (const sample of window) peak = Math.max(peak, Math.abs(sample));
      return Math.min(1, peak);
    },
    get gapMs() {
      return gapMs;
    },
    set gapMs(value: number) {
      checkGap(value);
      gapMs = value;
    },
    on(event, listener) {
      listeners[event].add(listener);
      return () => listeners[event].delete(listener);
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

function checkGap(gapMs: number): void {
  if (!(Number.isFinite(gapMs) && gapMs >= 0)) throw new PlayerOptionError(`The gap between pieces is ${gapMs} ms; give 0 or more.`);
}
