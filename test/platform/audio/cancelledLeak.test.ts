/**
 * The kept answer's leak (test/e2e/speech/clips) through the level meter's echo canceller and the
 * page's two gates, as the page hears it, at the lags a capture puts between the player's output
 * and the microphone: the leak alone is never a person, and a person over it still is.
 *
 * The lag moves from launch to launch (0–10 ms through the fake microphone, more on real devices),
 * and at some lags the filter drifts on one loud syllable of the answer: its residual there was
 * nearly as loud as the microphone while its enhancement stayed trusted, and the second gate took
 * it for a person (a false barge-in 4.1 s into the answer, one CI run in four), until the canceller
 * said such frames were its own misfit (`CancelledFrame.echoLeft`).
 */
import { describe, expect, it } from 'vitest';
import { keptAnswer, nlms, pageBargeInsMs, roomOf } from '../../helpers/keptAnswerRoom';

const answer = keptAnswer();

describe('the kept answer’s leak through the canceller and both gates', () => {
  it.each([
    [0.5, 0],
    [0.5, 11],
    [0.7, 11],
    [0.5, 23],
    [0.7, 23],
  ])('is no person at leak %f, %i ms late', (leakLevel, lagMs) => {
    expect(pageBargeInsMs(roomOf(answer, leakLevel, lagMs))).toEqual([]);
  });

  it.each([2000, 3000, 4100, 5000])('still hears a person asking a question %i ms in, twice as loud as a 0.5 leak 23 ms late, within 200 ms', (atMs) => {
    const heard = pageBargeInsMs(roomOf(answer, 0.5, 23, { atMs, level: 1 }));
    expect(heard).toHaveLength(1);
    expect(heard[0] ?? 0).toBeGreaterThanOrEqual(atMs);
    expect(heard[0] ?? Infinity).toBeLessThan(atMs + 200);
  });

  it('is what the flag does: without it the drifted syllable 4.1 s in is taken for a person', () => {
    expect(pageBargeInsMs(roomOf(answer, 0.7, 23), nlms({ misfitCorrelation: 2 }))).toHaveLength(1);
  });
});
