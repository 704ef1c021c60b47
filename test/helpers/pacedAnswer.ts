/**
 * One answer spoken the way the page speaks it on this device — the conversation machine cutting
 * pieces as the device speaker reports its pace, the device speaker asking a TTS service (the real
 * worker service, or any `TtsApi`) with the bot's steps, floor and gap — with the player replaced by
 * a timeline: each piece plays the moment it is handed over, or the gap after the one before it if
 * that is later, exactly as src/platform/audio/player.ts schedules it. What the timeline measures
 * is the silence a person would hear between pieces beyond the gap.
 *
 * The answer arrives in one delta and ends, as a fast answer stream delivers it well ahead of its
 * voice. Used by the tts-first-audio benchmark (real time, the cost-calibrated stand-in) and by the
 * keeping-up test (a simulated clock, the tiny graphs).
 */
import { createActor, fromCallback } from 'xstate';
import type { SpeakRequest as PieceRequest } from '../../src/core/speaking/pieceHandover';
import type { PieceTiming, VoiceCost } from '../../common/speaking/pace';
import type { Talk } from '../../common/talk';
import { TALK } from '../../common/talk';
import type { SpokenPiece, TtsApi } from '../../common/voice/api';
import { createDeviceSpeaker } from '../../src/platform/speakers/deviceSpeaker';
import type { DeviceVoice } from '../../src/platform/speakers/deviceSpeaker';
import { speakingMachine } from './speakingMachine';
import { englishSay } from './pageWords';

/** One piece as it was heard. */
interface HeardPiece {
  piece: number;
  text: string;
  /** Steps asked for, and steps it was made with (fewer when it would otherwise have been late). */
  stepsAsked: number;
  steps: number;
  audioMs: number;
  /** How long the worker took to make it, and of that its solver steps. */
  makeMs: number;
  stepsMs: number;
  /** When it was handed to the player, and when it starts playing, in ms from the question. */
  handedAtMs: number;
  startsAtMs: number;
  /** Silence before it beyond the gap (0 for the opening, which nothing plays before). */
  silenceMs: number;
}

export interface SpokenAnswer {
  pieces: HeardPiece[];
  /** The silences after the opening beyond the gap, summed, in ms. */
  stallMs: number;
  /** From the question to the opening's samples, in ms. */
  firstAudioMs: number;
  /** From the question to the last sample played, in ms. */
  endsAtMs: number;
  /** The device's cost once the answer was made: what the page would keep. */
  cost: VoiceCost;
}

export interface PacedAnswerOptions {
  tts: Pick<TtsApi, 'speak' | 'cancel'>;
  text: string;
  /** The device's cost as kept from earlier answers. */
  cost: VoiceCost;
  /** The clock the service and the page share, in ms. */
  nowMs: () => number;
  talk?: Partial<Talk>;
  voice?: DeviceVoice;
  /** Gives up, rejecting, when the answer is not all handed over by then (ms on `nowMs`). */
  patienceMs?: number;
  /** Waits for the service to make progress; default a macrotask turn. */
  idle?: () => Promise<void>;
}

const DEFAULT_VOICE: DeviceVoice = { name: 'F1', lang: 'en', speed: 1.05 };

/** Answers spoken so far: each gets utterance ids of its own, as a page's conversations do. */
let answersSpoken = 0;

export async function speakPacedAnswer(options: PacedAnswerOptions): Promise<SpokenAnswer> {
  const { nowMs } = options;
  const talk = { ...TALK, ...options.talk };
  const timings = new Map<number, PieceTiming>();
  const asked = new Map<number, PieceRequest>();
  const handed: { piece: number; atMs: number; audioMs: number }[] = [];
  const idsFrom = (answersSpoken += 1) * 1_000_000;
  const tts: Pick<TtsApi, 'speak' | 'cancel'> = {
    async speak(request) {
      const made: SpokenPiece | null = await options.tts.speak({ ...request, utteranceId: idsFrom + request.utteranceId });
      if (made !== null) timings.set(made.piece, made.timing);
      return made;
    },
    cancel: (utteranceId) => options.tts.cancel(idsFrom + utteranceId),
  };
  const player = {
    gapMs: talk.gapMs,
    play(key: { utteranceId: number; piece: number }, samples: Float32Array, sampleRateHz: number) {
      handed.push({ piece: key.piece, atMs: nowMs(), audioMs: (samples.length / sampleRateHz) * 1000 });
    },
  };
  const device = createDeviceSpeaker({ tts, player, voice: () => options.voice ?? DEFAULT_VOICE, cost: options.cost, nowMs });
  const failures: string[] = [];
  device.onFailed((failure) => failures.push(failure.reason));
  const machine = speakingMachine({
    speak: (request) => {
      asked.set(request.piece, request);
      device.speak(request);
    },
    stopAudio: () => undefined,
    cancel: (utteranceId) => {
      device.cancel(utteranceId);
    },
  }).provide({ actors: { settleAction: fromCallback(() => undefined) } });
  const actor = createActor(machine, { input: { recogniser: false, say: englishSay, voice: 'device', talk } });
  device.onPace((pace) => {
    actor.send({ type: 'voice.paced', pace });
  });
  actor.send({ type: 'voice.paced', pace: device.pace() });
  actor.start();

  const beganMs = nowMs();
  actor.send({ type: 'user.said', text: 'Tell me the plan.', via: 'keyboard', turnId: 'turn-the-plan' });
  const { utteranceId } = actor.getSnapshot().context;
  actor.send({ type: 'answer.delta', utteranceId, text: options.text, atMs: nowMs() });
  actor.send({ type: 'answer.done', utteranceId, atMs: nowMs() });

  const all = () => {
    const { context } = actor.getSnapshot();
    return context.chunker.kept.length === 0 && handed.length + failures.length === context.pieces.length;
  };
  const idle = options.idle ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
  const patienceMs = options.patienceMs ?? 600_000;
  while (!all()) {
    if (nowMs() - beganMs > patienceMs) throw new Error(`The answer was not all spoken within ${patienceMs} ms.`);
    await idle();
  }
  const cost = device.pace().cost;
  actor.stop();
  device.dispose();
  if (failures.length > 0) throw new Error(`The voice could not make ${failures.length} piece(s): ${failures[0] ?? ''}`);

  const pieces: HeardPiece[] = [];
  let endsAtMs = 0;
  for (const [i, one] of handed.entries()) {
    const request = asked.get(one.piece);
    const timing = timings.get(one.piece);
    if (request === undefined || timing === undefined) throw new Error(`Piece ${one.piece} was played but never asked for.`);
    const handedAtMs = one.atMs - beganMs;
    const startsAtMs = i === 0 ? handedAtMs : Math.max(handedAtMs, endsAtMs + talk.gapMs);
    const silenceMs = i === 0 ? 0 : Math.max(0, handedAtMs - (endsAtMs + talk.gapMs));
    endsAtMs = startsAtMs + one.audioMs;
    pieces.push({
      piece: one.piece,
      text: request.text,
      stepsAsked: request.steps,
      steps: timing.steps,
      audioMs: one.audioMs,
      makeMs: timing.prepareMs + timing.stepsMs + timing.vocodeMs,
      stepsMs: timing.stepsMs,
      handedAtMs,
      startsAtMs,
      silenceMs,
    });
  }
  return {
    pieces,
    stallMs: pieces.reduce((sum, piece) => sum + piece.silenceMs, 0),
    firstAudioMs: pieces[0]?.handedAtMs ?? Number.NaN,
    endsAtMs,
    cost,
  };
}
