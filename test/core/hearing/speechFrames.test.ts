/**
 * The microphone brought to the voice activity model's 16 kHz frames (speechFrames.ts): the
 * frames' lengths and times on the audio clock, a tone kept at its pitch and level at 48 and
 * 44.1 kHz, what lies over 8 kHz turned down, and a frame carried across render quanta.
 */
import { describe, expect, it } from 'vitest';
import { SPEECH_FRAME_SAMPLES, SPEECH_RATE_HZ } from '../../../common/voiceActivity';
import { SpeechFramer } from '../../../src/core/hearing/speechFrames';
import type { SpeechFrameMessage } from '../../../src/core/hearing/speechFrames';

const QUANTUM = 128;

function tone(hz: number, rateHz: number, seconds: number, level = 0.5): Float32Array {
  return Float32Array.from({ length: Math.round(rateHz * seconds) }, (_, i) => level * Math.sin((2 * Math.PI * hz * i) / rateHz));
}

/** Pushes `samples` a render quantum at a time, from sample `first` on the audio clock. */
function framesOf(samples: Float32Array, rateHz: number, first = 0): SpeechFrameMessage[] {
  const framer = new SpeechFramer(rateHz);
  const out: SpeechFrameMessage[] = [];
  for (let at = 0; at < samples.length; at += QUANTUM) {
    const block = samples.subarray(at, Math.min(samples.length, at + QUANTUM));
    framer.push([block], block.length, first + at, (frame) => out.push(frame));
  }
  return out;
}

function rms(samples: Float32Array): number {
  return Math.sqrt(samples.reduce((sum, s) => sum + s * s, 0) / samples.length);
}

/** Zero crossings per second: the pitch of a pure tone, twice over. */
function crossingsPerSecond(samples: Float32Array): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (Math.sign(samples[i] ?? 0) !== Math.sign(samples[i - 1] ?? 0)) crossings++;
  return crossings / (samples.length / SPEECH_RATE_HZ);
}

describe('SpeechFramer', () => {
  it.each([48_000, 44_100])('cuts %i Hz into 512-sample frames at 16 kHz, each ended at its place on the audio clock', (rateHz) => {
    const first = 1_000_000;
    const frames = framesOf(tone(440, rateHz, 1), rateHz, first);
    expect(frames).toHaveLength(Math.floor(SPEECH_RATE_HZ / SPEECH_FRAME_SAMPLES));
    for (const [n, frame] of frames.entries()) {
      expect(frame.samples).toHaveLength(SPEECH_FRAME_SAMPLES);
      // The frame ends where its last output sample's input does: (n + 1) × 512 × the rate's ratio.
      expect(frame.endSample - first).toBeCloseTo(((n + 1) * SPEECH_FRAME_SAMPLES * rateHz) / SPEECH_RATE_HZ, -0.5);
    }
  });

  it.each([48_000, 44_100])('keeps a 440 Hz tone at %i Hz at its pitch and level', (rateHz) => {
    const frames = framesOf(tone(440, rateHz, 1), rateHz);
    const out = new Float32Array(frames.flatMap((frame) => [...frame.samples]));
    expect(crossingsPerSecond(out)).toBeCloseTo(880, -1);
    expect(rms(out)).toBeCloseTo(0.5 / Math.SQRT2, 2);
  });

  it('turns down what a 16 kHz model cannot hear: a tone at 15 kHz comes out far quieter than one at 1 kHz', () => {
    const low = framesOf(tone(1000, 48_000, 0.5), 48_000).flatMap((frame) => [...frame.samples]);
    const high = framesOf(tone(15_000, 48_000, 0.5), 48_000).flatMap((frame) => [...frame.samples]);
    expect(rms(Float32Array.from(high))).toBeLessThan(rms(Float32Array.from(low)) / 4);
  });

  it('hears a block with no channels as silence, and time passes all the same', () => {
    const framer = new SpeechFramer(48_000);
    const out: SpeechFrameMessage[] = [];
    for (let at = 0; at < 48_000 * 0.1; at += QUANTUM) framer.push([], QUANTUM, at, (frame) => out.push(frame));
    expect(out).toHaveLength(3);
    expect(out.every((frame) => frame.samples.every((s) => s === 0))).toBe(true);
  });

  it('gives each frame a buffer of its own, so a frame handed on is not overwritten', () => {
    const frames = framesOf(tone(300, 48_000, 0.2), 48_000);
    expect(new Set(frames.map((frame) => frame.samples.buffer)).size).toBe(frames.length);
  });

  it('refuses a rate under 16 kHz, naming it', () => {
    expect(() => new SpeechFramer(8000)).toThrow('speechFramer.inputRateHz is 8000; it must be a number, 16000 or more.');
  });
});
