import { describe, expect, it, vi } from 'vitest';
import { Hearing, listenWithMicrophone, microphoneLost, micRefused } from '../../src/app/hearing';
import type { JudgedFrame, MicRefused } from '../../src/app/hearing';
import { OptionError } from '../../common/options';
import { MicrophoneError } from '../../src/platform/audio/microphone';
import type { LevelFrame, MicrophoneLevel } from '../../src/platform/audio/microphone';
import { speechEnvelope } from '../helpers/envelopeSpeech';
import { seededRandom } from '../helpers/random';
import { HEARING } from '../../src/core/hearing/tuning';

const FRAME_MS = 10;

/** A microphone stand-in: frames are pushed by the test, on a clock the test keeps. */
class FakeMicrophone implements MicrophoneLevel {
  readonly settings: MediaTrackSettings = { echoCancellation: true };
  readonly #frames = new Set<(frame: LevelFrame) => void>();
  readonly #ended = new Set<() => void>();
  atMs = 0;
  stopped = false;

  onFrame(listener: (frame: LevelFrame) => void): () => void {
    this.#frames.add(listener);
    return () => this.#frames.delete(listener);
  }

  onEnded(listener: () => void): () => void {
    this.#ended.add(listener);
    return () => this.#ended.delete(listener);
  }

  stop(): void {
    this.stopped = true;
    this.#frames.clear();
  }

  sendSpeechTo(port: MessagePort): void {
    port.close();
  }

  /** Delivers one frame per level, `FRAME_MS` apart. */
  hears(levels: ArrayLike<number>): void {
    for (let i = 0; i < levels.length; i++) {
      this.atMs += FRAME_MS;
      for (const listener of this.#frames) listener({ level: levels[i] ?? 0, atMs: this.atMs });
    }
  }

  ends(): void {
    for (const listener of this.#ended) listener();
  }
}

/** The player as hearing sees it: whether assistant audio is sounding and since when, and (here) no output level to judge by. */
const player = () => ({ audible: false, audibleFromMs: null as number | null, level: () => 0 });

function leak(seed: number, meanLevel: number, durationMs: number): Float64Array {
  return speechEnvelope(seededRandom(seed), { durationMs, meanLevel, reverbMs: 50 });
}

function setUp() {
  const assistant = player();
  const microphone = new FakeMicrophone();
  const bargeIns: JudgedFrame[] = [];
  const hearing = new Hearing(assistant, (frame) => bargeIns.push(frame));
  const heard: JudgedFrame[] = [];
  hearing.onHeard((frame) => heard.push(frame));
  hearing.listenTo(microphone);
  return { assistant, microphone, hearing, bargeIns, heard };
}

describe('Hearing', () => {
  it('lets the assistant talk over its own leak without calling a barge-in', () => {
    const { assistant, microphone, bargeIns, heard } = setUp();
    assistant.audible = true;
    microphone.hears(leak(1, 0.2, 6000));
    expect(bargeIns).toEqual([]);
    expect(heard).toHaveLength(600);
    expect(heard.every((f) => f.assistantAudible && !f.bargeIn)).toBe(true);
  });

  it('calls a barge-in once, with the frame that completed it, when a person talks clearly over the leak', () => {
    const { assistant, microphone, bargeIns, heard } = setUp();
    assistant.audible = true;
    microphone.hears(leak(2, 0.15, 3000));
    const personFrom = microphone.atMs;
    microphone.hears(leak(3, 0.15, 1000).map((v, i) => Math.min(1, Math.max(v, i < 30 ? 0 : 0.8))));
    expect(bargeIns).toHaveLength(1);
    const [bargeIn] = bargeIns;
    expect(bargeIn?.bargeIn).toBe(true);
    expect(bargeIn?.atMs).toBeGreaterThan(personFrom);
    expect(heard.filter((f) => f.bargeIn)).toEqual(bargeIns);
  });

  it('takes nothing heard before the voice began for its leak, though a busy page reads it after', () => {
    const { assistant, microphone, bargeIns, heard } = setUp();
    // The voice began at 1000 ms on the clock; the page reads the 300 ms of quiet room before it only now.
    assistant.audible = true;
    assistant.audibleFromMs = 1000;
    microphone.atMs = 700;
    microphone.hears(new Array<number>(30).fill(0.004));
    microphone.hears(leak(5, 0.2, 3000));
    expect(heard.slice(0, 30).some((f) => f.assistantAudible)).toBe(false);
    expect(heard.slice(30).every((f) => f.assistantAudible)).toBe(true);
    // Learned as leak, that quiet would have left the bar at its floor, under the voice's first syllables.
    expect(bargeIns).toEqual([]);
  });

  it('leaves a person talking while the assistant is silent to the recogniser', () => {
    const { microphone, bargeIns } = setUp();
    microphone.hears(new Array<number>(300).fill(0.9));
    expect(bargeIns).toEqual([]);
  });

  it('keeps what it learned of the room from one answer to the next', () => {
    const { assistant, microphone, hearing } = setUp();
    const cold = hearing.bar;
    assistant.audible = true;
    microphone.hears(leak(4, 0.25, 6000));
    assistant.audible = false;
    microphone.hears(new Array<number>(500).fill(0.01));
    // Five seconds of silence later, the bar still stands over the leak it learned, not at the floor.
    expect(cold).toBeCloseTo(0.09);
    expect(hearing.bar).toBeGreaterThan(0.3);
    expect(hearing.bar).toBeLessThan(1);
  });

  it('stops hearing a microphone when told to', () => {
    const assistant = player();
    const microphone = new FakeMicrophone();
    const hearing = new Hearing(assistant, () => undefined);
    const heard = vi.fn();
    hearing.onHeard(heard);
    const stop = hearing.listenTo(microphone);
    microphone.hears([0.1]);
    stop();
    microphone.hears([0.1]);
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it('refuses gate options a person must fix', () => {
    expect(() => new Hearing(player(), () => undefined, { gate: { ...HEARING.gate, margin: 0.5 }, cancelledGate: HEARING.cancelledGate })).toThrow(OptionError);
    expect(() => new Hearing(player(), () => undefined, { gate: HEARING.gate, cancelledGate: { ...HEARING.cancelledGate, coldMargin: 1 } })).toThrow(OptionError);
  });

  it('runs the page’s one tuning table unless it is given another', () => {
    expect(new Hearing(player(), () => undefined).tuning).toBe(HEARING);
  });
});

describe('micRefused', () => {
  it('tells the machine a refusal is a refusal, with the sentence the person reads', () => {
    const error = new MicrophoneError('refused', 'Not allowed, so typed.');
    expect(micRefused(error)).toEqual({ type: 'mic.refused', missing: false, reason: 'Not allowed, so typed.' });
  });

  it.each(['missing', 'unavailable', 'unsupported'] as const)('tells the machine a %s microphone is missing', (problem) => {
    expect(micRefused(new MicrophoneError(problem, 'Typed.')).missing).toBe(true);
  });
});

describe('listenWithMicrophone', () => {
  const context = {} as AudioContext;

  it('hears the microphone it opens', async () => {
    const microphone = new FakeMicrophone();
    const hearing = new Hearing(player(), () => undefined);
    const heard = vi.fn();
    hearing.onHeard(heard);
    const open = vi.fn(() => Promise.resolve(microphone));
    const opened = await listenWithMicrophone(hearing, context, () => undefined, { echoCancellation: false }, open);
    expect(opened).toBe(microphone);
    expect(open).toHaveBeenCalledWith(context, { echoCancellation: false }, undefined);
    microphone.hears([0.2, 0.3]);
    expect(heard).toHaveBeenCalledTimes(2);
  });

  it('hands the machine its event when the microphone cannot be opened, and resolves null', async () => {
    const refused: MicRefused[] = [];
    const open = () => Promise.reject(new MicrophoneError('missing', 'No microphone, so typed.'));
    const opened = await listenWithMicrophone(new Hearing(player(), () => undefined), context, (e) => refused.push(e), {}, open);
    expect(opened).toBeNull();
    expect(refused).toEqual([{ type: 'mic.refused', missing: true, reason: 'No microphone, so typed.' }]);
  });

  it('lets an error that is not the microphone’s through', async () => {
    const open = () => Promise.reject(new RangeError('microphone frameMs is 0'));
    await expect(listenWithMicrophone(new Hearing(player(), () => undefined), context, () => undefined, {}, open)).rejects.toThrow(RangeError);
  });

  it('releases the microphone and hands the machine its event when the capture ends by itself', async () => {
    const microphone = new FakeMicrophone();
    const refused: MicRefused[] = [];
    await listenWithMicrophone(new Hearing(player(), () => undefined), context, (e) => refused.push(e), {}, () => Promise.resolve(microphone));
    microphone.ends();
    expect(microphone.stopped).toBe(true);
    expect(refused).toEqual([{ type: 'mic.refused', missing: true, reason: microphoneLost() }]);
  });
});
