/**
 * The kept answer (test/e2e/speech/clips) as the page hears it with no browser: the player's output,
 * the microphone hearing its leak some milliseconds later, and the page's hearing of the two — the
 * level meter's echo canceller (either one: `nlms` or `aec3`) and both gates (gatePair.ts) with the
 * page's options (`HEARING`). For the tests and the benchmark that ask what the capture's lag does to
 * barge-in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hearPair, startGatePair } from '../../src/core/hearing/gatePair';
import { HEARING } from '../../src/core/hearing/tuning';
import type { GatePairFrame } from '../../src/core/hearing/gatePair';
import { EchoCanceller } from '../../src/core/hearing/echoCanceller';
import type { EchoCancellerOptions } from '../../src/core/hearing/echoCanceller';
import { Aec3Canceller } from './aec3/aec3Canceller';
import type { Aec3CancellerOptions } from './aec3/aec3Canceller';
import type { CancelledFrame, Canceller } from '../../src/core/hearing/canceller';
import { aec3Maker } from './aec3/aec3';
import { peakOf } from '../../src/platform/audio/peakFrames';
import { answerSpeech, CLIPS_DIR, GAP_MS, msToSamples, RATE_HZ, trimmed } from '../e2e/speech/bargeInSpeech';
import { readWav } from '../e2e/speech/wav';
import { seededRandom } from './random';

const FRAME = RATE_HZ / 100;
/** A second of quiet room before the answer, as the page hears before it speaks. */
const LEAD = RATE_HZ;
const QUANTUM = 128;
const ROOM_NOISE = 0.003;

/** The kept answer's pieces as played, its leak (peak 1), and a person's question (peak 1), at `RATE_HZ`. */
export interface KeptAnswer {
  pieces: Float32Array[];
  leak: Float32Array;
  question: Float32Array;
}

/** Reads the kept clips in `clipsDir`. Throws, saying how to make them again, if they cannot be used. */
export function keptAnswer(clipsDir = CLIPS_DIR): KeptAnswer {
  const dir = mkdtempSync(join(tmpdir(), 'kept-answer-'));
  try {
    const answer = answerSpeech(dir, clipsDir);
    return {
      pieces: answer.assistant.pieces.map((name) => readWav(join(dir, name)).samples),
      leak: answer.leak,
      question: trimmed(readWav(join(clipsDir, 'person-question.wav')).samples, 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the player plays and the microphone hears, and the samples the output sounds between. */
export interface Room {
  microphone: Float32Array;
  output: Float32Array;
  from: number;
  to: number;
}

/**
 * The answer played with the player's gaps, heard `lagMs` later at `leakLevel` over a faint room
 * noise; and, when `person` is given, the question at `level` from `atMs` after the answer first
 * reaches the microphone.
 */
export function roomOf(answer: KeptAnswer, leakLevel: number, lagMs: number, person?: { atMs: number; level: number }): Room {
  const length = LEAD + answer.leak.length;
  const output = new Float32Array(length);
  const from = LEAD - msToSamples(lagMs);
  let at = from;
  for (const piece of answer.pieces) {
    output.set(piece, at);
    at += piece.length + msToSamples(GAP_MS);
  }
  const random = seededRandom(7);
  const microphone = Float32Array.from({ length }, (_, i) => ROOM_NOISE * (random() * 2 - 1) + (i >= LEAD ? leakLevel * (answer.leak[i - LEAD] ?? 0) : 0));
  if (person !== undefined) {
    const onset = LEAD + msToSamples(person.atMs);
    for (let i = 0; i < answer.question.length && onset + i < length; i++) {
      microphone[onset + i] = Math.max(-1, Math.min(1, (microphone[onset + i] ?? 0) + person.level * (answer.question[i] ?? 0)));
    }
  }
  return { microphone, output, from, to: at - msToSamples(GAP_MS) };
}

/** A canceller for one room at `RATE_HZ` in the level meter's frames, and what to release after it. */
export type CancellerMaker = () => { canceller: Canceller; done: () => void };

/** The NLMS (echoCanceller.ts), with `options` over its defaults. */
export function nlms(options: Partial<EchoCancellerOptions> = {}): CancellerMaker {
  return () => ({ canceller: new EchoCanceller(RATE_HZ, FRAME, options), done: () => undefined });
}

/** WebRTC's AEC3 (aec3Canceller.ts), at the rooms' own 48 kHz, with `options` over its defaults. */
export function aec3(options: Partial<Aec3CancellerOptions> = {}): CancellerMaker {
  return () => {
    const engine = aec3Maker()(RATE_HZ);
    const done = (): void => {
      engine.free();
    };
    return { canceller: new Aec3Canceller(engine, RATE_HZ, FRAME, options), done };
  };
}

/** When, in ms after the answer first reaches the microphone, the page's gates hear a person in `room`; by default through the canceller the level meter runs, the NLMS. */
export function pageBargeInsMs(room: Room, makeCanceller: CancellerMaker = nlms()): number[] {
  const { microphone, output, from, to } = room;
  const { canceller, done } = makeCanceller();
  const cancelled: CancelledFrame[] = [];
  try {
    for (let at = 0; at < microphone.length; at += QUANTUM) {
      const length = Math.min(QUANTUM, microphone.length - at);
      canceller.push(microphone.subarray(at, at + length), output.subarray(at, at + length), length, at, (frame) => cancelled.push(frame));
    }
  } finally {
    done();
  }
  let gates = startGatePair(HEARING.gate, HEARING.cancelledGate);
  const heard: number[] = [];
  cancelled.forEach(({ residual, echoLeft }, k) => {
    const start = k * FRAME;
    const atMs = ((start + FRAME) / RATE_HZ) * 1000;
    const frame: GatePairFrame = {
      level: peakOf([microphone], start, start + FRAME),
      atMs,
      assistantAudible: start + FRAME > from && start < to,
      assistantLevel: peakOf([output], start, start + FRAME),
    };
    const next = hearPair(gates, residual === null ? frame : { ...frame, cancelledLevel: residual, echoLeft });
    gates = next.state;
    if (next.bargeIn) heard.push(atMs - (LEAD / RATE_HZ) * 1000);
  });
  return heard;
}
