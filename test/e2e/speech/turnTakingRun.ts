/**
 * Runs one turn-taking scenario in Chromium — a browser of its own (the fake capture WAV is a
 * launch flag, and it starts at getUserMedia), the harness page test/e2e/harness/turn-taking.html
 * from the server at `baseURL`, the answer's pieces served from the speech folder at
 * `/test-speech/`, the voice's leak made on the page at the scenario's level — and reads what the
 * page saw against how the WAV was made.
 * Used by the benchmark (test/bench/turn-taking.ts).
 */
import type { TurnTakingReport, TurnTakingRun } from '../harness/turnTaking';
import { HEARING } from '../../../src/core/hearing/tuning';
import { STOP_RAMP_MS } from '../../../src/platform/audio/player';
import { runHarness } from './bargeInRun';
import { GAP_MS, LEAD_MS, MARKER_LEVEL } from './bargeInSpeech';
import type { SoundScenario, TurnTakingSpeech } from './turnTakingSpeech';

/** How the browser is launched, where the page is, and how the fake recogniser paces its words. */
export interface TurnTakingRunOptions {
  baseURL: string;
  executablePath: string;
  /** Chromium's flags, as playwright.config.ts gives them; the capture file is added per run. */
  launchArgs: readonly string[];
  speech: TurnTakingSpeech;
  /** From the start of the speech the recogniser can hear to its first interim words, in ms. */
  recogniserDelayMs: number;
  /** From the end of the speech to the recogniser's final, in ms. */
  finalAfterMs: number;
}

/** One run, read against how its microphone WAV was made. Times in ms on the audio clock. */
export interface TurnTakingOutcome {
  scenario: SoundScenario;
  report: TurnTakingReport;
  /** The sound's first sample on the audio clock; null for the leak alone. */
  onsetMs: number | null;
  /** The sound's last sample on the audio clock; null for the leak alone. */
  soundEndMs: number | null;
  /** Ducks with nothing over the leak yet: every duck of a leak-only run, and ducks before the sound began. */
  falseDucks: number;
  /** From the onset to the first duck after it taking effect (the call plus one render quantum); null when it never ducked. */
  duckedMs: number | null;
  /** Whether the turn was taken (the player stopped). */
  taken: boolean;
  /** From the onset to the stop taking effect (the call, the stop ramp and one render quantum); null when not taken. */
  silentMs: number | null;
  /**
   * From the sound's last sample to the voice back at full level (the `duck(false)` that ended the
   * last duck begun before the sound ended, plus `HEARING.duck.unduckMs`); null when it never ducked or was taken,
   * and NaN when a duck was never ended.
   */
  fullLevelAgainMs: number | null;
  /**
   * The answer's pieces not heard through to their end at full level: every play of it was cut (a
   * stop, or the player saying it again) before its last sample, or ended while ducked.
   */
  lostPieces: number[];
  /**
   * From the player's first output frame over the harness's edge to the leak's first such frame at
   * the microphone, in ms (a whole number of level frames: 0 is the same frame); null with no leak.
   */
  leakLagMs: number | null;
}

/** One render quantum: 128 samples. */
const QUANTUM_SAMPLES = 128;
/** Listening kept once the voice has played out and nothing is being decided: longer than the gate's 250 ms tail. */
const AFTER_MS = 400;
/** How far a started source's length may be from a piece's for it to be that piece, in ms. */
const SAME_PIECE_MS = 5;

/** The ducked stretches, [from, to) on the audio clock, from the calls of the duck port; an unended one runs to Infinity. */
function duckedStretches(ducks: TurnTakingReport['ducks']): [number, number][] {
  const stretches: [number, number][] = [];
  let from: number | null = null;
  for (const { atMs, ducked } of ducks) {
    if (ducked && from === null) from = atMs;
    else if (!ducked && from !== null) {
      stretches.push([from, atMs]);
      from = null;
    }
  }
  if (from !== null) stretches.push([from, Infinity]);
  return stretches;
}

/** Reads a report against its scenario (see `TurnTakingOutcome`). */
export function outcomeOf(scenario: SoundScenario, report: TurnTakingReport, speech: TurnTakingSpeech): TurnTakingOutcome {
  // The marker began within the frame that first heard it. Taking its earliest start places the
  // onset up to one frame early, so every latency from it is an upper bound, never a flattering one.
  const answerAtMs = report.markerAtMs - report.frameMs + LEAD_MS;
  const { sound } = scenario;
  const onsetMs = sound === null ? null : answerAtMs + sound.atMs;
  const soundEndMs = sound === null || onsetMs === null ? null : onsetMs + (speech.clipMs.get(sound.clip.file) ?? Number.NaN);
  const quantumMs = (QUANTUM_SAMPLES / report.sampleRateHz) * 1000;
  const duckOns = report.ducks.filter((d) => d.ducked).map((d) => d.atMs);
  const falseDucks = duckOns.filter((atMs) => onsetMs === null || atMs < onsetMs).length;
  const firstDuck = onsetMs === null ? undefined : duckOns.find((atMs) => atMs >= onsetMs);
  const taken = report.stoppedAtMs !== null;
  const stretches = duckedStretches(report.ducks);
  const lastBeforeEnd = soundEndMs === null ? undefined : stretches.filter(([from]) => onsetMs !== null && from >= onsetMs && from <= soundEndMs).at(-1);
  const fullLevelAgainMs = taken || lastBeforeEnd === undefined || soundEndMs === null ? null : lastBeforeEnd[1] === Infinity ? Number.NaN : lastBeforeEnd[1] + HEARING.duck.unduckMs - soundEndMs;

  const lostPieces = speech.assistant.pieceMs.flatMap((pieceMs, piece) => {
    const plays = report.sources.filter((s) => Math.abs(s.durationMs - pieceMs) <= SAME_PIECE_MS);
    const heard = plays.some((play) => {
      const endMs = play.atMs + play.durationMs;
      const cut = play.stopAtMs !== undefined && play.stopAtMs < endMs;
      return !cut && !stretches.some(([from, to]) => from <= endMs && endMs < to);
    });
    return heard ? [] : [piece];
  });
  return {
    scenario,
    report,
    onsetMs,
    soundEndMs,
    falseDucks,
    duckedMs: firstDuck === undefined || onsetMs === null ? null : firstDuck + quantumMs - onsetMs,
    taken,
    silentMs: !taken || onsetMs === null || report.stoppedAtMs === null ? null : report.stoppedAtMs + STOP_RAMP_MS + quantumMs - onsetMs,
    fullLevelAgainMs,
    lostPieces,
    leakLagMs: report.leak.playerAtMs === null || report.leak.microphoneAtMs === null ? null : report.leak.microphoneAtMs - report.leak.playerAtMs,
  };
}

/** Runs `scenario` in a fresh Chromium and reads the outcome. Throws on any error in the page. */
export async function runTurnTaking(scenario: SoundScenario, options: TurnTakingRunOptions): Promise<TurnTakingOutcome> {
  const { speech } = options;
  const wav = speech.mics.get(scenario.name);
  if (wav === undefined) throw new Error(`No microphone WAV was made for ${scenario.name}; pass it to makeTurnTakingSpeech.`);
  const { sound } = scenario;
  const config: TurnTakingRun = {
    pieces: speech.assistant.pieces.map((name) => `/test-speech/${name}`),
    texts: speech.texts,
    gapMs: GAP_MS,
    leadMs: LEAD_MS,
    markerLevel: MARKER_LEVEL,
    leak: scenario.leak,
    sound: sound === null ? null : { atMs: sound.atMs, durationMs: speech.clipMs.get(sound.clip.file) ?? 0, words: sound.clip.words },
    recogniser: { delayMs: options.recogniserDelayMs, finalAfterMs: options.finalAfterMs },
    afterMs: AFTER_MS,
  };
  const report = await runHarness<TurnTakingReport>('/test/e2e/harness/turn-taking.html', wav, { ...options, speechDir: speech.dir }, config);
  return outcomeOf(scenario, report, speech);
}
