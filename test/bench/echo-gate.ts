/**
 * The echo gate against simulated rooms: does it stay quiet under the assistant's own leak, and how
 * soon does it hear a person who talks over it?
 *
 * A room has one leak level (the mean level the microphone reads of the assistant while it talks),
 * a noise floor and a reverberation. Each room plays `TURNS_PER_ROOM` turns in a row to one gate
 * that starts cold, so what the gate learns carries over and the first turn shows the cold start.
 * A turn is 1–3 pieces of speech-shaped assistant audio (test/helpers/envelopeSpeech.ts) with the
 * player's 120 ms gap between them, then the person's next question after the audio ends (the
 * recogniser's business, which the gate must neither report nor learn from), then a pause while the
 * answer is made. In about half the turns the person talks over the assistant at a random moment,
 * at twice the leak's mean level (6 dB over it), speech-shaped too; a barge-in stops the audio
 * after 20 ms, as the player would.
 *
 * Scored per turn: a false barge-in is any barge-in in a turn where nobody talked over the assistant,
 * or before the person began; a missed one is a person not heard within 1 s of starting; latency is
 * detection time minus the person's first frame.
 */
import { hearFrame, startEchoGate } from '../../src/core/speech/echoGate';
import type { EchoGateState } from '../../src/core/speech/echoGate';
import {
  between,
  mixLevels,
  noiseEnvelope,
  peakToMean,
  seededRandom,
  speechEnvelope,
} from '../helpers/envelopeSpeech';
import type { Random } from '../helpers/envelopeSpeech';

const SEED = 0x5eed_ec40;
const FRAME_MS = 10;
const LEAK_LEVELS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7] as const;
const ROOMS_PER_LEVEL = 40;
const TURNS_PER_ROOM = 8;
/** A person 6 dB over the leak: twice its mean level. */
const PERSON_OVER_LEAK = 2;
const INTERRUPTED_SHARE = 0.5;
const PIECE_GAP_MS = 120;
const STOP_MS = 20;
const CATCH_WITHIN_MS = 1000;
/** The headphone case: no leak to speak of, and a person who says a quiet word. */
const HEADPHONE_LEAK = 0.01;
const QUIET_WORD = 0.13;

interface TurnOutcome {
  interrupted: boolean;
  falseBargeIns: number;
  latencyMs: number | null;
  peakToMean: number;
  cold: boolean;
}

interface Tally {
  turns: number;
  personTurns: number;
  falseBargeIns: number;
  missedBargeIns: number;
  detectionLatencyMsP50: number;
  detectionLatencyMsP95: number;
  detectionLatencyMsMax: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

function tally(outcomes: readonly TurnOutcome[]): Tally {
  const latencies = outcomes
    .map((o) => o.latencyMs)
    .filter((l): l is number => l !== null && l <= CATCH_WITHIN_MS)
    .sort((a, b) => a - b);
  const personTurns = outcomes.filter((o) => o.interrupted).length;
  return {
    turns: outcomes.length,
    personTurns,
    falseBargeIns: outcomes.reduce((s, o) => s + o.falseBargeIns, 0),
    missedBargeIns: personTurns - latencies.length,
    detectionLatencyMsP50: percentile(latencies, 0.5),
    detectionLatencyMsP95: percentile(latencies, 0.95),
    detectionLatencyMsMax: latencies[latencies.length - 1] ?? 0,
  };
}

interface Room {
  leak: number;
  personLevel: number;
  noise: number;
  reverbMs: number;
}

/** Feeds frames to the gate, keeping the time, and counts barge-ins. */
class Listener {
  state: EchoGateState = startEchoGate();
  atMs = 0;

  hear(level: number, assistantAudible: boolean): boolean {
    this.atMs += FRAME_MS;
    const next = hearFrame(this.state, { level, atMs: this.atMs, assistantAudible });
    this.state = next.state;
    return next.bargeIn;
  }
}

/** One turn: the assistant's audio (maybe talked over), then the person's question, then a pause. */
function playTurn(random: Random, room: Room, listener: Listener, cold: boolean): TurnOutcome {
  const turnLeak = room.leak * between(random, 0.9, 1.1);
  const pieces = 1 + Math.floor(random() * 3);
  const leak: number[] = [];
  const audible: boolean[] = [];
  const hold = Math.exp(-FRAME_MS / room.reverbMs);
  for (let p = 0; p < pieces; p++) {
    const piece = speechEnvelope(random, { durationMs: between(random, 1000, 3000), meanLevel: turnLeak, reverbMs: room.reverbMs });
    for (const v of piece) {
      leak.push(v);
      audible.push(true);
    }
    if (p < pieces - 1) {
      for (let f = 0; f < PIECE_GAP_MS / FRAME_MS; f++) {
        leak.push((leak[leak.length - 1] ?? 0) * hold);
        audible.push(false);
      }
    }
  }
  const interrupted = random() < INTERRUPTED_SHARE;
  const onsetFrame = interrupted
    ? Math.floor(between(random, 200, leak.length * FRAME_MS - CATCH_WITHIN_MS) / FRAME_MS)
    : Number.POSITIVE_INFINITY;
  const person = interrupted
    ? speechEnvelope(random, { durationMs: between(random, 600, 2000), meanLevel: room.personLevel })
    : new Float64Array(0);
  const noise = noiseEnvelope(random, room.noise, leak.length + 600);

  let falseBargeIns = 0;
  let latencyMs: number | null = null;
  let stopAt = Number.POSITIVE_INFINITY;
  let echo = 0;
  let f = 0;
  const personAt = (frame: number): number => (frame >= onsetFrame ? (person[frame - onsetFrame] ?? 0) : 0);
  for (; f < leak.length + person.length; f++) {
    const playing = f < stopAt && f < leak.length;
    echo = playing ? (leak[f] ?? 0) : echo * hold;
    const level = mixLevels(echo, personAt(f), noise[f] ?? room.noise);
    if (listener.hear(level, playing && (audible[f] ?? false))) {
      if (f < onsetFrame) falseBargeIns++;
      else latencyMs ??= (f - onsetFrame + 1) * FRAME_MS;
      stopAt = Math.min(stopAt, f + STOP_MS / FRAME_MS);
    }
    if (f >= leak.length && f >= stopAt && personAt(f) === 0 && f > onsetFrame + person.length) break;
  }

  const question = speechEnvelope(random, { durationMs: between(random, 800, 3000), meanLevel: room.personLevel });
  const quietFrames = Math.floor(between(random, 300, 800) / FRAME_MS);
  const thinkingFrames = Math.floor(between(random, 500, 1500) / FRAME_MS);
  for (let q = 0; q < quietFrames + question.length + thinkingFrames; q++) {
    echo *= hold;
    const spoken = q >= quietFrames ? (question[q - quietFrames] ?? 0) : 0;
    if (listener.hear(mixLevels(echo, spoken, room.noise * between(random, 0.7, 1.3)), false)) falseBargeIns++;
  }

  return {
    interrupted,
    falseBargeIns,
    latencyMs,
    peakToMean: peakToMean(Float64Array.from(leak.filter((_, i) => audible[i]))),
    cold,
  };
}

function playRoom(random: Random, room: Room): TurnOutcome[] {
  const listener = new Listener();
  const outcomes: TurnOutcome[] = [];
  for (let t = 0; t < TURNS_PER_ROOM; t++) outcomes.push(playTurn(random, room, listener, t === 0));
  return outcomes;
}

function makeRoom(random: Random, leak: number, personLevel: number): Room {
  return { leak, personLevel, noise: between(random, 0.005, 0.03), reverbMs: between(random, 40, 70) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export function run(): Promise<{
  bench: 'echo-gate';
  turns: number;
  falseBargeIns: number;
  missedBargeIns: number;
  detectionLatencyMsP95: number;
  [figure: string]: unknown;
}> {
  const random = seededRandom(SEED);
  const all: TurnOutcome[] = [];
  const byLeak = LEAK_LEVELS.map((level) => {
    const outcomes: TurnOutcome[] = [];
    for (let r = 0; r < ROOMS_PER_LEVEL; r++) outcomes.push(...playRoom(random, makeRoom(random, level, level * PERSON_OVER_LEAK)));
    all.push(...outcomes);
    return { leak: level, peakToMean: Number(median(outcomes.map((o) => o.peakToMean)).toFixed(2)), ...tally(outcomes) };
  });
  const headphoneTurns: TurnOutcome[] = [];
  for (let r = 0; r < ROOMS_PER_LEVEL; r++) {
    headphoneTurns.push(...playRoom(random, makeRoom(random, HEADPHONE_LEAK, QUIET_WORD)));
  }
  const total = tally(all);
  return Promise.resolve({
    bench: 'echo-gate',
    seed: SEED,
    frameMs: FRAME_MS,
    personOverLeakDb: 6,
    turns: total.turns,
    personTurns: total.personTurns,
    falseBargeIns: total.falseBargeIns,
    missedBargeIns: total.missedBargeIns,
    caughtShare: Number(((total.personTurns - total.missedBargeIns) / total.personTurns).toFixed(4)),
    detectionLatencyMsP50: total.detectionLatencyMsP50,
    detectionLatencyMsP95: total.detectionLatencyMsP95,
    detectionLatencyMsMax: total.detectionLatencyMsMax,
    coldFirstTurns: tally(all.filter((o) => o.cold)),
    byLeak,
    headphones: { leak: HEADPHONE_LEAK, personLevel: QUIET_WORD, ...tally(headphoneTurns) },
  });
}
