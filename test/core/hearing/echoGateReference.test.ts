import { describe, expect, it } from 'vitest';
import { hearFrame, startEchoGate } from '../../../src/core/hearing/echoGate';
import { ratioOf } from '../../../src/core/hearing/echoGateBar';
import type { EchoGateState } from '../../../src/core/hearing/echoGateState';
import { speechEnvelope } from '../../helpers/envelopeSpeech';
import { seededRandom } from '../../helpers/random';
import { HEARING } from '../../../src/core/hearing/tuning';

const FRAME_MS = 10;

/** An answer whose opening is soft and whose later syllables are far louder: the case that fooled a level-only gate. */
function softThenLoud(seed: number): number[] {
  const soft = Array.from(speechEnvelope(seededRandom(seed), { durationMs: 400, meanLevel: 0.12 }));
  const loud = Array.from(speechEnvelope(seededRandom(seed + 1), { durationMs: 3600, meanLevel: 0.45 }));
  return [...soft, ...loud];
}

interface Run {
  bargeInAtMs: number | null;
  state: EchoGateState;
}

/**
 * Plays `output` (the player's level per frame) while the microphone hears `share` of it, `delay`
 * frames late, plus `person` from `personFrom` on; with or without telling the gate the output level.
 */
function run(output: readonly number[], options: { share: number; delay?: number; person?: number; personFrom?: number; withOutput: boolean; state?: EchoGateState; startMs?: number }): Run {
  const delay = options.delay ?? 3;
  let state = options.state ?? startEchoGate(HEARING.gate);
  const startMs = options.startMs ?? 0;
  let bargeInAtMs: number | null = null;
  output.forEach((out, i) => {
    const leak = options.share * (output[i - delay] ?? 0);
    const person = options.person !== undefined && options.personFrom !== undefined && i >= options.personFrom ? options.person : 0;
    const frame = { level: Math.min(1, Math.max(leak, person)), atMs: startMs + i * FRAME_MS, assistantAudible: true, ...(options.withOutput ? { assistantLevel: out } : {}) };
    const heard = hearFrame(state, frame);
    state = heard.state;
    if (heard.bargeIn && bargeInAtMs === null) bargeInAtMs = frame.atMs - startMs;
  });
  return { bargeInAtMs, state };
}

describe('the echo gate judging by the assistant’s own output', () => {
  it('lets a first answer that opens softly and grows loud talk over its own leak, at every leak level', () => {
    for (const share of [0.1, 0.3, 0.5, 0.7]) {
      for (const seed of [1, 2, 3]) {
        expect(run(softThenLoud(seed * 10), { share, withOutput: true }).bargeInAtMs).toBeNull();
      }
    }
  });

  it('is what a level-only gate gets wrong on the same answers', () => {
    const fooled = [0.3, 0.5, 0.7].flatMap((share) => [1, 2, 3].map((seed) => run(softThenLoud(seed * 10), { share, withOutput: false }).bargeInAtMs)).filter((at) => at !== null);
    expect(fooled.length).toBeGreaterThan(0);
  });

  it('learns the share of the output the room gives back', () => {
    const { state } = run(softThenLoud(7), { share: 0.4, withOutput: true });
    expect(ratioOf(state)).toBeGreaterThan(0.3);
    expect(ratioOf(state)).toBeLessThan(0.45);
  });

  it('hears a person talking clearly over the leak, within about a tenth of a second', () => {
    for (const share of [0.2, 0.5]) {
      const output = softThenLoud(21);
      const { bargeInAtMs } = run(output, { share, person: 0.85, personFrom: 150, withOutput: true });
      expect(bargeInAtMs).not.toBeNull();
      expect(bargeInAtMs).toBeGreaterThanOrEqual(1500);
      expect(bargeInAtMs).toBeLessThanOrEqual(1500 + 120);
    }
  });

  it('on headphones (no leak) lets a quiet word interrupt', () => {
    const { bargeInAtMs } = run(softThenLoud(31), { share: 0.01, person: 0.15, personFrom: 200, withOutput: true });
    expect(bargeInAtMs).not.toBeNull();
  });

  it('takes a louder second answer in its stride: the leak stays the same share of the output', () => {
    const first = run(softThenLoud(41), { share: 0.5, withOutput: true });
    const louder = softThenLoud(42).map((v) => Math.min(1, v * 1.6));
    const second = run(louder, { share: 0.5, withOutput: true, state: first.state, startMs: 10_000 });
    expect(second.bargeInAtMs).toBeNull();
  });
});
