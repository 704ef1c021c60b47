/**
 * The yielder's wiring (yielder.ts) around the pure decision: the voice activity model counts only
 * while its frames keep coming; the assistant's own words heard through the speakers decide nothing;
 * what was held goes on once the turn is the person's; a carry-on arms the gate again.
 */
import { describe, expect, it } from 'vitest';
import { createYielder } from '../../src/app/yielder';
import type { HeardWords } from '../../src/app/yielder';

function setUp() {
  let nowMs = 0;
  const timers: { atMs: number; run: () => void }[] = [];
  const log: string[] = [];
  const forwarded: HeardWords[] = [];
  const yielder = createYielder({
    duck: (ducked) => log.push(ducked ? 'duck' : 'unduck'),
    heardOver: () => log.push('heard over'),
    sounding: () => true,
    interrupt: () => log.push('interrupt'),
    listenAgain: () => log.push('listen again'),
    forward: (words) => forwarded.push(words),
    spoken: () => ['Once upon a time there was a fox.'],
    language: () => 'en',
    nowMs: () => nowMs,
    after: (delayMs, run) => {
      const timer = { atMs: nowMs + delayMs, run };
      timers.push(timer);
      return () => timers.splice(timers.indexOf(timer), 1);
    },
  });
  /** Moves the clock to `toMs`, running the timers due, and a voice frame every 32 ms when `speech` is given. */
  const until = (toMs: number, speech?: boolean) => {
    while (nowMs < toMs) {
      nowMs = Math.min(toMs, nowMs + 32);
      if (speech !== undefined) yielder.voice({ atMs: nowMs, speech });
      for (const timer of timers.filter((t) => t.atMs <= nowMs)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.run();
      }
    }
  };
  return { yielder, log, forwarded, until };
}

describe('the yielder', () => {
  it('with no voice activity frames coming, decides by words: a backchannel carries on at once', () => {
    const t = setUp();
    t.yielder.heard(0);
    t.yielder.words({ final: true, text: 'Mm-hmm.' });
    expect(t.log).toEqual(['duck', 'heard over', 'unduck', 'listen again']);
  });

  it('with frames coming, waits for the backchannel to end before carrying on, and lets its words go', () => {
    const t = setUp();
    t.until(100, false);
    t.yielder.heard(100);
    t.until(300, true);
    t.yielder.words({ final: true, text: 'Mm-hmm.' });
    expect(t.log).toEqual(['duck', 'heard over']);
    t.until(700, false);
    expect(t.log).toEqual(['duck', 'heard over', 'unduck', 'listen again']);
    expect(t.forwarded).toEqual([]);
  });

  it('counts the model out once its frames stop coming (it failed), and a no-speech carry-on waits for words instead', () => {
    const t = setUp();
    t.until(100, false);
    t.until(1000);
    t.yielder.heard(1000);
    t.until(1500);
    expect(t.log).toEqual(['duck', 'heard over']);
    t.until(2600);
    expect(t.log).toEqual(['duck', 'heard over', 'unduck', 'listen again']);
  });

  it('takes the assistant’s own words, heard through the speakers, for nobody', () => {
    const t = setUp();
    t.yielder.heard(0);
    expect(t.yielder.words({ final: false, text: 'there was a fox' })).toBe(true);
    expect(t.log).toEqual(['duck', 'heard over']);
  });

  it('gives the turn to the person on words that are more than a backchannel, and passes on what it held', () => {
    const t = setUp();
    t.yielder.heard(0);
    t.yielder.words({ final: false, text: 'wait' });
    expect(t.log).toEqual(['duck', 'heard over', 'interrupt']);
    expect(t.forwarded).toEqual([{ final: false, text: 'wait' }]);
  });

  it('passes on late words that take the turn after a no-speech carry-on, and lets late words that do not go', () => {
    const t = setUp();
    t.until(100, false);
    t.yielder.heard(100);
    t.until(600, false);
    expect(t.log).toEqual(['duck', 'heard over', 'unduck', 'listen again']);
    expect(t.yielder.words({ final: false, text: 'okay' })).toBe(true);
    expect(t.forwarded).toEqual([]);
    t.yielder.words({ final: false, text: 'stop' });
    expect(t.log.at(-1)).toBe('interrupt');
    expect(t.forwarded).toEqual([{ final: false, text: 'stop' }]);
  });
});
