/**
 * The turn-taking harness: the real player, microphone level, hearing (echo gate), voice activity
 * model (Silero in its worker) and yielding (the statechart the conversation machine invokes,
 * src/core/hearing/yieldingMachine.ts) on the page's one AudioContext, composed as the app composes
 * them (src/app/createConversation.ts, pageAudio.ts): the gate's barge-in tells yielding it heard
 * the person over the voice, in the frame's time; the model's and the gate's frames go to it; it
 * ducks the player, starts the recogniser, and rules — `take` stops the player, as the machine's
 * `stopAudio` would; carrying on brings the voice back (saying again a piece the duck ran past) and
 * arms the gate again. Its clock is the audio clock, with the window's timers, as the page's is.
 *
 * The microphone is a room's (room.ts): the capture WAV, through Chromium's fake microphone,
 * holds what is not the voice (the marker, the noise floor, the person or the noise), and the page
 * adds the voice's leak from the player's output, through a small speaker and a room, at the run's
 * level — so the leak ducks with the voice, stops with it and is heard again with a piece said
 * again, as in a room. The gate's reference is the player's output, as in the app.
 *
 * The recogniser is a fake that hears what the capture WAV holds, as Chrome's does: nothing until
 * it is started, nothing for a sound that is not speech, interim words from `delayMs` after the
 * speech it can hear begins (one more word at a time across the speech), and a final after the
 * speech ends.
 *
 * As in the barge-in harness (bargeIn.ts), the capture WAV opens with a marker tone and the answer
 * plays `leadMs` after the marker's start, so a moment in the WAV has a place on the audio clock.
 */
import { Hearing, listenWithMicrophone } from '../../../src/app/hearing';
import type { MicRefused } from '../../../src/app/hearing';
import { createActor } from 'xstate';
import type { HeardWords } from '../../../common/conversation/events';
import type { Clock } from '../../../src/core/clock';
import { HEARING } from '../../../src/core/hearing/tuning';
import { yieldingMachine } from '../../../src/core/hearing/yieldingMachine';
import { MICROPHONE, openMicrophoneLevel } from '../../../src/platform/audio/microphone';
import { startVoiceActivity } from '../../../src/platform/audio/voiceActivityModel';
import { harnessPlayer, markerHeard, sleep } from './harnessAudio';
import type { ScheduledSource } from './harnessAudio';
import { roomMicrophone, roomPeak } from './room';

/** What one run plays, what the capture holds over it, and how the fake recogniser hears it. */
export interface TurnTakingRun {
  /** The answer's pieces, in order, as URLs. */
  pieces: string[];
  /** The pieces as said, in order: what the voice has said, for yielding's self-echo check. */
  texts: readonly string[];
  /** The player's gap between pieces, in ms. */
  gapMs: number;
  /** From the marker's first sample to the answer's first sample, in ms (as the WAV was made). */
  leadMs: number;
  /** The marker's peak level; a frame over half of it is the marker. */
  markerLevel: number;
  /** The voice's leak at the microphone: its loudest sample over the answer, 0..1; 0 for headphones (none). */
  leak: number;
  /** The sound over the answer, as the WAV was made; null for the leak alone. */
  sound: {
    /** Its first sample, in ms after the answer's first. */
    atMs: number;
    /** From its first sample to its last, in ms. */
    durationMs: number;
    /** What a recogniser writes for it; null for a sound that is not speech. */
    words: string | null;
  } | null;
  /** The fake recogniser's pace. */
  recogniser: {
    /** From the start of the speech it can hear to its first interim words, in ms. */
    delayMs: number;
    /** From the end of the speech to the final, in ms. */
    finalAfterMs: number;
  };
  /** How long to keep listening once the voice has played out and nothing is being decided, in ms. */
  afterMs: number;
}

/** Everything the page saw, times on the AudioContext's clock in ms. */
export interface TurnTakingReport {
  sampleRateHz: number;
  /** Milliseconds per level frame. */
  frameMs: number;
  /** The end of the first frame over the marker threshold: the marker began within the `frameMs` before it. */
  markerAtMs: number;
  /** The frames that completed a barge-in at the gate, by their time. */
  bargeInsAtMs: number[];
  /** Every duck and unduck yielding asked for, when made and to what. */
  ducks: { atMs: number; ducked: boolean }[];
  /** When the recogniser was started (at the duck); null when it never was. */
  recogniserStartedAtMs: number | null;
  /** Everything the fake recogniser said, and whether yielding took it (did not pass it on as it came). */
  words: { atMs: number; final: boolean; text: string; taken: boolean }[];
  /** Words yielding passed on once the turn was the person's. */
  forwarded: HeardWords[];
  /** When taking the turn stopped the player; null when it never did. */
  stoppedAtMs: number | null;
  /** Every source the player started, in order. */
  sources: ScheduledSource[];
  /** Every piece the player reported started, and when the report came. */
  started: { atMs: number; piece: number }[];
  /**
   * The room's leak, read off the meter's frames from the answer's start: the gain the voice goes
   * to the microphone at (the run's leak over the answer's peak through the room); the first frame
   * with the player's output over `LEAK_EDGE`, and the first with the microphone over the same share
   * of the leak (null when none came); and the loudest microphone frame (the leak's peak, in a run
   * with nothing over it).
   */
  leak: { gain: number; playerAtMs: number | null; microphoneAtMs: number | null; peak: number };
  /**
   * The voice activity model's frames handed to yielding: how many, how many were speech (after
   * hysteresis), the first one's time, and every change between speech and none.
   */
  voiceFrames: { total: number; speech: number; firstAtMs: number | null; changes: { atMs: number; speech: boolean }[] };
  refusals: MicRefused[];
  /**
   * The gate's bar as it heard the sound (null when it never did), and the leak's nearest approach
   * to it: the loudest microphone frame over the bar in force, while the voice sounded, past the
   * gate's warm-up (`JUDGED_AFTER_MS` into the answer) and before any sound began (under 1: the
   * leak stayed under the bar; how far under says how much room a lower bar would have). The same
   * for the cancelled gate (gatePair.ts), on the microphone with the voice cancelled from it, and
   * when the echo canceller was first trusted (null: never).
   */
  bar: { atHeardMs: number | null; leakOverBar: number; cancelledAtHeard: number | null; residualOverBar: number; cancellingFromMs: number | null };
  /**
   * The frames of the 100 ms up to the first barge-in, for a run to say what was heard: each
   * [time, level, cancelled level (-1: not trusted), output level, first bar, second bar (-1: none)].
   */
  beforeFirstBargeIn: number[][];
}

/** What the page exposes on `window.harness`. */
interface TurnTakingHarness {
  run(config: TurnTakingRun): Promise<TurnTakingReport>;
}

/** The longest a run may take once the answer has begun, in ms: far past a whole answer and its decision. */
const RUN_PATIENCE_MS = 20_000;
const LANGUAGE = 'en';
/**
 * A sound's arrival, for the leak's alignment: the player's output over this level (its pieces peak
 * at 0.8), and the microphone over it times the leak's gain. Over the noise floor (0.003) at the
 * quieter leak, whose gain is about 0.25.
 */
const LEAK_EDGE = 0.02;
/** From the answer's first output, in ms, past the gate's warm-up and an answer's widened start (200 + 500 ms). */
const JUDGED_AFTER_MS = 700;

/**
 * A recogniser that hears the scripted sound from when it is started: interim words one at a time
 * across the speech, from `delayMs` after the speech it can hear begins, then the final. Words of
 * speech that ended before the start are never heard.
 */
function fakeRecogniser(config: TurnTakingRun, onsetMs: number, nowMs: () => number, hear: (words: HeardWords) => void) {
  let startedAtMs: number | null = null;
  const timers: ReturnType<typeof setTimeout>[] = [];
  const at = (atMs: number, words: HeardWords) => {
    timers.push(
      setTimeout(() => {
        hear(words);
      }, Math.max(0, atMs - nowMs())),
    );
  };
  return {
    start() {
      if (startedAtMs !== null) return;
      startedAtMs = nowMs();
      const { sound, recogniser } = config;
      if (sound?.words == null) return;
      const endMs = onsetMs + sound.durationMs;
      if (startedAtMs >= endMs) return;
      const words = sound.words.split(/\s+/);
      const heardFromMs = Math.max(onsetMs, startedAtMs);
      words.forEach((_, i) => {
        at(heardFromMs + recogniser.delayMs + (i / words.length) * (endMs - heardFromMs), { final: false, text: words.slice(0, i + 1).join(' ') });
      });
      at(Math.max(endMs + recogniser.finalAfterMs, heardFromMs + recogniser.delayMs), { final: true, text: sound.words, turnId: 'run' });
    },
    get startedAtMs() {
      return startedAtMs;
    },
    stop() {
      for (const timer of timers) clearTimeout(timer);
    },
  };
}

async function run(config: TurnTakingRun): Promise<TurnTakingReport> {
  const { context, sources, player, buffers, nowMs } = await harnessPlayer(config);
  const leakGain = config.leak > 0 ? config.leak / (await roomPeak(buffers, config.gapMs)) : 0;
  const room = roomMicrophone(context, player.output, leakGain);

  const ducks: TurnTakingReport['ducks'] = [];
  const words: TurnTakingReport['words'] = [];
  const forwarded: HeardWords[] = [];
  const started: TurnTakingReport['started'] = [];
  const saidPieces = new Set<number>();
  let stoppedAtMs: number | null = null;
  let recogniser: ReturnType<typeof fakeRecogniser> | null = null;

  let passed = false;
  const clock: Clock = {
    now: nowMs,
    setTimeout: (run, delayMs) => window.setTimeout(run, delayMs),
    clearTimeout: (id) => {
      window.clearTimeout(id as number);
    },
  };
  const yielding = createActor(
    yieldingMachine.provide({
      actions: {
        duck: () => {
          ducks.push({ atMs: nowMs(), ducked: true });
          player.duck(true);
          recogniser?.start();
        },
        take: (_, { words: held }) => {
          player.stop();
          stoppedAtMs = nowMs();
          forwarded.push(...held);
        },
        carryOn: () => {
          ducks.push({ atMs: nowMs(), ducked: false });
          player.duck(false);
          hearing.listenAgain();
        },
        release: (_, { words: held }) => {
          ducks.push({ atMs: nowMs(), ducked: false });
          player.duck(false);
          forwarded.push(...held);
        },
        pass: () => {
          passed = true;
        },
      },
    }),
    { clock, input: { pace: HEARING.yielding, now: nowMs } },
  ).start();
  const deciding = () => yielding.getSnapshot().matches('deciding');
  player.on('started', ({ piece }) => {
    saidPieces.add(piece);
    started.push({ atMs: nowMs(), piece });
  });
  // As the app does: a decision under way when the voice stops sounding is over.
  player.on('audible', (audible) => {
    if (!audible) yielding.send({ type: 'release' });
  });

  const voiceFrames: TurnTakingReport['voiceFrames'] = { total: 0, speech: 0, firstAtMs: null, changes: [] };
  const bargeInsAtMs: number[] = [];
  const hearing = new Hearing(player, (frame) => {
    bargeInsAtMs.push(frame.atMs);
    if (player.audible) yielding.send({ type: 'heard', atMs: frame.atMs, bar: frame.bar });
  });
  // As the app does: the gate's frames tell the decision how long the sound it heard goes on.
  hearing.onHeard((frame) => {
    yielding.send({ type: 'sound', atMs: frame.atMs, level: frame.level });
  });
  const leak: TurnTakingReport['leak'] = { gain: leakGain, playerAtMs: null, microphoneAtMs: null, peak: 0 };
  const bar: TurnTakingReport['bar'] = { atHeardMs: null, leakOverBar: 0, cancelledAtHeard: null, residualOverBar: 0, cancellingFromMs: null };
  let answerPlaying = false;
  let onsetAtMs = Number.POSITIVE_INFINITY;
  const recent: number[][] = [];
  const beforeFirstBargeIn: number[][] = [];
  hearing.onHeard((frame) => {
    if (!answerPlaying) return;
    recent.push([frame.atMs, frame.level, frame.cancelledLevel ?? -1, frame.assistantLevel ?? -1, frame.bar, frame.cancelledBar ?? -1]);
    while (recent.length > 0 && (recent[0]?.[0] ?? 0) <= frame.atMs - 100) recent.shift();
    if (frame.bargeIn && beforeFirstBargeIn.length === 0) beforeFirstBargeIn.push(...recent);
    if (frame.bargeIn) bar.atHeardMs ??= frame.bar;
    if (frame.bargeIn && bar.cancelledAtHeard === null) bar.cancelledAtHeard = frame.cancelledBar;
    if (frame.cancelledLevel !== undefined) bar.cancellingFromMs ??= frame.atMs;
    const judged = leak.playerAtMs !== null && frame.atMs - leak.playerAtMs >= JUDGED_AFTER_MS;
    if (judged && frame.assistantAudible && frame.atMs < onsetAtMs && bargeInsAtMs.length === 0) {
      bar.leakOverBar = Math.max(bar.leakOverBar, frame.level / frame.bar);
      if (frame.cancelledLevel !== undefined && frame.cancelledBar !== null) bar.residualOverBar = Math.max(bar.residualOverBar, frame.cancelledLevel / frame.cancelledBar);
    }
    if (leak.playerAtMs === null && (frame.assistantLevel ?? 0) > LEAK_EDGE) leak.playerAtMs = frame.atMs;
    if (leak.microphoneAtMs === null && leakGain > 0 && frame.level > LEAK_EDGE * leakGain) leak.microphoneAtMs = frame.atMs;
    leak.peak = Math.max(leak.peak, frame.level);
  });
  const marker = markerHeard(hearing, config.markerLevel);
  const refusals: MicRefused[] = [];
  const microphone = await listenWithMicrophone(
    hearing,
    context,
    (event) => refusals.push(event),
    { echoCancellation: false, autoGainControl: false, noiseSuppression: false },
    (opening, options, reference) => openMicrophoneLevel(opening, options, room.devices, reference),
    player.output,
  );
  const report = (markerAtMs: number): TurnTakingReport => ({
    sampleRateHz: context.sampleRate,
    frameMs: MICROPHONE.frameMs,
    markerAtMs,
    bargeInsAtMs,
    ducks,
    recogniserStartedAtMs: recogniser?.startedAtMs ?? null,
    words,
    forwarded,
    stoppedAtMs,
    sources,
    started,
    leak,
    voiceFrames,
    refusals,
    bar,
    beforeFirstBargeIn,
  });
  if (microphone === null) {
    room.stop();
    return report(Number.NaN);
  }
  const voiceActivity = startVoiceActivity(context, microphone);
  voiceActivity.onFrame(({ atMs, speech }) => {
    voiceFrames.total += 1;
    if (speech) voiceFrames.speech += 1;
    voiceFrames.firstAtMs ??= atMs;
    if (speech !== (voiceFrames.changes.at(-1)?.speech ?? false)) voiceFrames.changes.push({ atMs, speech });
    yielding.send({ type: 'voice', atMs, speech });
  });

  const markerAtMs = await marker;
  // The marker began within the frame that first heard it; the answer goes `leadMs` after that.
  const answerAtMs = markerAtMs - MICROPHONE.frameMs + config.leadMs;
  const onsetMs = answerAtMs + (config.sound?.atMs ?? Number.NaN);
  if (config.sound !== null) onsetAtMs = onsetMs;
  recogniser = fakeRecogniser(config, onsetMs, nowMs, (heard) => {
    passed = false;
    const spoken = config.texts.filter((_, piece) => saidPieces.has(piece));
    yielding.send({ type: 'words', words: heard, spoken, language: LANGUAGE, sounding: player.audible });
    words.push({ atMs: nowMs(), final: heard.final, text: heard.text, taken: !passed });
  });
  await sleep(answerAtMs - nowMs());
  answerPlaying = true;
  buffers.forEach((buffer, piece) => {
    player.play({ utteranceId: 1, piece }, buffer.getChannelData(0), buffer.sampleRate);
  });
  // Done once the voice has played out (or was stopped), nothing is being decided, and `afterMs` passed so.
  const until = nowMs() + RUN_PATIENCE_MS;
  let quietSinceMs: number | null = null;
  while (nowMs() < until) {
    const quiet = started.length > 0 && player.drained && !player.audible && !deciding();
    quietSinceMs = quiet ? (quietSinceMs ?? nowMs()) : null;
    if (quietSinceMs !== null && nowMs() - quietSinceMs >= config.afterMs) break;
    await sleep(20);
  }
  recogniser.stop();
  yielding.stop();
  voiceActivity.stop();
  microphone.stop();
  room.stop();
  player.dispose();
  return report(markerAtMs);
}

const harness: TurnTakingHarness = { run };
Object.assign(window, { harness });
