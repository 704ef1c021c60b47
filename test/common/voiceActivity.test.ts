import { describe, expect, it } from 'vitest';
import { hearActivity, NO_SPEECH } from '../../common/voiceActivity';
import { HEARING } from '../../src/core/hearing/tuning';

/** Whether each frame was in speech, after hearing `probabilities` from no speech. */
function speechOver(probabilities: readonly number[]): boolean[] {
  let state = NO_SPEECH;
  return probabilities.map((probability) => {
    state = hearActivity(state, probability, HEARING.voiceActivity);
    return state.speech;
  });
}

describe('voice activity, with hysteresis', () => {
  it('begins speech on a frame over onAt, and not on one under it', () => {
    expect(speechOver([0.1, 0.49, 0.5, 0.9])).toEqual([false, false, true, true]);
  });

  it('keeps speech through short dips between syllables, and ends it after hangFrames quiet frames', () => {
    expect(speechOver([0.9, 0.2, 0.2, 0.8, 0.2, 0.2, 0.2, 0.4])).toEqual([true, true, true, true, true, true, false, false]);
    expect(HEARING.voiceActivity.hangFrames).toBe(3);
  });

  it('counts a frame between offAt and onAt as speech going on, but never as speech beginning', () => {
    expect(speechOver([0.4, 0.9, 0.1, 0.4, 0.1, 0.1, 0.1, 0.4])).toEqual([false, true, true, true, true, true, false, false]);
  });
});
