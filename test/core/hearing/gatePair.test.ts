/**
 * The two echo gates heard as one (gatePair.ts): the cancelled gate hears a soft start the raw one
 * cannot, a person is heard once however many gates hear them, the cancelled gate lives only while
 * the canceller is trusted, and both re-arm together.
 */
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { hearFrame } from '../../../src/core/hearing/echoGate';
import { barsOf, hearPair, listenAgainPair, startGatePair } from '../../../src/core/hearing/gatePair';
import type { GatePairFrame, GatePairState } from '../../../src/core/hearing/gatePair';
import { HEARING } from '../../../src/core/hearing/tuning';

const FRAME_MS = 10;

/** Frames of a leak at `raw` on the microphone and `cancelled` once the voice is taken out (none: the canceller is not trusted), from `fromMs`. */
function leak(count: number, raw: number, cancelled: number | undefined, fromMs: number): GatePairFrame[] {
  return Array.from({ length: count }, (_, i) => ({
    level: raw * (i % 7 === 3 ? 1 : 0.85),
    atMs: fromMs + (i + 1) * FRAME_MS,
    assistantAudible: true,
    ...(cancelled === undefined ? {} : { cancelledLevel: cancelled * (i % 5 === 1 ? 1 : 0.8) }),
  }));
}

function feed(state: GatePairState, frames: readonly GatePairFrame[]): { state: GatePairState; bargeInsAtMs: number[] } {
  let next = state;
  const bargeInsAtMs: number[] = [];
  for (const frame of frames) {
    const heard = hearPair(next, frame);
    next = heard.state;
    if (heard.bargeIn) bargeInsAtMs.push(frame.atMs);
  }
  return { state: next, bargeInsAtMs };
}

/** Three seconds of a 0.3 leak that the canceller takes down to 0.04. */
function settled(): GatePairState {
  return feed(startGatePair(HEARING.gate, HEARING.cancelledGate), leak(300, 0.3, 0.04, 0)).state;
}

/** A person's soft start: on the microphone just over the leak, well over the cancelled leak. */
function softStart(count: number, fromMs: number, cancelled = true): GatePairFrame[] {
  return Array.from({ length: count }, (_, i) => ({
    level: 0.34,
    atMs: fromMs + (i + 1) * FRAME_MS,
    assistantAudible: true,
    ...(cancelled ? { cancelledLevel: 0.2 } : {}),
  }));
}

describe('two gates heard as one', () => {
  it('hears a soft start over the cancelled leak that stays under the leak’s own bar', () => {
    const state = settled();
    const bars = barsOf(state);
    expect(bars.cancelled).not.toBeNull();
    expect(bars.cancelled ?? 1).toBeLessThan(0.2);
    expect(bars.raw).toBeGreaterThan(0.34);
    const heard = feed(state, softStart(10, 3000));
    expect(heard.bargeInsAtMs).toEqual([3030]);
    // The raw gate alone never hears it.
    let raw = state.raw;
    const rawBargeIns = softStart(10, 3000).filter((frame) => {
      const next = hearFrame(raw, frame);
      raw = next.state;
      return next.bargeIn;
    });
    expect(rawBargeIns).toEqual([]);
  });

  it('hears a person once, however many gates hear them, until both re-arm', () => {
    const state = settled();
    const loud = Array.from({ length: 20 }, (_, i): GatePairFrame => ({ level: 0.9, atMs: 3000 + (i + 1) * FRAME_MS, assistantAudible: true, cancelledLevel: 0.8 }));
    const heard = feed(state, loud);
    expect(heard.bargeInsAtMs).toEqual([3030]);
    expect(heard.state.raw.interrupted).toBe(true);
    expect(heard.state.cancelled?.interrupted).toBe(true);
    const again = listenAgainPair(heard.state);
    expect(again.raw.interrupted).toBe(false);
    expect(again.cancelled?.interrupted).toBe(false);
    expect(feed(again, loud.map((f) => ({ ...f, atMs: f.atMs + 1000 }))).bargeInsAtMs).toEqual([4030]);
  });

  it('judges by the raw gate alone while the canceller is not trusted', () => {
    const state = feed(settled(), leak(5, 0.3, undefined, 3000)).state;
    expect(state.cancelled).toBeNull();
    expect(barsOf(state).cancelled).toBeNull();
    expect(feed(state, softStart(10, 3050, false)).bargeInsAtMs).toEqual([]);
  });

  it('starts a fresh cancelled gate when the canceller is trusted again, warming up on the residual first', () => {
    const untrusted = feed(settled(), leak(5, 0.3, undefined, 3000)).state;
    // The fresh gate's first 200 ms are taken as leak, even a soft start; past them it hears one.
    expect(feed(untrusted, softStart(10, 3050)).bargeInsAtMs).toEqual([]);
    const warmed = feed(untrusted, leak(100, 0.3, 0.04, 3050)).state;
    expect(feed(warmed, softStart(10, 4050)).bargeInsAtMs).toEqual([4080]);
  });

  it('leaves the ring-out after the voice stops to the raw gate: the residual there is the microphone itself', () => {
    const state = settled();
    // After the last sample nothing is left to cancel: a sound the raw gate's held bar lets by is
    // no barge-in, however far over the cancelled bar it is.
    const afterVoice = Array.from({ length: 20 }, (_, i): GatePairFrame => ({ level: 0.17, atMs: 3000 + (i + 1) * FRAME_MS, assistantAudible: false, cancelledLevel: 0.17 }));
    expect(feed(state, afterVoice).bargeInsAtMs).toEqual([]);
    // Over the raw gate's bar in the same tail, a person is heard as before.
    const loud = afterVoice.map((f) => ({ ...f, level: 0.9, cancelledLevel: 0.9 }));
    expect(feed(state, loud).bargeInsAtMs).toEqual([3030]);
  });

  it('lets the canceller’s own misfit pass as a dip: a drifted syllable over the cancelled bar is no person', () => {
    const state = settled();
    // A loud syllable the filter drifted on: the residual nearly as loud as the microphone, under
    // the raw gate's bar and far over the cancelled one, for 60 ms.
    const drifted = softStart(6, 3000).map((f) => ({ ...f, level: 0.3, cancelledLevel: 0.25 }));
    expect(feed(state, drifted).bargeInsAtMs).toEqual([3030]);
    const misfit = feed(state, drifted.map((f) => ({ ...f, echoLeft: true })));
    expect(misfit.bargeInsAtMs).toEqual([]);
    // Nothing was learned from it: the bar is where the leak left it, and a person just after is heard.
    expect(barsOf(misfit.state).cancelled).toBe(barsOf(state).cancelled);
    expect(feed(misfit.state, softStart(10, 3060)).bargeInsAtMs).toEqual([3090]);
  });

  it('bridges no person across a misfit frame: a dip in the middle counts against them as silence does', () => {
    const state = settled();
    // A person heard at 3030 unbroken: with their second frame a misfit, 10 ms later, the gate
    // forgiving one dip in its 40 ms (`bridgeMs`) as it forgives a quiet frame; with two, not until
    // the first has left the 40 ms.
    const person = softStart(9, 3000).map((f, i) => (i === 1 ? { ...f, echoLeft: true } : f));
    expect(feed(state, person).bargeInsAtMs).toEqual([3040]);
    const twoDips = softStart(9, 3000).map((f, i) => (i === 1 || i === 3 ? { ...f, echoLeft: true } : f));
    expect(feed(state, twoDips).bargeInsAtMs).toEqual([3060]);
  });

  it('checks the cancelled gate’s options when the pair starts, not minutes later', () => {
    expect(() => startGatePair(HEARING.gate, { ...HEARING.cancelledGate, margin: 5 })).toThrow(OptionError);
  });
});
