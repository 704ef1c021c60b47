/**
 * Runs one barge-in scenario in Chromium: a browser of its own (the fake capture WAV is a launch
 * flag, and it starts at getUserMedia), the harness page test/e2e/harness/barge-in.html from the
 * server at `baseURL`, the answer's pieces served from the speech folder at `/test-speech/`.
 * Shared by the browser tests (test/e2e/bargeIn.spec.ts) and the benchmark (test/bench/barge-in.ts).
 */
import { basename, join } from 'node:path';
import { chromium } from '@playwright/test';
import type { BargeInReport, BargeInRun } from '../harness/bargeIn';
import { STOP_RAMP_MS } from '../../../src/platform/audio/player';
import { GAP_MS, LEAD_MS, MARKER_LEVEL } from './bargeInSpeech';
import type { MicScenario, Speech } from './bargeInSpeech';

/** How the browser is launched and where the page is. */
export interface RunOptions {
  baseURL: string;
  executablePath: string;
  /** Chromium's flags, as playwright.config.ts gives them; the capture file is added per run. */
  launchArgs: readonly string[];
  speech: Speech;
  /** Whether the capture asks for echo cancellation. */
  echoCancellation: boolean;
}

/** One run, read against how its microphone WAV was made. Times in ms. */
export interface BargeInOutcome {
  scenario: MicScenario;
  report: BargeInReport;
  /** Where the leak begins in the capture (the answer's first sample at the microphone), on the audio clock. */
  leakStartMs: number;
  /** The person's first sample on the audio clock (as it reached the page's graph); null with no person. */
  onsetMs: number | null;
  /** Every barge-in, as the time of the frame that completed it. */
  bargeInsAtMs: number[];
  /** Barge-ins with nobody talking yet (any in a leak-only run, or before the person began). */
  falseBargeIns: number;
  /** From the person's first sample to the frame that completed the barge-in; null if none. */
  detectedAfterMs: number | null;
  /** From the person's first sample to the player's stop taking effect (its ramp and one render quantum after the call); null if none. */
  silentAfterMs: number | null;
  /** The player's first scheduled sample minus where the leak begins in the capture: how far playback and leak are apart. */
  alignmentMs: number;
  /** The gap the player scheduled between its first two sources; null when fewer than two played. */
  gapMs: number | null;
}

/** One render quantum: 128 samples. */
const QUANTUM_SAMPLES = 128;
/** Listening kept after the assistant falls silent: longer than the gate's 250 ms tail. */
const AFTER_MS = 400;

/** Reads a report against its scenario (see `BargeInOutcome`). */
function outcomeOf(scenario: MicScenario, report: BargeInReport): BargeInOutcome {
  // The marker began within the frame that first heard it. Taking its earliest start places the
  // onset up to one frame early, so every latency below is an upper bound, never a flattering one.
  const markerStartMs = report.markerAtMs - report.frameMs;
  const leakStartMs = markerStartMs + LEAD_MS;
  const onsetMs = scenario.person === null ? null : leakStartMs + scenario.person.atMs;
  const bargeInsAtMs = report.frames.filter((f) => f.bargeIn).map((f) => f.atMs);
  const falseBargeIns = bargeInsAtMs.filter((atMs) => onsetMs === null || atMs < onsetMs).length;
  const detected = onsetMs === null ? undefined : bargeInsAtMs.find((atMs) => atMs >= onsetMs);
  const quantumMs = (QUANTUM_SAMPLES / report.sampleRateHz) * 1000;
  const [first, second] = report.sources;
  return {
    scenario,
    report,
    leakStartMs,
    onsetMs,
    bargeInsAtMs,
    falseBargeIns,
    detectedAfterMs: onsetMs === null || detected === undefined ? null : detected - onsetMs,
    silentAfterMs: onsetMs === null || report.stoppedAtMs === null || detected === undefined ? null : report.stoppedAtMs + STOP_RAMP_MS + quantumMs - onsetMs,
    alignmentMs: first === undefined ? Number.NaN : first.atMs - leakStartMs,
    gapMs: first === undefined || second === undefined ? null : second.atMs - (first.atMs + first.durationMs),
  };
}

/** Where a harness page runs: the browser's flags, the server, and the folder `/test-speech/` is served from. */
export interface HarnessPlace {
  baseURL: string;
  executablePath: string;
  /** Chromium's flags, as playwright.config.ts gives them; the capture file is added per run. */
  launchArgs: readonly string[];
  /** The folder `/test-speech/` is served from. */
  speechDir: string;
}

/**
 * Opens `harnessPath` in a fresh Chromium whose fake microphone plays `wav` once (the capture WAV is
 * a launch flag), runs `config` through its `window.harness.run`, and answers the report. Throws on
 * any error in the page.
 */
export async function runHarness<Report>(harnessPath: string, wav: string, place: HarnessPlace, config: unknown): Promise<Report> {
  const browser = await chromium.launch({
    executablePath: place.executablePath,
    args: [...place.launchArgs, `--use-file-for-fake-audio-capture=${wav}%noloop`],
  });
  try {
    const page = await browser.newPage();
    const pageErrors: Error[] = [];
    page.on('pageerror', (error) => pageErrors.push(error));
    await page.route('**/test-speech/*', (route) => route.fulfill({ path: join(place.speechDir, basename(new URL(route.request().url()).pathname)) }));
    const harness = new URL(harnessPath, place.baseURL).href;
    const response = await page.goto(harness);
    if (response?.ok() !== true) {
      throw new Error(`${harness} answered ${response?.status() ?? 'nothing'}; build the harness pages first (vite build --mode e2e) and serve that build.`);
    }
    await page.waitForFunction(() => 'harness' in window);
    const report = await page.evaluate((run) => (window as unknown as { harness: { run(run: unknown): Promise<unknown> } }).harness.run(run), config);
    if (pageErrors.length > 0) throw new Error(`The harness page failed: ${pageErrors.map((e) => e.message).join('; ')}`);
    return report as Report;
  } finally {
    await browser.close();
  }
}

/** Runs `scenario` in a fresh Chromium and reads the outcome. Throws on any error in the page. */
export async function runScenario(scenario: MicScenario, options: RunOptions): Promise<BargeInOutcome> {
  const { speech } = options;
  const wav = speech.mics.get(scenario.name);
  if (wav === undefined) throw new Error(`No microphone WAV was made for ${scenario.name}; pass it to makeSpeech.`);
  const config: BargeInRun = {
    pieces: speech.assistant.pieces.map((name) => `/test-speech/${name}`),
    gapMs: GAP_MS,
    leadMs: LEAD_MS,
    markerLevel: MARKER_LEVEL,
    echoCancellation: options.echoCancellation,
    afterMs: AFTER_MS,
  };
  const report = await runHarness<BargeInReport>('/test/e2e/harness/barge-in.html', wav, { ...options, speechDir: speech.dir }, config);
  return outcomeOf(scenario, report);
}
