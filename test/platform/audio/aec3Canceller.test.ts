/**
 * WebRTC's AEC3 behind the level meter's canceller interface (aec3Canceller.ts, loaded by aec3.ts
 * as a worklet would load it): it takes the kept answer's leak out of the microphone by a measured amount, says its
 * residual only once trusted, rides out a capture that skips and comes back later (the gates take
 * no leak for a person), and frames that residual at the level meter's own samples, a sound
 * showing there AEC3's own 448 samples (9.3 ms at 48 kHz) and `captureDelayMs` late.
 */
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { Aec3Canceller, AEC3_CANCELLER } from '../../helpers/aec3/aec3Canceller';
import type { Aec3CancellerOptions } from '../../helpers/aec3/aec3Canceller';
import type { CancelledFrame } from '../../../src/core/hearing/canceller';
import { aec3Maker } from '../../helpers/aec3/aec3';
import { PeakFramer } from '../../../src/platform/audio/peakFrames';
import { aec3, keptAnswer, pageBargeInsMs, roomOf } from '../../helpers/keptAnswerRoom';
import type { Room } from '../../helpers/keptAnswerRoom';

const RATE = 48_000;
const QUANTUM = 128;
const FRAME = 480;
const answer = keptAnswer();

/** Runs `room` through a fresh AEC3 canceller in render quanta; each frame beside the quantum it was emitted in. */
function cancel(room: Room, options: Partial<Aec3CancellerOptions> = {}): { frames: CancelledFrame[]; emittedIn: number[]; enhancementDb: number } {
  const engine = aec3Maker()(RATE);
  try {
    const canceller = new Aec3Canceller(engine, RATE, FRAME, options);
    const frames: CancelledFrame[] = [];
    const emittedIn: number[] = [];
    for (let at = 0; at < room.microphone.length; at += QUANTUM) {
      const length = Math.min(QUANTUM, room.microphone.length - at);
      canceller.push(room.microphone.subarray(at, at + length), room.output.subarray(at, at + length), length, at, (frame) => {
        frames.push(frame);
        emittedIn.push(at);
      });
    }
    return { frames, emittedIn, enhancementDb: canceller.enhancementDb };
  } finally {
    engine.free();
  }
}

/** Peak |sample| of each level-meter frame of `samples`. */
function peaks(samples: Float32Array): number[] {
  const framer = new PeakFramer(FRAME);
  const out: number[] = [];
  for (let at = 0; at < samples.length; at += QUANTUM) {
    const length = Math.min(QUANTUM, samples.length - at);
    framer.push([samples.subarray(at, at + length)], length, at, (message) => out.push(message.peak));
  }
  return out;
}

describe('AEC3 as the level meter’s canceller', () => {
  it('takes the kept answer’s leak, 11 ms late, out of the microphone by over 15 dB once it has heard a second of it', () => {
    const room = roomOf(answer, 0.5, 11);
    const { frames, enhancementDb } = cancel(room);
    const heard = peaks(room.microphone);
    // From two seconds in (a second of quiet room, a second of the answer) to the answer's end.
    const from = (2 * RATE) / FRAME;
    const to = Math.floor(room.to / FRAME);
    let micEnergy = 0;
    let residualEnergy = 0;
    for (let k = from; k < to; k++) {
      const residual = frames[k]?.residual;
      expect(residual, `frame ${String(k)} is trusted`).not.toBeNull();
      micEnergy += (heard[k] ?? 0) ** 2;
      residualEnergy += (residual ?? 0) ** 2;
    }
    expect(10 * Math.log10(micEnergy / residualEnergy)).toBeGreaterThan(15);
    expect(enhancementDb).toBeGreaterThan(15);
  });

  it('says nothing of its residual before it has heard the output, and never calls a frame its own misfit', () => {
    const { frames } = cancel(roomOf(answer, 0.5, 11));
    const lead = RATE / FRAME;
    expect(frames.slice(0, lead).every((frame) => frame.residual === null)).toBe(true);
    expect(frames.some((frame) => frame.echoLeft)).toBe(false);
  });

  it.each([10, 40])('hands the gates no leak to take for a person when the capture drops 20 ms and comes back %i ms later than before', (lateMs) => {
    const room = roomOf(answer, 0.7, 11);
    const at = Math.round(RATE * 4.15);
    const gap = Math.round((RATE * (20 + lateMs)) / 1000);
    const late = Math.round((RATE * lateMs) / 1000);
    const microphone = room.microphone.map((sample, i) => (i < at ? sample : i < at + gap ? 0 : (room.microphone[i - late] ?? 0)));
    expect(pageBargeInsMs({ ...room, microphone }, aec3())).toEqual([]);
  });

  it('emits each frame in the quantum that completes it, at the level meter’s end samples', () => {
    const room = roomOf(answer, 0.3, 20);
    const { frames, emittedIn } = cancel(room);
    expect(frames).toHaveLength(Math.floor(room.microphone.length / FRAME));
    frames.forEach((frame, k) => {
      expect(frame.endSample).toBe((k + 1) * FRAME);
      expect(emittedIn[k]).toBe(Math.floor((frame.endSample - 1) / QUANTUM) * QUANTUM);
    });
  });

  it.each([
    [0, 0],
    [AEC3_CANCELLER.captureDelayMs, 1],
  ])('hears a click at a frame’s first sample in its residual 448 samples and %i ms late: %i frame(s) on', (captureDelayMs, framesLate) => {
    // The answer, then half a second of quiet room: the click is heard after the voice, with AEC3 still trusted.
    const room = roomOf(answer, 0.3, 20);
    const length = room.microphone.length + RATE / 2;
    const output = new Float32Array(length);
    output.set(room.output);
    const microphone = new Float32Array(length);
    microphone.set(room.microphone);
    const clickFrame = Math.ceil(room.microphone.length / FRAME) + 20;
    for (let i = 0; i < 24; i++) microphone[clickFrame * FRAME + i] = 0.9 * (i % 2 === 0 ? 1 : -1);
    const { frames } = cancel({ ...room, microphone, output }, { captureDelayMs });
    const loud = frames.flatMap((frame, k) => ((frame.residual ?? 0) > 0.3 ? [k] : []));
    expect(loud).toEqual([clickFrame + framesLate]);
  });

  it('refuses a frame that is not a whole number of its 10 ms frames, naming the option', () => {
    const engine = aec3Maker()(RATE);
    try {
      expect(() => new Aec3Canceller(engine, RATE, 256)).toThrow(OptionError);
      expect(() => new Aec3Canceller(engine, RATE, 256)).toThrow(/aec3Canceller\.frameSamples/);
    } finally {
      engine.free();
    }
  });
});
