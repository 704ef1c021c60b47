/**
 * Fakes for the speakers' tests: a player that records every call, a `fetch` whose answers the test
 * writes (bodies that stream chunk by chunk and say when they were cancelled), and a TTS worker whose
 * pieces the test finishes in any order.
 */
import type { PieceTiming } from '../../../common/speaking/pace';
import type { SpeakRequest as TtsRequest, SpokenPiece, TtsApi } from '../../../common/voice/api';
import type { AudioPlayer, PieceKey, PieceWriter, PlayerEvents } from '../../../src/platform/audio/player';
import type { SpeakRequest } from '../../../src/platform/speakers/speaker';

/** Lets every pending promise and stream read run (setImmediate comes after all microtasks). */
export const settle = async (rounds = 3): Promise<void> => {
  for (let i = 0; i < rounds; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
};

export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A request as the machine makes it. */
export function piece(utteranceId: number, index: number, voice: SpeakRequest['voice'] = 'endpoint', text = `Piece ${index} of ${utteranceId}.`): SpeakRequest {
  return { utteranceId, piece: index, text, voice, steps: index === 0 ? 4 : 8, floor: 4 };
}

/** One call the player received. */
export type PlayerCall =
  | { kind: 'open'; key: PieceKey; rateHz: number }
  | { kind: 'write'; key: PieceKey; samples: Float32Array }
  | { kind: 'end'; key: PieceKey }
  | { kind: 'stop' };

/** A player that plays nothing and records everything; `finish` plays a piece out (started, ended). */
export class RecordingPlayer implements AudioPlayer {
  readonly calls: PlayerCall[] = [];
  gapMs = 120;
  /** Plays every piece out the moment it ends, as if the audio took no time. */
  playsAtOnce = false;
  private readonly listeners: { [K in keyof PlayerEvents]: Set<PlayerEvents[K]> } = { started: new Set(), ended: new Set(), audible: new Set() };
  /** Writers opened and not yet ended or dropped. */
  private readonly live = new Set<{ dropped: boolean }>();

  open(key: PieceKey, sampleRateHz: number): PieceWriter {
    this.calls.push({ kind: 'open', key, rateHz: sampleRateHz });
    const state = { dropped: false, ended: false };
    this.live.add(state);
    return {
      write: (samples: Float32Array) => {
        this.calls.push({ kind: 'write', key, samples });
      },
      end: () => {
        if (state.ended) return;
        state.ended = true;
        this.calls.push({ kind: 'end', key });
        this.live.delete(state);
        if (this.playsAtOnce && !state.dropped) this.finish(key);
      },
      get dropped() {
        return state.dropped;
      },
    };
  }

  ducked = false;

  duck(ducked: boolean): void {
    this.ducked = ducked;
  }

  play(key: PieceKey, samples: Float32Array, sampleRateHz: number): void {
    const writer = this.open(key, sampleRateHz);
    writer.write(samples);
    writer.end();
  }

  stop(): void {
    this.calls.push({ kind: 'stop' });
    for (const state of this.live) state.dropped = true;
    this.live.clear();
  }

  get audible(): boolean {
    return false;
  }

  get audibleFromMs(): number | null {
    return null;
  }

  get drained(): boolean {
    return this.live.size === 0;
  }

  /** Nothing is connected to it: no test here meters the output. */
  readonly output = {} as AudioNode;

  level(): number {
    return 0;
  }

  on<K extends keyof PlayerEvents>(event: K, listener: PlayerEvents[K]): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  dispose(): void {
    this.stop();
  }

  /** Reports a piece as heard from its first sample to its last. */
  finish(key: PieceKey): void {
    for (const listener of this.listeners.started) listener(key);
    for (const listener of this.listeners.ended) listener(key);
  }

  /** Every call about one piece, in order. */
  about(utteranceId: number, index: number): PlayerCall[] {
    return this.calls.filter((call) => call.kind !== 'stop' && call.key.utteranceId === utteranceId && call.key.piece === index);
  }

  /** The samples written for one piece, joined. */
  samplesOf(utteranceId: number, index: number): number[] {
    return this.about(utteranceId, index).flatMap((call) => (call.kind === 'write' ? [...call.samples] : []));
  }

  /** The pieces opened, in the order they were opened, as `utterance:piece`. */
  opened(): string[] {
    return this.calls.flatMap((call) => (call.kind === 'open' ? [`${call.key.utteranceId}:${call.key.piece}`] : []));
  }
}

/** A body the test writes chunk by chunk; `cancelled` says whether its reader cancelled it. */
export class PcmBody {
  readonly stream: ReadableStream<Uint8Array>;
  cancelled = false;
  private controller!: ReadableStreamDefaultController<Uint8Array>;

  constructor() {
    this.stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.cancelled = true;
      },
    });
  }

  /** Sends bytes; false when the reader has gone and they can no longer be sent. */
  push(bytes: readonly number[]): boolean {
    if (this.cancelled) return false;
    this.controller.enqueue(Uint8Array.from(bytes));
    return true;
  }

  close(): void {
    this.controller.close();
  }

  error(reason: unknown): void {
    this.controller.error(reason);
  }
}

/** Little-endian bytes of int16 samples. */
export function pcm16(...values: number[]): number[] {
  return values.flatMap((value) => {
    const unsigned = value < 0 ? value + 0x10000 : value;
    return [unsigned & 0xff, unsigned >> 8];
  });
}

/** One request the fake fetch received. */
export interface Sent {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  signal: AbortSignal | undefined;
  answer: Deferred<Response>;
}

/**
 * A `fetch` the test answers request by request. A pending request rejects with an AbortError when
 * its signal aborts, as the browser's does — unless `ignoresAbort`, to show that an answer arriving
 * for an interrupted utterance is thrown away.
 */
export function fakeFetch(options: { ignoresAbort?: boolean } = {}) {
  const sent: Sent[] = [];
  const fetcher: typeof fetch = (input, init) => {
    const answer = deferred<Response>();
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;
    const signal = init?.signal ?? undefined;
    sent.push({ url: input instanceof Request ? input.url : String(input), headers, body, signal, answer });
    if (options.ignoresAbort !== true) {
      signal?.addEventListener('abort', () => {
        answer.reject(new DOMException('The operation was aborted.', 'AbortError'));
      });
    }
    return answer.promise;
  };
  return { fetch: fetcher, sent };
}

/** A streaming PCM answer: the response and the body the test writes. */
export function pcmAnswer(contentType = 'audio/pcm'): { response: Response; body: PcmBody } {
  const body = new PcmBody();
  return { response: new Response(body.stream, { status: 200, headers: { 'content-type': contentType } }), body };
}

/** One piece asked of the fake worker, finished by the test. */
export interface Asked {
  request: TtsRequest;
  made: Deferred<SpokenPiece | null>;
  /** Finishes it with `length` samples of `value` at 44.1 kHz. */
  finish: (length?: number, value?: number) => void;
}

/** What the fake worker says a piece of `length` samples at 44.1 kHz cost: made at once, at the steps asked. */
export function timingOf(request: TtsRequest, length: number): PieceTiming {
  return { chars: request.text.length, audioMs: (length / 44_100) * 1000, speed: request.speed, steps: request.steps, prepareMs: 0, stepsMs: 0, vocodeMs: 0, provider: 'wasm' };
}

/** A TTS worker whose pieces the test finishes, in any order. */
export function fakeTts() {
  const asked: Asked[] = [];
  const cancelled: number[] = [];
  const tts: Pick<TtsApi, 'speak' | 'cancel'> = {
    speak(request) {
      const made = deferred<SpokenPiece | null>();
      asked.push({
        request,
        made,
        finish: (length = 4, value = 0.25) => {
          made.resolve({ utteranceId: request.utteranceId, piece: request.piece, samples: new Float32Array(length).fill(value), sampleRateHz: 44_100, unknown: [], timing: timingOf(request, length) });
        },
      });
      return made.promise;
    },
    cancel(utteranceId) {
      cancelled.push(utteranceId);
      return Promise.resolve();
    },
  };
  return { tts, asked, cancelled };
}
