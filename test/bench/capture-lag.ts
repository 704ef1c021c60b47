/**
 * The kept answer (or `--clips DIR`'s) through the page's hearing with no browser — the level
 * meter's echo canceller and both gates — at the lags a capture puts between the player's output
 * and the microphone: 0–39 ms (the fake microphone gives 0–10 ms, launch to launch; real devices
 * more). For each lag and leak level: does the leak alone ever barge in, and how soon is a person
 * asking a question over it heard (at the leak's level and twice it, at six moments of the answer)?
 *
 * Run side by side in one process: the canceller as the page runs it, and the same without its
 * misfit frames (`misfitCorrelation` over 1), so the figure the flag buys is measured, not recalled.
 * A person not heard within 1 s is missed; one heard before they began is a false barge-in.
 */
import { keptAnswer, pageBargeInsMs, roomOf } from '../helpers/keptAnswerRoom';
import type { KeptAnswer } from '../helpers/keptAnswerRoom';
import type { BenchOptions, BenchResult, BenchTarget } from './run';
import { percentile } from '../helpers/benchTimings';

const LEAK_LEVELS = [0.1, 0.3, 0.5, 0.7] as const;
const LAGS_MS = Array.from({ length: 14 }, (_, i) => 3 * i);
const PERSON_AT_MS = [450, 1500, 3000, 4100, 5000, 6200] as const;
/** The person at the leak's own level and twice it, never under a quiet word's. */
const PERSON_OVER_LEAK = [1, 2] as const;
const QUIET_WORD = 0.15;
const CATCH_WITHIN_MS = 1000;

export const targets: BenchTarget[] = [
  { figure: 'asPaged.falseBargeInsOnLeak', atMost: 0, what: 'barge-ins with only the leak, at any capture lag 0–39 ms' },
  { figure: 'asPaged.personHeardMsP95', atMost: 150, what: 'a person’s first sound over the leak → heard, p95, over the lags' },
];

interface Variant {
  falseBargeInsOnLeak: number;
  /** Where the leak alone barged in: leak level, lag, and when into the answer. */
  falseOnLeak: { leak: number; lagMs: number; atMs: number }[];
  falseBeforePerson: number;
  personRuns: number;
  personMissed: number;
  personHeardMsP50: number;
  personHeardMsP95: number;
}

function measure(answer: KeptAnswer, misfitCorrelation: number | undefined): Variant {
  const canceller = misfitCorrelation === undefined ? {} : { misfitCorrelation };
  const falseOnLeak: Variant['falseOnLeak'] = [];
  let falseBeforePerson = 0;
  let personMissed = 0;
  const heardMs: number[] = [];
  for (const leak of LEAK_LEVELS) {
    for (const lagMs of LAGS_MS) {
      for (const atMs of pageBargeInsMs(roomOf(answer, leak, lagMs), canceller)) falseOnLeak.push({ leak, lagMs, atMs });
      for (const personAtMs of PERSON_AT_MS) {
        for (const over of PERSON_OVER_LEAK) {
          const heard = pageBargeInsMs(roomOf(answer, leak, lagMs, { atMs: personAtMs, level: Math.max(QUIET_WORD, over * leak) }), canceller);
          if (heard.some((at) => at < personAtMs)) falseBeforePerson += 1;
          const first = heard.find((at) => at >= personAtMs);
          if (first === undefined || first - personAtMs > CATCH_WITHIN_MS) personMissed += 1;
          else heardMs.push(first - personAtMs);
        }
      }
    }
  }
  const sorted = heardMs.sort((a, b) => a - b);
  return {
    falseBargeInsOnLeak: new Set(falseOnLeak.map((f) => `${String(f.leak)}/${String(f.lagMs)}`)).size,
    falseOnLeak,
    falseBeforePerson,
    personRuns: LEAK_LEVELS.length * LAGS_MS.length * PERSON_AT_MS.length * PERSON_OVER_LEAK.length,
    personMissed,
    personHeardMsP50: percentile(sorted, 0.5),
    personHeardMsP95: percentile(sorted, 0.95),
  };
}

export function run(options: BenchOptions): BenchResult {
  const answer = keptAnswer(options.clips);
  return {
    bench: 'capture-lag',
    leakLevels: [...LEAK_LEVELS],
    lagsMs: LAGS_MS,
    leakRuns: LEAK_LEVELS.length * LAGS_MS.length,
    asPaged: measure(answer, undefined),
    withoutMisfit: measure(answer, 2),
  };
}
