/**
 * Where the browser's own echo cancellation has already taken the voice out of the capture (Chrome
 * on a laptop), the page knows it by measuring: neither canceller is ever trusted, since there is no
 * leak left to take out, so the frames carry no cancelled level and the second gate never starts.
 */
import { describe, expect, it } from 'vitest';
import type { CancelledFrame } from '../../../src/core/hearing/canceller';
import { aec3, keptAnswer, nlms, roomOf } from '../../helpers/keptAnswerRoom';
import type { CancellerMaker } from '../../helpers/keptAnswerRoom';

const QUANTUM = 128;
const answer = keptAnswer();

function trustedFrames(make: CancellerMaker, leakLevel: number): number {
  const room = roomOf(answer, leakLevel, 11);
  const { canceller, done } = make();
  const frames: CancelledFrame[] = [];
  try {
    for (let at = 0; at < room.microphone.length; at += QUANTUM) {
      const length = Math.min(QUANTUM, room.microphone.length - at);
      canceller.push(room.microphone.subarray(at, at + length), room.output.subarray(at, at + length), length, at, (frame) => frames.push(frame));
    }
  } finally {
    done();
  }
  return frames.filter((frame) => frame.residual !== null).length;
}

describe('a capture the browser has already cancelled', () => {
  it.each([
    ['the NLMS', nlms()],
    ['AEC3', aec3()],
  ])('leaves %s never trusted, so the second gate stays out of the way', (_name, make) => {
    expect(trustedFrames(make, 0)).toBe(0);
  });

  it('leaves the NLMS trusted where a leak the browser did not take out reaches the microphone', () => {
    expect(trustedFrames(nlms(), 0.3)).toBeGreaterThan(100);
  });
});
