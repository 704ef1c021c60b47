/**
 * The kept answer (or `--clips DIR`'s) through the page's hearing with no browser — the level
 * meter's echo canceller and both gates — at the lags a capture puts between the player's output
 * and the microphone: 0–39 ms (the fake microphone gives 0–10 ms, launch to launch; real devices
 * more). For each lag and leak level: does the leak alone ever barge in, and how soon is a person
 * asking a question over it heard (at the leak's level and twice it, at six moments of the answer)?
 *
 * Run side by side in one process: both cancellers behind the level meter's one interface
 * (canceller.ts), today's NLMS (`nlms`) and WebRTC's AEC3 (`aec3`), each with the rest of the hearing
 * as the page runs it; `shipped` repeats the figures of the one the level meter runs (`SHIPPED`).
 * A person not heard within 1 s is missed; one heard before they began is a false barge-in.
 */
import { aec3, keptAnswer, nlms, pageBargeInsMs, roomOf } from '../helpers/keptAnswerRoom';
import type { CancellerMaker, KeptAnswer } from '../helpers/keptAnswerRoom';
import type { BenchOptions, BenchResult, BenchTarget } from './run';
import { percentile } from '../helpers/benchTimings';
import { RATE_HZ } from '../e2e/speech/bargeInSpeech';

const LEAK_LEVELS = [0.1, 0.3, 0.5, 0.7] as const;
const LAGS_MS = Array.from({ length: 14 }, (_, i) => 3 * i);
const PERSON_AT_MS = [450, 1500, 3000, 4100, 5000, 6200] as const;
/** The person at the leak's own level and twice it, never under a quiet word's. */
const PERSON_OVER_LEAK = [1, 2] as const;
const QUIET_WORD = 0.15;
const CATCH_WITHIN_MS = 1000;

/** The canceller the level meter worklet runs: AEC3 heard a person later at the 95th percentile (docs/performance.md). */
const SHIPPED = 'nlms';
const CANCELLERS: Record<'nlms' | 'aec3', CancellerMaker> = { nlms: nlms(), aec3: aec3() };

export const targets: BenchTarget[] = [
  { figure: 'shipped.falseBargeInsOnLeak', atMost: 0, what: 'barge-ins with only the leak, at any capture lag 0–39 ms' },
  { figure: 'shipped.personHeardMsP95', atMost: 150, what: 'a person’s first sound over the leak → heard, p95, over the lags' },
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
  /** What the hearing (the canceller, mostly, and both gates) cost, in ms of this process's time per second of audio. */
  hearingMsPerAudioSecond: number;
}

/** One canceller's figures, and how soon each person run was heard (null: missed), in a fixed order. */
function measure(answer: KeptAnswer, canceller: CancellerMaker): { figures: Variant; heardByRun: (number | null)[] } {
  const startedMs = performance.now();
  let audioMs = 0;
  const falseOnLeak: Variant['falseOnLeak'] = [];
  let falseBeforePerson = 0;
  let personMissed = 0;
  const heardMs: number[] = [];
  const heardByRun: (number | null)[] = [];
  for (const leak of LEAK_LEVELS) {
    for (const lagMs of LAGS_MS) {
      const room = roomOf(answer, leak, lagMs);
      audioMs += ((1 + PERSON_AT_MS.length * PERSON_OVER_LEAK.length) * room.microphone.length * 1000) / RATE_HZ;
      for (const atMs of pageBargeInsMs(room, canceller)) falseOnLeak.push({ leak, lagMs, atMs });
      for (const personAtMs of PERSON_AT_MS) {
        for (const over of PERSON_OVER_LEAK) {
          const heard = pageBargeInsMs(roomOf(answer, leak, lagMs, { atMs: personAtMs, level: Math.max(QUIET_WORD, over * leak) }), canceller);
          if (heard.some((at) => at < personAtMs)) falseBeforePerson += 1;
          const first = heard.find((at) => at >= personAtMs);
          if (first === undefined || first - personAtMs > CATCH_WITHIN_MS) {
            personMissed += 1;
            heardByRun.push(null);
          } else {
            heardMs.push(first - personAtMs);
            heardByRun.push(first - personAtMs);
          }
        }
      }
    }
  }
  const sorted = heardMs.sort((a, b) => a - b);
  const figures: Variant = {
    falseBargeInsOnLeak: new Set(falseOnLeak.map((f) => `${String(f.leak)}/${String(f.lagMs)}`)).size,
    falseOnLeak,
    falseBeforePerson,
    personRuns: LEAK_LEVELS.length * LAGS_MS.length * PERSON_AT_MS.length * PERSON_OVER_LEAK.length,
    personMissed,
    personHeardMsP50: percentile(sorted, 0.5),
    personHeardMsP95: percentile(sorted, 0.95),
    hearingMsPerAudioSecond: (performance.now() - startedMs) / (audioMs / 1000),
  };
  return { figures, heardByRun };
}

/** How soon each canceller heard the person runs both heard: the same runs, so a p95 over hard ones one of them misses is not set against easy ones. */
function bothHeard(a: (number | null)[], b: (number | null)[]): { runs: number; msP50: [number, number]; msP95: [number, number] } {
  const pairs = a.flatMap((ms, k) => {
    const other = b[k];
    return ms === null || other === null || other === undefined ? [] : [[ms, other] as const];
  });
  const left = pairs.map(([ms]) => ms).sort((x, y) => x - y);
  const right = pairs.map(([, ms]) => ms).sort((x, y) => x - y);
  return { runs: pairs.length, msP50: [percentile(left, 0.5), percentile(right, 0.5)], msP95: [percentile(left, 0.95), percentile(right, 0.95)] };
}

export function run(options: BenchOptions): BenchResult {
  const answer = keptAnswer(options.clips);
  const aec3Run = measure(answer, CANCELLERS.aec3);
  const nlmsRun = measure(answer, CANCELLERS.nlms);
  const cancellers = { nlms: nlmsRun.figures, aec3: aec3Run.figures };
  return {
    bench: 'capture-lag',
    leakLevels: [...LEAK_LEVELS],
    lagsMs: LAGS_MS,
    leakRuns: LEAK_LEVELS.length * LAGS_MS.length,
    shippedCanceller: SHIPPED,
    shipped: cancellers[SHIPPED],
    cancellers,
    /** `msP50` and `msP95` as [nlms, aec3], over the person runs both heard within 1 s. */
    bothHeard: bothHeard(nlmsRun.heardByRun, aec3Run.heardByRun),
  };
}
