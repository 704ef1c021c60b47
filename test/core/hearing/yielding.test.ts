import { describe, expect, it } from 'vitest';
import { SPEAKING, yieldTo } from '../../../src/core/hearing/yielding';
import { HEARING } from '../../../src/core/hearing/tuning';
import type { Ruling, YieldingContext, YieldingInput, YieldingState } from '../../../src/core/hearing/yielding';

const YIELDING = HEARING.yielding;

const WITH_MODEL: YieldingContext = { options: YIELDING, language: 'en', voiceActivity: true };
const WORDS_ONLY: YieldingContext = { ...WITH_MODEL, voiceActivity: false };

/** The voice activity model's frames, every `stepMs` from `fromMs` to `toMs`, speech or not. */
function voice(fromMs: number, toMs: number, speech: boolean, stepMs = 30): YieldingInput[] {
  const frames: YieldingInput[] = [];
  for (let atMs = fromMs; atMs <= toMs; atMs += stepMs) frames.push({ kind: 'voice', atMs, speech });
  return frames;
}

/** Runs `inputs` in order from the voice speaking; each ruling with the time it came. */
function run(inputs: readonly YieldingInput[], context = WITH_MODEL): { rulings: [Ruling, number][]; state: YieldingState } {
  let state: YieldingState = SPEAKING;
  const rulings: [Ruling, number][] = [];
  for (const input of [...inputs].sort((a, b) => a.atMs - b.atMs)) {
    const step = yieldTo(state, input, context);
    state = step.state;
    if (step.ruling !== null) rulings.push([step.ruling, input.atMs]);
  }
  return { rulings, state };
}

const heard = (atMs: number): YieldingInput => ({ kind: 'heard', atMs });
const words = (atMs: number, text: string, final = false): YieldingInput => ({ kind: 'words', atMs, text, final });
/** The gate heard the person clearing a bar of 0.3, over a speaker whose leak the model takes for speech. */
const heardOverLeak = (atMs: number): YieldingInput => ({ kind: 'heard', atMs, bar: 0.3, speechBefore: true });
/** The microphone's level every 10 ms from `fromMs` to `toMs`. */
const sound = (fromMs: number, toMs: number, level: number): YieldingInput[] =>
  voice(fromMs, toMs, false, 10).map((f) => ({ kind: 'sound', atMs: f.atMs, level }));
/** Over a leak: the model's frames all speech, the level under the bar but for the person's sound. */
const overLeak = (fromMs: number, toMs: number): YieldingInput[] => [...voice(fromMs, toMs, true), ...sound(fromMs, toMs, 0.2)];
const ticks = (fromMs: number, toMs: number): YieldingInput[] => voice(fromMs, toMs, false, 50).map((f) => ({ kind: 'tick', atMs: f.atMs }));

describe('yielding to the person', () => {
  it('ducks the moment the gate hears them, and not before', () => {
    expect(run([{ kind: 'voice', atMs: 0, speech: true }, words(10, 'hm')]).rulings).toEqual([]);
    expect(run([heard(100)]).rulings).toEqual([['duck', 100]]);
  });

  describe('a real interruption takes the turn', () => {
    it('on its first words that are not a backchannel, long before the speech ends', () => {
      const { rulings } = run([heard(0), ...voice(0, 2000, true), words(400, 'wait'), words(520, 'wait stop')]);
      expect(rulings).toEqual([['duck', 0], ['take', 400]]);
    });

    it('on speech that goes on longer than a backchannel does, before any words come', () => {
      const { rulings } = run([heard(0), ...voice(0, 1200, true), words(1100, 'actually can you')]);
      expect(rulings[1]?.[0]).toBe('take');
      expect(rulings[1]?.[1]).toBeGreaterThan(YIELDING.backchannelMaxMs);
      expect(rulings[1]?.[1]).toBeLessThanOrEqual(YIELDING.backchannelMaxMs + 30);
    });

    it('when a backchannel runs on into real words', () => {
      const { rulings } = run([heard(0), ...voice(0, 600, true), words(350, 'yeah'), words(500, 'yeah but what about Tuesday')]);
      expect(rulings).toEqual([['duck', 0], ['take', 500]]);
    });

    it('with a hold of the talk control, at once', () => {
      expect(run([heard(0), { kind: 'held', atMs: 20 }]).rulings).toEqual([['duck', 0], ['take', 20]]);
    });

    it('without a voice activity model, on words that are not a backchannel', () => {
      expect(run([heard(0), words(450, 'hold on'), ...ticks(0, 2000)], WORDS_ONLY).rulings).toEqual([['duck', 0], ['take', 450]]);
    });
  });

  describe('the voice carries on', () => {
    it('after a backchannel, once it has ended', () => {
      const { rulings, state } = run([heard(0), ...voice(0, 300, true), ...voice(330, 1500, false), words(420, 'mm-hmm')]);
      expect(rulings).toEqual([['duck', 0], ['carryOn', 570]]);
      expect(state).toEqual(SPEAKING);
    });

    it('after a backchannel in the person’s language', () => {
      const { rulings } = run([heard(0), ...voice(0, 250, true), ...voice(280, 1500, false), words(400, 'genau')], { ...WITH_MODEL, language: 'de' });
      expect(rulings.map(([ruling]) => ruling)).toEqual(['duck', 'carryOn']);
    });

    it('after a noise the model heard no speech in: a cough, a knock', () => {
      const { rulings } = run([heard(0), ...voice(0, 1000, false)]);
      expect(rulings).toEqual([['duck', 0], ['carryOn', 360]]);
    });

    it('after speech with no words, once the words had time to come', () => {
      const { rulings } = run([heard(0), ...voice(0, 400, true), ...voice(430, 2000, false)]);
      expect(rulings).toEqual([['duck', 0], ['carryOn', 1510]]);
    });

    it('without a voice activity model, after a backchannel or after no words at all', () => {
      expect(run([heard(0), words(500, 'uh-huh'), ...ticks(0, 2000)], WORDS_ONLY).rulings).toEqual([['duck', 0], ['carryOn', 500]]);
      expect(run([heard(0), ...ticks(0, 2000)], WORDS_ONLY).rulings).toEqual([['duck', 0], ['carryOn', 1500]]);
    });
  });

  describe('over a speaker, where the model hears the voice’s own leak as speech', () => {
    it('judges by the level the person cleared: a cough that has ended with no words carries on once words would have come', () => {
      const { rulings } = run([heardOverLeak(0), ...overLeak(0, 1500), ...sound(0, 200, 0.6)]);
      expect(rulings).toEqual([['duck', 0], ['carryOn', YIELDING.wordsExpectedMs]]);
    });

    it('carries on after a backchannel once its sound has ended', () => {
      const { rulings } = run([heardOverLeak(0), ...overLeak(0, 1500), ...sound(0, 400, 0.5), words(420, 'mm-hmm')]);
      expect(rulings).toEqual([['duck', 0], ['carryOn', 650]]);
    });

    it('takes the turn on a sound over the bar longer than a backchannel, and on words', () => {
      expect(run([heardOverLeak(0), ...overLeak(0, 1500), ...sound(0, 1200, 0.5)]).rulings).toEqual([['duck', 0], ['take', 710]]);
      expect(run([heardOverLeak(0), ...overLeak(0, 1500), ...sound(0, 300, 0.5), words(400, 'stop')]).rulings).toEqual([['duck', 0], ['take', 400]]);
    });

    it('bridges the dips between syllables: a sound is over only after endedMs under the bar', () => {
      const syllables = [...sound(0, 200, 0.5), ...sound(210, 400, 0.1), ...sound(410, 800, 0.5)];
      expect(run([heardOverLeak(0), ...overLeak(0, 1500), ...syllables]).rulings).toEqual([['duck', 0], ['take', 710]]);
    });
  });

  describe('words as a recogniser gives them', () => {
    it('waits on an interim that may still grow into a backchannel ("I" of "I see"), and carries on when it does', () => {
      const { rulings } = run([heard(0), ...voice(0, 400, true), ...voice(430, 1500, false), words(350, 'I'), words(450, 'I see'), words(700, 'I see.', true)]);
      expect(rulings).toEqual([['duck', 0], ['carryOn', 640]]);
    });

    it('takes the turn when it grows into more, or when a final says only that first word', () => {
      expect(run([heard(0), ...voice(0, 1500, true), words(350, 'I'), words(450, 'I want')]).rulings).toEqual([['duck', 0], ['take', 450]]);
      expect(run([heard(0), ...voice(0, 300, true), ...voice(330, 1500, false), words(350, 'I', true)]).rulings).toEqual([['duck', 0], ['take', 350]]);
    });
  });

  describe('at the boundaries', () => {
    it('a cough, then the person speaking: carries on, then ducks again and takes the turn', () => {
      const { rulings } = run([heard(0), ...voice(0, 480, false), heard(500), ...voice(510, 1600, true), words(900, 'sorry what was that')]);
      expect(rulings).toEqual([['duck', 0], ['carryOn', 360], ['duck', 500], ['take', 900]]);
    });

    it('a backchannel that is still going is not yet carried on past', () => {
      const { rulings } = run([heard(0), ...voice(0, 600, true), words(300, 'yeah')]);
      expect(rulings).toEqual([['duck', 0]]);
    });

    it('a short word the model took for no speech still takes the turn when the recogniser hears it in time', () => {
      const { rulings } = run([heard(0), ...voice(0, 1000, false), words(420, 'stop')]);
      expect(rulings).toEqual([['duck', 0], ['carryOn', 360], ['take', 420]]);
    });

    it('after a carry-on, a backchannel, words past the time they had to come, or words after a backchannel, take nothing', () => {
      expect(run([heard(0), ...voice(0, 1000, false), words(600, 'okay')]).rulings).toEqual([['duck', 0], ['carryOn', 360]]);
      expect(run([heard(0), ...voice(0, 300, true), ...voice(330, 1500, false), words(420, 'mm-hmm'), words(800, 'the fox ran off')]).rulings).toEqual([['duck', 0], ['carryOn', 570]]);
      expect(run([heard(0), ...voice(0, 1000, false), words(YIELDING.wordsWithinMs + 10, 'stop')]).rulings).toEqual([['duck', 0], ['carryOn', 360]]);
    });

    it('words with the voice speaking and no one heard over it take nothing', () => {
      expect(run([words(100, 'stop'), words(300, 'wait stop')]).rulings).toEqual([]);
    });

    it('speech just short of a backchannel’s length does not take the turn', () => {
      const { rulings } = run([heard(0), ...voice(0, YIELDING.backchannelMaxMs - 40, true), ...voice(YIELDING.backchannelMaxMs, 1400, false), words(600, 'okay')]);
      expect(rulings.map(([ruling]) => ruling)).toEqual(['duck', 'carryOn']);
    });
  });

  describe('on a busy machine, where the frames fall behind', () => {
    it('does not read a starved model’s last speech frame as speech going on: a slow "mm-hmm" is not a turn', () => {
      // The model heard 200 ms of speech, then nothing came for a second; time went on.
      const { rulings } = run([heard(0), ...voice(0, 200, true), ...ticks(250, 1200)]);
      expect(rulings).toEqual([['duck', 0]]);
    });

    it('still takes long speech once the model’s frames catch up and show it went on', () => {
      // Frames 210–900 ms, all speech, arrive late in one burst, after the ticks to 1200 ms.
      let state: YieldingState = SPEAKING;
      const rulings: Ruling[] = [];
      for (const input of [heard(0), ...voice(0, 200, true), ...ticks(250, 1200), ...voice(210, 900, true)]) {
        const step = yieldTo(state, input, WITH_MODEL);
        state = step.state;
        if (step.ruling !== null) rulings.push(step.ruling);
      }
      expect(rulings).toEqual(['duck', 'take']);
    });

    it('does not read a starved model’s silence as no speech: no frames after the duck carry nothing on before words could come', () => {
      const { rulings } = run([...voice(-100, 0, false), heard(0), ...ticks(50, 1000)]);
      expect(rulings).toEqual([['duck', 0]]);
      const later = run([...voice(-100, 0, false), heard(0), ...ticks(50, YIELDING.wordsWithinMs + 50)]);
      expect(later.rulings).toEqual([['duck', 0], ['carryOn', YIELDING.wordsWithinMs]]);
    });

    it('with the level alone, reads a sound as over only as far as the level frames have come', () => {
      const starved = run([{ kind: 'heard', atMs: 0, bar: 0.3 }, ...ticks(50, 1000)], WORDS_ONLY);
      expect(starved.rulings).toEqual([['duck', 0]]);
      const flowing = run([{ kind: 'heard', atMs: 0, bar: 0.3 }, ...sound(0, 1000, 0.1), ...ticks(50, 1000)], WORDS_ONLY);
      expect(flowing.rulings).toEqual([['duck', 0], ['carryOn', YIELDING.wordsExpectedMs]]);
    });
  });
});
