import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keySweep } from '../../../server/verbs/keySweep';

describe('the sweep of write keys', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sweeps at once, then every interval at the clock’s now, and not after it is closed', async () => {
    let nowMs = 1_000;
    const asked: number[] = [];
    const sweep = keySweep({ executor: { sweepKeys: (at) => { asked.push(at); return Promise.resolve(0); } }, clock: () => nowMs, everyMs: 60_000, log: () => undefined });
    sweep.start();
    sweep.start();
    expect(asked).toEqual([1_000]);
    nowMs = 61_000;
    vi.advanceTimersByTime(60_000);
    expect(asked).toEqual([1_000, 61_000]);
    await sweep.close();
    vi.advanceTimersByTime(120_000);
    expect(asked).toEqual([1_000, 61_000]);
  });

  it('logs a sweep that failed by its error’s name, and tries again at the next interval', async () => {
    const logged: unknown[] = [];
    let calls = 0;
    const sweep = keySweep({
      executor: { sweepKeys: () => ((calls += 1) === 1 ? Promise.reject(new TypeError('connection reset')) : Promise.resolve(3)) },
      clock: () => 0,
      everyMs: 1_000,
      log: (line) => logged.push(line),
    });
    sweep.start();
    vi.advanceTimersByTime(1_000);
    await sweep.close();
    expect(calls).toBe(2);
    expect(logged).toEqual([{ event: 'keys.sweep-failed', error: 'TypeError' }]);
  });

  it('refuses an interval that is not a number above 0, in a sentence', () => {
    expect(() => keySweep({ executor: { sweepKeys: () => Promise.resolve(0) }, clock: () => 0, everyMs: 0, log: () => undefined })).toThrow('keySweep.everyMs is 0; it must be a number over 0.');
  });
});
