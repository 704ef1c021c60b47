import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { frameSamplesFor, peakOf, PeakFramer } from '../../../src/platform/audio/peakFrames';
import type { LevelMeterMessage } from '../../../src/platform/audio/peakFrames';

/** Pushes `blocks` (each a list of channels) starting at sample `first`, and returns what was emitted. */
function framesOf(framer: PeakFramer, blocks: readonly (readonly Float32Array[])[], first = 0, blockLength = 128): LevelMeterMessage[] {
  const out: LevelMeterMessage[] = [];
  let at = first;
  for (const channels of blocks) {
    framer.push(channels, channels[0]?.length ?? blockLength, at, (m) => out.push(m));
    at += channels[0]?.length ?? blockLength;
  }
  return out;
}

describe('frameSamplesFor', () => {
  it('makes a 10 ms frame 480 samples at 48 kHz and 441 at 44.1 kHz', () => {
    expect(frameSamplesFor(48_000, 10)).toBe(480);
    expect(frameSamplesFor(44_100, 10)).toBe(441);
  });

  it('refuses a rate or a frame length no meter could use, naming it', () => {
    expect(() => frameSamplesFor(0, 10)).toThrow('levelMeter.sampleRateHz is 0; it must be a number over 0.');
    expect(() => frameSamplesFor(48_000, Number.NaN)).toThrow('levelMeter.frameMs is NaN; it must be a number over 0 and at most 1000.');
    expect(() => new PeakFramer(0)).toThrow(OptionError);
  });
});

describe('peakOf', () => {
  it('reads how far the waveform swings from centre, either way, across channels', () => {
    const left = Float32Array.of(0.1, -0.7, 0.2);
    const right = Float32Array.of(0.3, 0.1, -0.4);
    expect(peakOf([left, right], 0, 3)).toBeCloseTo(0.7);
    expect(peakOf([left, right], 2, 3)).toBeCloseTo(0.4);
    expect(peakOf([], 0, 128)).toBe(0);
  });
});

describe('PeakFramer', () => {
  it('cuts render quanta into frames and stamps each with the sample just after its last', () => {
    const framer = new PeakFramer(200);
    const blocks = [0, 1, 2, 3].map((b) => [Float32Array.from({ length: 128 }, (_, i) => (b === 1 && i === 100 ? -0.9 : 0.01))]);
    const frames = framesOf(framer, blocks, 1000);
    // 512 samples: frames end at 1200 and 1400; the last 112 wait for the next block.
    expect(frames.map((f) => f.endSample)).toEqual([1200, 1400]);
    // Sample 128 + 100 = 228 lies in the second frame (200..399).
    expect(frames[0]?.peak).toBeCloseTo(0.01);
    expect(frames[1]?.peak).toBeCloseTo(0.9);
  });

  it('carries a loud sample at the end of one block into the frame that finishes in the next', () => {
    const framer = new PeakFramer(256);
    const first = Float32Array.from({ length: 128 }, (_, i) => (i === 127 ? 0.5 : 0));
    const second = new Float32Array(128);
    expect(framesOf(framer, [[first], [second]])).toEqual([{ peak: 0.5, endSample: 256 }]);
  });

  it('reads an input with no channels as silence, and keeps time', () => {
    const framer = new PeakFramer(128);
    expect(framesOf(framer, [[], []])).toEqual([
      { peak: 0, endSample: 128 },
      { peak: 0, endSample: 256 },
    ]);
  });

  it('starts every frame afresh: a loud frame does not leak into the next', () => {
    const framer = new PeakFramer(128);
    const loud = Float32Array.from({ length: 128 }, () => 0.8);
    const quiet = Float32Array.from({ length: 128 }, () => 0.02);
    expect(framesOf(framer, [[loud], [quiet]]).map((f) => f.peak)).toEqual([expect.closeTo(0.8), expect.closeTo(0.02)]);
  });
});
