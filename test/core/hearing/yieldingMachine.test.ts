/**
 * Yielding as a statechart (yieldingMachine.ts) around the pure decision, on a simulated clock: the
 * voice activity model counts only while its frames keep coming; the voice's own words heard
 * through the speakers decide nothing; what was held goes on once the turn is the person's; a
 * carry-on arms the gate again; a turn that ends another way lets the held words go on.
 */
import { createActor, SimulatedClock } from 'xstate';
import { describe, expect, it } from 'vitest';
import { HEARING } from '../../../src/core/hearing/tuning';
import { yieldingMachine } from '../../../src/core/hearing/yieldingMachine';
import type { HeardWords } from '../../../src/core/hearing/yieldingMachine';

const SPOKEN = ['Once upon a time there was a fox.'];

function setUp() {
  const clock = new SimulatedClock();
  const log: string[] = [];
  const forwarded: HeardWords[] = [];
  const passed: HeardWords[] = [];
  const machine = yieldingMachine.provide({
    actions: {
      duck: () => log.push('duck'),
      take: (_, { words }) => {
        log.push('take');
        forwarded.push(...words);
      },
      carryOn: () => log.push('carry on'),
      release: (_, { words }) => {
        log.push('release');
        forwarded.push(...words);
      },
      pass: (_, { words }) => passed.push(words),
    },
  });
  const actor = createActor(machine, { clock, input: { pace: HEARING.yielding, now: () => clock.now() } }).start();
  /** Moves the clock to `toMs`, a voice frame every 32 ms when `speech` is given; the machine's delays run as it goes. */
  const until = (toMs: number, speech?: boolean) => {
    while (clock.now() < toMs) {
      clock.increment(Math.min(toMs, clock.now() + 32) - clock.now());
      if (speech !== undefined) actor.send({ type: 'voice', atMs: clock.now(), speech });
    }
  };
  const say = (text: string, final = false, sounding = true) => {
    const words: HeardWords = final ? { final, text, turnId: 't' } : { final, text };
    actor.send({ type: 'words', words, spoken: SPOKEN, language: 'en', sounding });
  };
  const heard = () => {
    actor.send({ type: 'heard', atMs: clock.now() });
  };
  const deciding = () => actor.getSnapshot().matches('deciding');
  return { actor, log, forwarded, passed, until, say, heard, deciding };
}

describe('yielding', () => {
  it('with no voice activity frames coming, decides by words: a backchannel carries on at once', () => {
    const t = setUp();
    t.heard();
    t.say('Mm-hmm.', true);
    expect(t.log).toEqual(['duck', 'carry on']);
    expect(t.deciding()).toBe(false);
  });

  it('with frames coming, waits for the backchannel to end before carrying on, and lets its words go', () => {
    const t = setUp();
    t.until(100, false);
    t.heard();
    t.until(300, true);
    t.say('Mm-hmm.', true);
    expect(t.log).toEqual(['duck']);
    t.until(700, false);
    expect(t.log).toEqual(['duck', 'carry on']);
    expect(t.forwarded).toEqual([]);
    expect(t.passed).toEqual([]);
  });

  it('counts the model out once its frames stop coming, and a no-speech carry-on waits for words instead', () => {
    const t = setUp();
    t.until(100, false);
    t.until(1000);
    t.heard();
    t.until(1500);
    expect(t.log).toEqual(['duck']);
    t.until(1000 + HEARING.yielding.wordsWithinMs + HEARING.yielding.tickMs);
    expect(t.log).toEqual(['duck', 'carry on']);
  });

  it('takes the voice’s own words, heard through the speakers, for nobody', () => {
    const t = setUp();
    t.heard();
    t.say('there was a fox');
    expect(t.log).toEqual(['duck']);
    expect(t.passed).toEqual([]);
    expect(t.deciding()).toBe(true);
  });

  it('gives the turn to the person on words that are more than a backchannel, and passes on what it held', () => {
    const t = setUp();
    t.heard();
    t.say('wait');
    expect(t.log).toEqual(['duck', 'take']);
    expect(t.forwarded).toEqual([{ final: false, text: 'wait' }]);
  });

  it('passes on late words that take the turn after a no-speech carry-on, and lets late words that do not go', () => {
    const t = setUp();
    t.until(100, false);
    t.heard();
    t.until(600, false);
    expect(t.log).toEqual(['duck', 'carry on']);
    t.say('okay');
    expect(t.forwarded).toEqual([]);
    expect(t.passed).toEqual([]);
    t.say('stop');
    expect(t.log.at(-1)).toBe('take');
    expect(t.forwarded).toEqual([{ final: false, text: 'stop' }]);
  });

  it('lets words go on to the conversation when the voice is not sounding, and drops them while it is', () => {
    const t = setUp();
    t.say('hello there', true, false);
    t.say('the room', false, true);
    expect(t.passed).toEqual([{ final: true, text: 'hello there', turnId: 't' }]);
  });

  it('hands over the held words when the turn ends some other way, and stops giving the decision time', () => {
    const t = setUp();
    t.heard();
    t.say('I');
    t.actor.send({ type: 'release' });
    expect(t.log).toEqual(['duck', 'release']);
    expect(t.forwarded).toEqual([{ final: false, text: 'I' }]);
    t.until(5000);
    expect(t.log).toEqual(['duck', 'release']);
  });
});
