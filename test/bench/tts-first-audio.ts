/**
 * How soon the first sound exists when the voice speaks an answer piece by piece, against speaking
 * it as one piece, and how much silence a person hears between the pieces after it; on the WASM
 * backend with a cost-calibrated Supertonic 2 stand-in (test/helpers/costlySupertonic.ts: the real
 * graphs' parameter counts, spent per text position, latent frame and chunk as the real graphs
 * spend them) and the real config, character table and voice F1 from ../shared/supertonic. Every
 * piece is made by the worker's own service (workers/ttsService.ts), as the page's worker makes it.
 *
 * First audio, for one answer of four sentences (218 characters), three cases side by side in each
 * round:
 *
 * - onePieceMs: the whole answer synthesised as one piece at 8 steps; its first sample exists only
 *   when the whole piece is done.
 * - streamedMs: the opening piece (`chunkAll`'s first) at 8 steps. The round goes on to synthesise
 *   every later piece as `chunkAll` packs them (up to 300 characters) at 8 steps, one after another:
 *   that total over the audio's length is the real-time factor `rtf`, and the silence it would leave
 *   is `fixedPieces.playbackStallMs`, the figure before pieces were sized to the device.
 * - streamedOpening3Ms: the opening piece alone at 3 steps.
 *
 * Silence mid-answer, `playbackStallMs`: the answer spoken the way the page speaks it
 * (test/helpers/pacedAnswer.ts: the conversation machine cutting each later piece when the device
 * speaker says the voice is ready for it, to what the device can make in time; the worker hurrying a
 * piece that would still be late, never below the floor), each piece played the moment it is made
 * or the bot's gap (120 ms) after the one before it, whichever is later; the figure is the sum of
 * the silences after the opening beyond that gap. Four cases in each round:
 *
 * - the four-sentence answer (`playbackStallMs`) and a twelve-sentence one (`long`), at the
 *   device's measured speed;
 * - both again on a device slowed to a real-time factor of 0.9 at 8 steps (`slow`, `slow.long`):
 *   after each graph run the stand-in waits (factor − 1) × that run's time. The factor starts from
 *   the real-time factor the pieces of the first round's first two answers were made at
 *   (`paced.rtf`: their time, the solver's scaled to 8 steps, over their audio) and is corrected
 *   after every slowed answer by what its pieces were made at, since a shared machine's speed
 *   drifts. The slowed device's own, measured the same way, is `slow.rtf` (the median over its
 *   answers).
 *
 * Those four at the bot's default floor (`voice.floor` = `voice.steps`: no piece hurried), and beside
 * them, in the same rounds, the same four at half the steps (`halfFloor`: the floor's default before
 * 7 December), each floor on devices of its own, so the figures can be read side by side.
 *
 * Each device keeps its cost from answer to answer, as a page keeps it per device, starting from the
 * safe default in the first round. Every session is warmed up once first (the whole answer at 1 step,
 * the largest shapes any case uses); each case is repeated `ROUNDS` times and the medians are
 * reported with every run. The stand-in's weights are random: the audio is noise, only its length
 * and its cost are real.
 */
import os from 'node:os';
import * as ort from 'onnxruntime-web';
import { chunkAll } from '../../common/speaking/chunker';
import { realTimeFactor, SAFE_COST } from '../../common/speaking/pace';
import type { VoiceCost } from '../../common/speaking/pace';
import { TALK } from '../../common/talk';
import { GRAPHS } from '../../common/voice/contract';
import type { GraphName } from '../../common/voice/contract';
import type { SpokenPiece } from '../../common/voice/api';
import { textToIds } from '../../common/voice/text';
import type { ModelVersion } from '../../common/voice/text';
import { createTtsService } from '../../workers/ttsService';
import { costedOrt } from '../helpers/costedOrt';
import { buildCostlyGraphs, DEFAULT_SECONDS_PER_CHAR, SAMPLES_PER_FRAME, SUPERTONIC_2_FILE_BYTES } from '../helpers/costlySupertonic';
import { speakPacedAnswer } from '../helpers/pacedAnswer';
import type { SpokenAnswer } from '../helpers/pacedAnswer';
import { LONG_ANSWER, LONG_ANSWER_SENTENCES } from '../helpers/longAnswer';
import { seededRandom } from '../helpers/random';
import { indexer, ttsJson, voiceJson } from '../helpers/supertonicData';

/** The first four sentences of the long answer, as a short spoken answer runs. */
const ANSWER = LONG_ANSWER_SENTENCES.slice(0, 4).join(' ');
/** The stand-in has Supertonic 2's parameter counts, so it reads Supertonic 2's tables and voices. */
const VERSION: ModelVersion = 'supertonic-2';
const VOICE = 'F1';
const LANG = 'en';
const SPEED = 1.05;
const STEPS = TALK.steps;
const OPENING_STEPS = 3;
/** The floor the side-by-side cases are spoken at: half the steps, rounded up. */
const HALF_FLOOR = Math.ceil(TALK.steps / 2);
const ROUNDS = 3;
/** The real-time factor at 8 steps the slow device is slowed to. */
const SLOW_RTF = 0.9;
/**
 * One WASM thread. The machines these run on are shared two-core boxes: in trials two threads made
 * the vector estimator slower, not faster, while another job held a core.
 */
const THREADS = 1;
const SEED = 0x5eed_7751;
const TARGETS = { ratio: 0.25, ratioOpening3: 0.12, playbackStallMs: 0, slowPlaybackStallMs: 300 } as const;

interface Timed {
  ms: number;
  /** Milliseconds spent in each graph's runs; the vector estimator's is the sum of its steps. */
  byGraphMs: Record<GraphName, number>;
  samples: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

function round(value: number, places: number): number {
  return Number(value.toFixed(places));
}

function zeroByGraph(): Record<GraphName, number> {
  return { duration_predictor: 0, text_encoder: 0, vector_estimator: 0, vocoder: 0 };
}

function roundByGraph(byGraph: Record<GraphName, number>): Record<GraphName, number> {
  return {
    duration_predictor: round(byGraph.duration_predictor, 1),
    text_encoder: round(byGraph.text_encoder, 1),
    vector_estimator: round(byGraph.vector_estimator, 1),
    vocoder: round(byGraph.vocoder, 1),
  };
}

/** The round whose stall is the median, for its pieces to be shown. */
function medianRun(answers: readonly SpokenAnswer[]): SpokenAnswer | undefined {
  const stalls = answers.map((answer) => answer.stallMs);
  const middle = median(stalls);
  return answers[stalls.findIndex((stall) => stall >= middle)];
}

/**
 * The real-time factor at `steps` the pieces of some answers were made at: their parts' time, the
 * solver's scaled to `steps`, over their audio.
 */
function measuredRtf(answers: readonly SpokenAnswer[], steps: number): number {
  let workMs = 0;
  let audioMs = 0;
  for (const piece of answers.flatMap((answer) => answer.pieces)) {
    workMs += piece.makeMs - piece.stepsMs + (piece.stepsMs / piece.steps) * steps;
    audioMs += piece.audioMs;
  }
  return workMs / audioMs;
}

/** One answer's figures for the report. */
function summary(answers: readonly SpokenAnswer[]) {
  const shown = medianRun(answers);
  return {
    playbackStallMs: round(median(answers.map((answer) => answer.stallMs)), 1),
    runsMs: answers.map((answer) => round(answer.stallMs, 1)),
    firstAudioMs: round(median(answers.map((answer) => answer.firstAudioMs)), 1),
    piecesPerRun: answers.map((answer) => answer.pieces.length),
    hurriedPerRun: answers.map((answer) => answer.pieces.filter((piece) => piece.steps < piece.stepsAsked).length),
    pieces: (shown?.pieces ?? []).map((piece) => ({
      characters: piece.text.length,
      steps: piece.steps,
      audioSeconds: round(piece.audioMs / 1000, 3),
      makeMs: round(piece.makeMs, 0),
      silenceMs: round(piece.silenceMs, 0),
    })),
  };
}

export async function run(): Promise<{
  bench: 'tts-first-audio';
  onePieceMs: number;
  streamedMs: number;
  streamedOpening3Ms: number;
  ratio: number;
  ratioOpening3: number;
  rtf: number;
  playbackStallMs: number;
  [figure: string]: unknown;
}> {
  const startedMs = performance.now();
  ort.env.wasm.numThreads = THREADS;
  const table = indexer(VERSION);
  const config = ttsJson(VERSION);
  const vocabulary = Math.max(...table) + 1;

  const buildStartMs = performance.now();
  const { graphs, report } = buildCostlyGraphs({ vocabulary });
  const buildMs = performance.now() - buildStartMs;

  // Every graph run is timed; while `slowdown` is above 1, each is followed by a wait that makes the
  // device that much slower.
  let runs: { graph: GraphName; ms: number }[] = [];
  let slowdown = 1;
  const costed = costedOrt(ort, async (graph, _feeds, tookMs) => {
    runs.push({ graph, ms: tookMs });
    if (slowdown > 1) await new Promise((resolve) => setTimeout(resolve, (slowdown - 1) * tookMs));
  });
  const tts = createTtsService({
    ort: costed,
    hasWebGpu: false,
    random: seededRandom(SEED),
    fetchFiles: (request) =>
      Promise.resolve({ files: { version: request.version, graphs, config, indexer: table }, voices: { [VOICE]: voiceJson(VERSION, VOICE) }, unverified: [] }),
    fetchVoice: (_request, voice) => Promise.resolve(voiceJson(VERSION, voice)),
  });
  const loadStartMs = performance.now();
  const loaded = await tts.load({ version: VERSION, base: { kind: 'hub' }, voices: [VOICE], preferWebGpu: false }, () => undefined);
  const loadMs = performance.now() - loadStartMs;

  let utteranceId = 0;
  async function speak(text: string, steps: number): Promise<Timed> {
    runs = [];
    utteranceId += 1;
    const beganMs = performance.now();
    const made: SpokenPiece | null = await tts.speak({ utteranceId, piece: 0, text, lang: LANG, voice: VOICE, steps, speed: SPEED });
    const ms = performance.now() - beganMs;
    if (made === null) throw new Error('The voice dropped a piece nobody cancelled.');
    const byGraphMs = zeroByGraph();
    for (const one of runs) byGraphMs[one.graph] += one.ms;
    return { ms, byGraphMs, samples: made.samples.length };
  }

  const pieces = chunkAll(ANSWER);
  const opening = pieces[0];
  if (opening === undefined) throw new Error('chunkAll cut the answer into no pieces.');
  /** A piece as the voice reads it: its text positions (language tags included) and the audio made of it. */
  const describe = (text: string, samples: number): { text: string; characters: number; positions: number; audioSeconds: number; frames: number } => ({
    text,
    characters: text.length,
    positions: textToIds(text, LANG, table, VERSION).ids.length,
    audioSeconds: round(samples / loaded.sampleRateHz, 3),
    frames: Math.ceil(samples / SAMPLES_PER_FRAME),
  });

  const warmUpMs = (await speak(ANSWER, 1)).ms;

  const onePiece: Timed[] = [];
  const streamedFirst: Timed[] = [];
  const streamedTotalMs: number[] = [];
  const pieceSamples: number[] = [];
  const fixedStallMs: number[] = [];
  const opening3: Timed[] = [];
  const paced: SpokenAnswer[] = [];
  const pacedLong: SpokenAnswer[] = [];
  const slow: SpokenAnswer[] = [];
  const slowLong: SpokenAnswer[] = [];
  const slowdowns: number[] = [];
  const half = { paced: [] as SpokenAnswer[], long: [] as SpokenAnswer[], slow: [] as SpokenAnswer[], slowLong: [] as SpokenAnswer[] };
  let halfDeviceCost: VoiceCost = SAFE_COST;
  let halfSlowDeviceCost: VoiceCost = SAFE_COST;
  /** How much slower than this machine the slow device is; found in the first round, then corrected. */
  let slowFactor: number | undefined;
  let deviceCost: VoiceCost = SAFE_COST;
  let slowDeviceCost: VoiceCost = SAFE_COST;
  const nowMs = () => performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    onePiece.push(await speak(ANSWER, STEPS));

    // The pieces as chunkAll packs them, made one after another, each played as soon as it is ready
    // or the gap after the one before it.
    let totalMs = 0;
    let playedUntilMs = 0;
    let stallMs = 0;
    for (const [i, piece] of pieces.entries()) {
      const timed = await speak(piece, STEPS);
      if (i === 0) streamedFirst.push(timed);
      totalMs += timed.ms;
      if (i > 0) stallMs += Math.max(0, totalMs - (playedUntilMs + TALK.gapMs));
      playedUntilMs = Math.max(totalMs, playedUntilMs + TALK.gapMs) + (timed.samples / loaded.sampleRateHz) * 1000;
      pieceSamples[i] = timed.samples;
    }
    streamedTotalMs.push(totalMs);
    fixedStallMs.push(stallMs);

    opening3.push(await speak(opening, OPENING_STEPS));

    const short = await speakPacedAnswer({ tts, text: ANSWER, cost: deviceCost, nowMs });
    paced.push(short);
    const long = await speakPacedAnswer({ tts, text: LONG_ANSWER, cost: short.cost, nowMs });
    pacedLong.push(long);
    deviceCost = long.cost;

    slowFactor ??= Math.max(1, SLOW_RTF / measuredRtf([short, long], STEPS));
    const halfShort = await speakPacedAnswer({ tts, text: ANSWER, cost: halfDeviceCost, nowMs, talk: { floor: HALF_FLOOR } });
    half.paced.push(halfShort);
    const halfLong = await speakPacedAnswer({ tts, text: LONG_ANSWER, cost: halfShort.cost, nowMs, talk: { floor: HALF_FLOOR } });
    half.long.push(halfLong);
    halfDeviceCost = halfLong.cost;

    const slowed = async (text: string, cost: VoiceCost, floor: number = TALK.floor): Promise<SpokenAnswer> => {
      slowdown = slowFactor ?? 1;
      slowdowns.push(slowdown);
      const answer = await speakPacedAnswer({ tts, text, cost, nowMs, talk: { floor } });
      slowdown = 1;
      slowFactor = Math.max(1, (slowFactor ?? 1) * (SLOW_RTF / measuredRtf([answer], STEPS)));
      return answer;
    };
    const slowShort = await slowed(ANSWER, slowDeviceCost);
    slow.push(slowShort);
    const slowLongAnswer = await slowed(LONG_ANSWER, slowShort.cost);
    slowLong.push(slowLongAnswer);
    slowDeviceCost = slowLongAnswer.cost;
    const halfSlowShort = await slowed(ANSWER, halfSlowDeviceCost, HALF_FLOOR);
    half.slow.push(halfSlowShort);
    const halfSlowLong = await slowed(LONG_ANSWER, halfSlowShort.cost, HALF_FLOOR);
    half.slowLong.push(halfSlowLong);
    halfSlowDeviceCost = halfSlowLong.cost;
  }
  await tts.dispose();

  const onePieceMs = median(onePiece.map((t) => t.ms));
  const streamedMs = median(streamedFirst.map((t) => t.ms));
  const streamedOpening3Ms = median(opening3.map((t) => t.ms));
  const audioSeconds = pieceSamples.reduce((a, b) => a + b, 0) / loaded.sampleRateHz;
  const rtf = median(streamedTotalMs) / 1000 / audioSeconds;
  const ratio = streamedMs / onePieceMs;
  const ratioOpening3 = streamedOpening3Ms / onePieceMs;
  const playbackStallMs = median(paced.map((answer) => answer.stallMs));
  const slowRtfs = [...slow, ...slowLong].map((answer) => measuredRtf([answer], STEPS));
  const slowRtf = median(slowRtfs);
  const slowStallMs = median(slow.map((answer) => answer.stallMs));
  const longStallMs = median(pacedLong.map((answer) => answer.stallMs));
  const runsOf = (timed: readonly Timed[]): number[] => timed.map((t) => round(t.ms, 1));
  const medianByGraph = (timed: readonly Timed[]): Record<GraphName, number> => {
    const out = zeroByGraph();
    for (const graph of GRAPHS) out[graph] = median(timed.map((t) => t.byGraphMs[graph]));
    return roundByGraph(out);
  };

  return {
    bench: 'tts-first-audio',
    onePieceMs: round(onePieceMs, 1),
    streamedMs: round(streamedMs, 1),
    streamedOpening3Ms: round(streamedOpening3Ms, 1),
    ratio: round(ratio, 4),
    ratioOpening3: round(ratioOpening3, 4),
    rtf: round(rtf, 4),
    targets: TARGETS,
    playbackStallMs: round(playbackStallMs, 1),
    meetsTargets: {
      ratio: ratio <= TARGETS.ratio,
      ratioOpening3: ratioOpening3 <= TARGETS.ratioOpening3,
      playbackStallMs: playbackStallMs <= TARGETS.playbackStallMs && longStallMs <= TARGETS.playbackStallMs,
      slowPlaybackStallMs: slowStallMs <= TARGETS.slowPlaybackStallMs && median(slowLong.map((a) => a.stallMs)) <= TARGETS.slowPlaybackStallMs,
    },
    paced: {
      ...summary(paced),
      rtf: round(median([...paced, ...pacedLong].map((answer) => measuredRtf([answer], STEPS))), 4),
      costRtf: round(realTimeFactor(deviceCost, STEPS), 4),
    },
    long: { characters: LONG_ANSWER.length, ...summary(pacedLong) },
    slow: {
      rtf: round(slowRtf, 4),
      rtfRuns: slowRtfs.map((value) => round(value, 4)),
      slowdown: slowdowns.map((factor) => round(factor, 3)),
      ...summary(slow),
      costRtf: round(realTimeFactor(slowDeviceCost, STEPS), 4),
      long: summary(slowLong),
    },
    halfFloor: {
      floor: HALF_FLOOR,
      playbackStallMs: round(median(half.paced.map((answer) => answer.stallMs)), 1),
      paced: summary(half.paced),
      long: summary(half.long),
      slow: { rtf: round(median([...half.slow, ...half.slowLong].map((answer) => measuredRtf([answer], STEPS))), 4), ...summary(half.slow), long: summary(half.slowLong) },
    },
    fixedPieces: {
      playbackStallMs: round(median(fixedStallMs), 1),
      runsMs: fixedStallMs.map((ms) => round(ms, 1)),
      pieces: pieces.map((piece, i) => describe(piece, pieceSamples[i] ?? 0)),
    },
    runsMs: {
      onePiece: runsOf(onePiece),
      streamed: runsOf(streamedFirst),
      streamedOpening3: runsOf(opening3),
      streamedWholeAnswer: streamedTotalMs.map((ms) => round(ms, 1)),
    },
    medianByGraphMs: {
      onePiece: medianByGraph(onePiece),
      streamed: medianByGraph(streamedFirst),
      streamedOpening3: medianByGraph(opening3),
    },
    answer: describe(ANSWER, onePiece[0]?.samples ?? 0),
    streamedAudioSeconds: round(audioSeconds, 3),
    steps: STEPS,
    openingSteps: OPENING_STEPS,
    floor: TALK.floor,
    gapMs: TALK.gapMs,
    speed: SPEED,
    rounds: ROUNDS,
    model: {
      version: VERSION,
      voice: VOICE,
      standIn: 'test/helpers/costlySupertonic.ts',
      secondsPerPosition: DEFAULT_SECONDS_PER_CHAR,
      realFileBytes: SUPERTONIC_2_FILE_BYTES,
      graphs: report,
    },
    backend: {
      provider: loaded.executionProvider,
      onnxruntimeWeb: ort.env.versions.web,
      numThreads: THREADS,
      wasmBuild: 'ort-wasm-simd-threaded',
      node: process.version,
      cpu: os.cpus()[0]?.model ?? 'unknown',
      cpus: os.availableParallelism(),
      loadAverage: os.loadavg().map((l) => round(l, 2)),
    },
    buildMs: round(buildMs, 0),
    sessionsMs: round(loadMs, 0),
    warmUpMs: round(warmUpMs, 0),
    runtimeMs: round(performance.now() - startedMs, 0),
  };
}
