import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OptionError } from '../../../common/options';
import { PlayerDisposedError, STOP_RAMP_MS, createAudioPlayer } from '../../../src/platform/audio/player';
import { HEARING } from '../../../src/core/hearing/tuning';

const { unduckMs: UNDUCK_MS } = HEARING.duck;
import type { AudioPlayer, PieceKey } from '../../../src/platform/audio/player';
import { FakeAudioContext } from '../../helpers/fakeAudioContext';

const RATE = 44_100;
const tone = (seconds: number, value = 0.5, rateHz = RATE) => new Float32Array(Math.round(seconds * rateHz)).fill(value);
const key = (piece: number, utteranceId = 1): PieceKey => ({ utteranceId, piece });

interface Setup {
  context: FakeAudioContext;
  player: AudioPlayer;
  events: string[];
  /** Moves the audio clock and the timers together, as a real page's would. */
  advanceTo: (timeS: number) => void;
}

function setUp(gapMs = 120): Setup {
  const context = new FakeAudioContext();
  const player = createAudioPlayer(context as unknown as BaseAudioContext, { gapMs });
  const events: string[] = [];
  player.on('started', (k) => events.push(`started ${k.utteranceId}.${k.piece}`));
  player.on('ended', (k) => events.push(`ended ${k.utteranceId}.${k.piece}`));
  player.on('audible', (a) => events.push(a ? 'audible' : 'silent'));
  const advanceTo = (timeS: number) => {
    // In steps, so timers and ends interleave in clock order.
    const stepS = 0.001;
    for (let t = context.currentTime + stepS; t < timeS + stepS / 2; t += stepS) {
      context.advanceTo(Math.min(t, timeS));
      vi.advanceTimersByTime(stepS * 1000);
    }
  };
  return { context, player, events, advanceTo };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the audio player', () => {
  it('plays whole pieces back to back with exactly the gap between them, on the audio clock', () => {
    const { context, player } = setUp(120);
    player.play(key(0), tone(0.5), RATE);
    player.play(key(1), tone(0.25), RATE);
    player.play(key(2), tone(0.1, 0.5, 24_000), 24_000);
    const starts = context.sources.map((s) => s.startS ?? NaN);
    expect(starts[0]).toBe(0);
    expect(starts[1]).toBeCloseTo(0.5 + 0.12, 9);
    expect(starts[2]).toBeCloseTo(0.5 + 0.12 + 0.25 + 0.12, 9);
    expect(context.sources[2]?.rateHz).toBe(24_000);
  });

  it('reports each piece started and ended in order, and audible from the first sample to the last', () => {
    const { player, events, advanceTo } = setUp(100);
    player.play(key(0), tone(0.2), RATE);
    player.play(key(1), tone(0.2), RATE);
    advanceTo(0.25);
    expect(events).toEqual(['audible', 'started 1.0', 'ended 1.0']);
    // The gap between two scheduled pieces still counts as the assistant talking.
    expect(player.audible).toBe(true);
    advanceTo(0.31);
    expect(events).toEqual(['audible', 'started 1.0', 'ended 1.0', 'started 1.1']);
    advanceTo(0.6);
    expect(events.slice(-2)).toEqual(['ended 1.1', 'silent']);
    expect(player.drained).toBe(true);
  });

  it('says where on the audio clock the sounding began, whenever it is asked, and forgets it once silent', () => {
    const { context, player, advanceTo } = setUp(100);
    expect(player.audibleFromMs).toBeNull();
    player.play(key(0), tone(0.2), RATE);
    player.play(key(1), tone(0.2), RATE);
    // Asked 80 ms on: the time is still the first sample's.
    const startS = context.sources[0]?.startS ?? NaN;
    context.advanceTo(startS + 0.08);
    vi.advanceTimersByTime(200);
    expect(player.audible).toBe(true);
    expect(player.audibleFromMs).toBeCloseTo(startS * 1000, 6);
    advanceTo(startS + 0.35);
    // The second piece does not move it: the gap between them is part of one sounding.
    expect(player.audibleFromMs).toBeCloseTo(startS * 1000, 6);
    advanceTo(startS + 0.6);
    expect(player.audible).toBe(false);
    expect(player.audibleFromMs).toBeNull();
  });

  it('schedules streamed frames as they land, each right after the last', () => {
    const { context, player } = setUp();
    const writer = player.open(key(0), 24_000);
    writer.write(tone(0.1, 0.5, 24_000));
    writer.write(tone(0.1, 0.5, 24_000));
    expect(context.sources.map((s) => s.startS)).toEqual([0, 0.1]);
    writer.end();
    player.play(key(1), tone(0.1), RATE);
    expect(context.sources[2]?.startS).toBeCloseTo(0.2 + 0.12, 9);
  });

  it('keeps the order the pieces were opened in, holding a later piece until the earlier one ends', () => {
    const { context, player, advanceTo, events } = setUp(120);
    const first = player.open(key(0), RATE);
    const second = player.open(key(1), RATE);
    second.write(tone(0.3, 0.2));
    second.end();
    expect(context.sources).toHaveLength(0);
    first.write(tone(0.2, 0.9));
    expect(context.sources).toHaveLength(1);
    first.end();
    expect(context.sources).toHaveLength(2);
    expect(context.sources[1]?.startS).toBeCloseTo(0.2 + 0.12, 9);
    advanceTo(0.7);
    expect(events.filter((e) => e.startsWith('started') || e.startsWith('ended'))).toEqual(['started 1.0', 'ended 1.0', 'started 1.1', 'ended 1.1']);
  });

  it('starts a frame that lands after its time now rather than in the past, and the piece goes on from there', () => {
    const { context, player, advanceTo, events } = setUp();
    const writer = player.open(key(0), RATE);
    writer.write(tone(0.1));
    advanceTo(0.3); // the stream fell behind: the first frame played out, then silence
    expect(events).toEqual(['audible', 'started 1.0', 'silent']);
    writer.write(tone(0.1));
    expect(context.sources[1]?.startS).toBeCloseTo(0.3, 9);
    writer.end();
    advanceTo(0.5);
    expect(events.slice(-1)).toEqual(['ended 1.0']);
  });

  it('stop ramps to silence over 5 ms, silent within a quantum after, drops everything queued, and reports no end for what it dropped', () => {
    const { context, player, events, advanceTo } = setUp();
    player.play(key(0), tone(0.5), RATE);
    const streaming = player.open(key(1), RATE);
    streaming.write(tone(0.5));
    advanceTo(0.2);
    expect(context.soundingPeak()).toBeCloseTo(0.5, 6);
    player.stop();
    expect(STOP_RAMP_MS).toBe(5);
    // No cut mid-waveform (a click): the level falls along the ramp...
    expect(context.soundingPeak()).toBeCloseTo(0.5, 6);
    context.advanceTo(0.2 + 0.0025);
    expect(context.soundingPeak()).toBeCloseTo(0.25, 6);
    // ...and is gone one render quantum after it ends.
    context.advanceTo(0.2 + 0.005 + 128 / 48_000);
    expect(context.soundingPeak()).toBe(0);
    expect(player.audible).toBe(false);
    expect(player.drained).toBe(true);
    expect(streaming.dropped).toBe(true);
    streaming.write(tone(0.5));
    streaming.end();
    advanceTo(2);
    expect(events).toEqual(['audible', 'started 1.0', 'silent']);
    expect(context.sources.every((s) => s.stoppedAtS !== null)).toBe(true);
  });

  it('ducks by 18 dB within one render quantum, keeps playing, and comes back to full level without a click', () => {
    const { context, player, events, advanceTo } = setUp();
    player.play(key(0), tone(1, 0.5), RATE);
    advanceTo(0.2);
    player.duck(true);
    expect(player.ducked).toBe(true);
    context.advanceTo(0.2 + 128 / 48_000);
    expect(context.soundingPeak()).toBeCloseTo(0.5 * 10 ** (-18 / 20), 6);
    advanceTo(0.5);
    expect(player.audible).toBe(true);
    player.duck(false);
    // On the way back it passes through the levels between, never jumping.
    context.advanceTo(0.5 + UNDUCK_MS / 2000);
    const halfway = context.soundingPeak();
    expect(halfway).toBeGreaterThan(0.5 * 10 ** (-18 / 20));
    expect(halfway).toBeLessThan(0.5);
    context.advanceTo(0.5 + UNDUCK_MS / 1000);
    expect(context.soundingPeak()).toBeCloseTo(0.5, 6);
    advanceTo(1.2);
    expect(events).toEqual(['audible', 'started 1.0', 'ended 1.0', 'silent']);
  });

  describe('coming back from a duck that ran past the end of a sentence', () => {
    /** Two pieces of 0.5 s, 0.12 s apart; the first ducked over from 0.4 s. */
    function duckedOverTheEnd() {
      const setup = setUp(120);
      setup.player.play(key(0), tone(0.5, 0.5), RATE);
      setup.player.play(key(1), tone(0.5, 0.3), RATE);
      setup.advanceTo(0.4);
      setup.player.duck(true);
      setup.advanceTo(0.7);
      return setup;
    }

    it('says that sentence again from its start, at full level, and what followed it after it', () => {
      const { context, player, events, advanceTo } = duckedOverTheEnd();
      const before = context.sources.length;
      player.duck(false);
      const again = context.sources.slice(before);
      expect(again.map((s) => s.startS)).toEqual([0.7 + STOP_RAMP_MS / 1000, expect.closeTo(0.7 + STOP_RAMP_MS / 1000 + 0.5 + 0.12, 9)]);
      expect(again.map((s) => s.samples[0])).toEqual([0.5, Math.fround(0.3)]);
      // What sounded under the duck (the second piece's start) fades out and stops.
      expect(context.sources[1]?.stoppedAtS).toBeCloseTo(0.7 + STOP_RAMP_MS / 1000, 9);
      advanceTo(0.71);
      expect(context.soundingPeak()).toBeCloseTo(0.5, 6);
      advanceTo(2);
      expect(events).toEqual(['audible', 'started 1.0', 'ended 1.0', 'started 1.1', 'started 1.0', 'ended 1.0', 'started 1.1', 'ended 1.1', 'silent']);
    });

    it('says a sentence again once only, however often it is ducked over', () => {
      const { context, player, advanceTo } = duckedOverTheEnd();
      player.duck(false);
      advanceTo(1.1);
      player.duck(true);
      advanceTo(1.3);
      const before = context.sources.length;
      player.duck(false);
      expect(context.sources.length).toBe(before);
      expect(player.ducked).toBe(false);
    });

    it('says nothing again when the duck ended before the sentence did', () => {
      const { context, player, advanceTo } = setUp(120);
      player.play(key(0), tone(0.5), RATE);
      player.play(key(1), tone(0.5), RATE);
      advanceTo(0.1);
      player.duck(true);
      advanceTo(0.4);
      player.duck(false);
      expect(context.sources).toHaveLength(2);
    });

    it('says nothing again when the duck ran past the end of the last piece: the answer is over', () => {
      const { context, player, events, advanceTo } = setUp(120);
      player.play(key(0), tone(0.5), RATE);
      advanceTo(0.4);
      player.duck(true);
      advanceTo(0.7);
      player.duck(false);
      expect(context.sources).toHaveLength(1);
      expect(events).toEqual(['audible', 'started 1.0', 'ended 1.0', 'silent']);
    });
  });

  it('ends a duck with a stop: what plays next plays at full level', () => {
    const { context, player, advanceTo } = setUp();
    player.play(key(0), tone(0.5), RATE);
    advanceTo(0.1);
    player.duck(true);
    player.stop();
    expect(player.ducked).toBe(false);
    player.play(key(0, 2), tone(0.5, 0.4), RATE);
    advanceTo(0.2);
    expect(context.soundingPeak()).toBeCloseTo(0.4, 6);
  });

  it('plays again after a stop, starting now', () => {
    const { context, player, advanceTo, events } = setUp();
    player.play(key(0), tone(0.5), RATE);
    advanceTo(0.1);
    player.stop();
    player.play(key(0, 2), tone(0.2), RATE);
    expect(context.sources.at(-1)?.startS).toBeCloseTo(0.1, 9);
    advanceTo(0.4);
    expect(events.slice(-4)).toEqual(['audible', 'started 2.0', 'ended 2.0', 'silent']);
  });

  it('starts and ends an empty piece in its turn, with no gap after it', () => {
    const { context, player, events, advanceTo } = setUp(120);
    player.play(key(0), tone(0.2), RATE);
    player.open(key(1), RATE).end();
    player.play(key(2), tone(0.2), RATE);
    expect(context.sources[1]?.startS).toBeCloseTo(0.2 + 0.12, 9);
    advanceTo(0.25);
    expect(events).toEqual(['audible', 'started 1.0', 'ended 1.0', 'started 1.1', 'ended 1.1']);
  });

  it('reads its level from what is going out', () => {
    const { player, advanceTo } = setUp();
    expect(player.level()).toBe(0);
    player.play(key(0), tone(0.5, -0.6), RATE);
    advanceTo(0.1);
    expect(player.level()).toBeCloseTo(0.6, 6);
    player.stop();
    advanceTo(0.1 + STOP_RAMP_MS / 1000);
    expect(player.level()).toBe(0);
  });

  it('applies a new gap to pieces not yet scheduled', () => {
    const { context, player } = setUp(120);
    player.play(key(0), tone(0.2), RATE);
    player.gapMs = 300;
    player.play(key(1), tone(0.2), RATE);
    // The first piece's gap was added when it ended; the new one applies after the second.
    player.play(key(2), tone(0.2), RATE);
    expect(context.sources[1]?.startS).toBeCloseTo(0.32, 9);
    expect(context.sources[2]?.startS).toBeCloseTo(0.32 + 0.2 + 0.3, 9);
  });

  it('refuses a rate or gap no piece could be played with, and use after dispose, with sentences', () => {
    const { player } = setUp();
    expect(() => player.open(key(0), 4000)).toThrow('piece.sampleRateHz is 4000; it must be a number from 8000 to 96000.');
    expect(() => player.open(key(0), Number.NaN)).toThrow(OptionError);
    expect(() => {
      player.gapMs = -1;
    }).toThrow('player.gapMs is -1; it must be a number, 0 or more.');
    expect(() => createAudioPlayer(new FakeAudioContext() as unknown as BaseAudioContext, { gapMs: Number.POSITIVE_INFINITY })).toThrow(OptionError);
    player.dispose();
    expect(() => player.open(key(0), RATE)).toThrow(PlayerDisposedError);
  });

  it('stops telling a listener once it unsubscribes', () => {
    const { player, advanceTo } = setUp();
    const heard: PieceKey[] = [];
    const off = player.on('started', (k) => heard.push(k));
    off();
    player.play(key(0), tone(0.1), RATE);
    advanceTo(0.2);
    expect(heard).toEqual([]);
  });

  it('says nothing is heard while the context is suspended, and reports the start once it runs', () => {
    const { context, player, events, advanceTo } = setUp();
    context.setState('suspended');
    player.play(key(0), tone(0.2), RATE);
    advanceTo(0); // the suspended clock does not move
    vi.advanceTimersByTime(500);
    expect(events).toEqual([]);
    expect(player.audible).toBe(false);
    context.setState('running');
    expect(events).toEqual(['audible', 'started 1.0']);
  });

  it('leaves no statechange listener behind for pieces stopped while the context was suspended', () => {
    const { context, player, events } = setUp();
    const listening = new Set<unknown>();
    const add = context.addEventListener.bind(context);
    const remove = context.removeEventListener.bind(context);
    vi.spyOn(context, 'addEventListener').mockImplementation((type, listener) => {
      listening.add(listener);
      add(type, listener);
    });
    vi.spyOn(context, 'removeEventListener').mockImplementation((type, listener) => {
      listening.delete(listener);
      remove(type, listener);
    });
    context.setState('suspended');
    for (let utteranceId = 1; utteranceId <= 5; utteranceId++) {
      player.play(key(0, utteranceId), tone(0.2), RATE);
      expect(listening.size).toBe(1);
      player.stop();
    }
    expect(listening.size).toBe(0);
    player.play(key(0, 6), tone(0.2), RATE);
    context.setState('running');
    expect(listening.size).toBe(0);
    expect(events).toEqual(['audible', 'started 6.0']);
  });
});
