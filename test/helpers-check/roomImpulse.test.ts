import { describe, expect, it } from 'vitest';
import { ROOM, resolveRoom, roomImpulse } from '../e2e/harness/room';

const RATE_HZ = 44_100;
const at = (ms: number) => Math.round((ms / 1000) * RATE_HZ);
const energyOf = (samples: Float32Array) => samples.reduce((sum, s) => sum + s * s, 0);

describe('the harness room’s impulse response', () => {
  it('passes the direct sound undelayed and is silent until the first reflection', () => {
    const impulse = roomImpulse(RATE_HZ);
    expect(impulse[0]).toBe(1);
    expect(impulse.subarray(1, at(ROOM.firstReflectionMs)).every((s) => s === 0)).toBe(true);
    expect(impulse.length).toBe(at(ROOM.tailMs));
  });

  it('holds its tail’s energy at tailToDirectDb under the direct sound’s, falling 60 dB from its peak to its end', () => {
    const impulse = roomImpulse(RATE_HZ);
    expect(10 * Math.log10(energyOf(impulse.subarray(1)))).toBeCloseTo(ROOM.tailToDirectDb, 5);
    const near = (ms: number) => energyOf(impulse.subarray(at(ms) - at(10), at(ms) + at(10)));
    expect(10 * Math.log10(near(ROOM.tailMs - 10) / near(ROOM.tailPeakMs))).toBeLessThan(-50);
  });

  it('is the same room every time for a seed, and another for another seed', () => {
    expect(roomImpulse(RATE_HZ)).toEqual(roomImpulse(RATE_HZ));
    expect(roomImpulse(RATE_HZ, { seed: 7 })).not.toEqual(roomImpulse(RATE_HZ));
  });

  it('refuses times out of order, saying which', () => {
    expect(() => resolveRoom({ tailPeakMs: 400 })).toThrow(/firstReflectionMs ≤ tailPeakMs < tailMs/);
  });
});
