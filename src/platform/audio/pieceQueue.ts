/**
 * The player's pieces on the audio clock (see player.ts): the queue that places every frame right
 * after the last and each piece a gap after the one before, and the reporter that says a piece has
 * started once the clock reaches it.
 */

/** Which piece of which utterance a stretch of audio is. */
export interface PieceKey {
  readonly utteranceId: number;
  readonly piece: number;
}

/** One piece in the queue. */
export interface Piece {
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
  /** What was scheduled of it, in order: kept so it can be said again. */
  buffers: AudioBuffer[];
  /** Where its last scheduled sample ends, in audio-clock seconds. */
  endS: number;
  /** Whether it has been said again (`sayAgainFrom`). */
  saidAgain: boolean;
}

export interface PieceQueueDeps {
  context: BaseAudioContext;
  /** Where sources connect: the player's output gain of the moment. */
  output: () => AudioNode;
  /** The gap after a piece, read as the piece closes. */
  gapMs: () => number;
  /** A piece's first frame was placed on the clock at `atS` (audio-clock seconds). */
  scheduled: (piece: Piece, atS: number) => void;
  /** A piece at the head of the queue has played out. */
  ended: (piece: Piece) => void;
  /** The last scheduled source finished: nothing sounds. */
  quiet: () => void;
  /** Whether pieces that play out are kept (`played`) to be said again: the player keeps them while ducked. */
  keep: () => boolean;
}

/**
 * The pieces on the audio clock. A piece may arrive whole (the on-device voice) or in frames as it
 * streams (the endpoint voice). The piece being played schedules each frame the moment it lands,
 * right after the last; later pieces wait in memory for their turn, so order is kept however the
 * synthesis finishes. Once a piece has ended, the next one is scheduled `gapMs` after its last
 * sample, sample-accurately.
 */
export function pieceQueue(deps: PieceQueueDeps) {
  const { context } = deps;
  /** Pieces not yet played out, in the order they were opened; the closed ones come first. */
  let queue: Piece[] = [];
  /** Where the next scheduled sample goes, in audio-clock seconds. */
  let cursorS = 0;
  /** Sources scheduled and not yet finished, across pieces. */
  let live = 0;
  /** Pieces that played out while `keep` said so, in order. */
  let played: Piece[] = [];

  function schedule(piece: Piece, samples: Float32Array): void {
    const buffer = context.createBuffer(1, samples.length, piece.rateHz);
    buffer.copyToChannel(samples as Float32Array<ArrayBuffer>, 0);
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(deps.output());
    // A frame that lands after its place on the clock has passed (the stream fell behind) starts now.
    const startS = Math.max(cursorS, context.currentTime);
    cursorS = startS + buffer.duration;
    piece.sources.add(source);
    piece.buffers.push(buffer);
    piece.endS = cursorS;
    live += 1;
    source.onended = () => {
      source.disconnect();
      piece.sources.delete(source);
      live -= 1;
      finishHead();
      if (live === 0) deps.quiet();
    };
    source.start(startS);
    if (!piece.scheduled) {
      piece.scheduled = true;
      deps.scheduled(piece, startS);
    }
  }

  /** Reports and drops the pieces at the head of the queue that have played out. */
  function finishHead(): void {
    for (let head = queue[0]; head?.closed === true && head.sources.size === 0; head = queue[0]) {
      queue.shift();
      if (deps.keep()) played.push(head);
      deps.ended(head);
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
      if (piece.scheduled) cursorS += deps.gapMs() / 1000;
      const next = current();
      if (next === undefined) break;
      for (const samples of next.pending) schedule(next, samples);
      next.pending = [];
    }
    finishHead();
  }

  return {
    add(piece: Piece): void {
      queue.push(piece);
    },
    write(piece: Piece, samples: Float32Array): void {
      if (current() === piece) schedule(piece, samples);
      else piece.pending.push(samples);
    },
    end(piece: Piece): void {
      piece.ended = true;
      advance();
    },
    /** Drops every piece and returns the sources still scheduled, detached from the queue. */
    dropAll(): AudioBufferSourceNode[] {
      const sources: AudioBufferSourceNode[] = [];
      for (const piece of queue) {
        piece.dropped = true;
        for (const source of piece.sources) {
          source.onended = null;
          sources.push(source);
        }
        piece.sources.clear();
        piece.pending = [];
      }
      queue = [];
      played = [];
      live = 0;
      cursorS = 0;
      return sources;
    },
    /** The pieces that played out while kept, in order. */
    played(): readonly Piece[] {
      return played;
    },
    forgetPlayed(): void {
      played = [];
    },
    /**
     * Plays `piece` (one that played out while kept) again from its start at `atS`, and every piece
     * after it again from theirs, as they were written; returns the sources that were sounding or
     * scheduled, detached, for the caller to fade out.
     */
    sayAgainFrom(piece: Piece, atS: number): AudioBufferSourceNode[] {
      const from = played.indexOf(piece);
      if (from === -1) return [];
      const again = [...played.slice(from), ...queue];
      const sources: AudioBufferSourceNode[] = [];
      for (const each of again) {
        for (const source of each.sources) {
          source.onended = null;
          sources.push(source);
        }
        each.sources.clear();
        each.pending = [...each.buffers.map((buffer) => buffer.getChannelData(0)), ...each.pending];
        each.buffers = [];
        each.scheduled = false;
        each.closed = false;
        each.started = false;
      }
      piece.saidAgain = true;
      live -= sources.length;
      played = [];
      queue = again;
      cursorS = atS;
      const head = queue[0];
      if (head !== undefined) {
        const pending = head.pending;
        head.pending = [];
        for (const samples of pending) schedule(head, samples);
      }
      advance();
      return sources;
    },
    get drained(): boolean {
      return queue.length === 0 && live === 0;
    },
  };
}

/**
 * Reports a piece `started` when the clock reaches its first sample (with that sample's time on the
 * clock, in seconds); the sound itself is already scheduled. A suspended context (no gesture yet, or the system took the audio away) has a stopped
 * clock, so nothing is reported until it runs again: a piece is not "heard" while nothing can be.
 */
export function startReporter(context: BaseAudioContext, report: (piece: Piece, atS: number) => void) {
  /** Timers that report a piece's start; cleared by `clear`. */
  const timers = new Set<ReturnType<typeof setTimeout>>();
  /** Pieces whose start waits for a suspended context's clock to run, with where they start; one listener for all. */
  const waitingForClock = new Map<Piece, number>();

  function clockRuns(): void {
    if (context.state !== 'running') return;
    context.removeEventListener('statechange', clockRuns);
    const waiting = [...waitingForClock];
    waitingForClock.clear();
    for (const [piece, atS] of waiting) if (!piece.dropped) announce(piece, atS);
  }

  function announce(piece: Piece, atS: number): void {
    const reportOnce = () => {
      // A late timer for a piece that already played out (a busy page) reports nothing.
      if (piece.dropped || piece.started) return;
      report(piece, atS);
    };
    if (context.state === 'suspended') {
      if (waitingForClock.size === 0) context.addEventListener('statechange', clockRuns);
      waitingForClock.set(piece, atS);
      return;
    }
    const waitMs = (atS - context.currentTime) * 1000;
    if (waitMs <= 0) {
      reportOnce();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      reportOnce();
    }, waitMs);
    timers.add(timer);
  }

  return {
    announce,
    /** Forgets every start still to be reported (the player stopped). */
    clear(): void {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      waitingForClock.clear();
      context.removeEventListener('statechange', clockRuns);
    },
  };
}
