import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { restartBackoff, restartWaitMs } from '../../../src/core/hearing/restartBackoff';

describe('the recogniser restart backoff', () => {
  it('reopens at once after a session that heard something, then waits 250 ms doubling to 5 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 40].map((n) => restartWaitMs(n))).toEqual([0, 250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('takes other bounds, and refuses ones that cannot hold a recogniser back', () => {
    expect(restartWaitMs(3, restartBackoff({ firstMs: 100, maxMs: 300 }))).toBe(300);
    expect(() => restartBackoff({ firstMs: 0 })).toThrow(OptionError);
    expect(() => restartBackoff({ firstMs: 500, maxMs: 400 })).toThrow('restartBackoff.maxMs is 400; it must be at least restartBackoff.firstMs (500): the waits only grow.');
  });
});
