import { describe, expect, it } from 'vitest';
import { underLoad } from '../helpers/benchLoad';

describe('underLoad', () => {
  it("answers the work's value and the load average seen while it ran", async () => {
    const { value, loadAverage1m } = await underLoad(0, () => 42);
    expect(value).toBe(42);
    expect(loadAverage1m.max).toBeGreaterThanOrEqual(loadAverage1m.mean);
    expect(loadAverage1m.mean).toBeGreaterThanOrEqual(0);
  });

  it("rejects with the work's own error when the work fails under load", async () => {
    const failure = new Error('the benchmark failed');
    await expect(underLoad(1, () => Promise.reject(failure))).rejects.toBe(failure);
  });
});
