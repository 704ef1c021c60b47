/**
 * Barge-in in Chromium, end to end below the machine: the real player plays a known answer, the
 * real microphone level meter hears Chromium's fake capture device play a WAV made for the
 * scenario (test/e2e/speech), and the real hearing (echo gate) decides; a barge-in stops the
 * player, as the machine's `stopAudio` would.
 *
 * Echo cancellation is off in these runs, and so are AGC and noise suppression. There is no
 * acoustic loop here: the "leak" is in the capture file, not a path from a speaker to a microphone,
 * so whatever reference the canceller holds, there is nothing it can learn to cancel. In trials it left the file's leak in
 * place and reshaped it frame by frame (EC on / EC off: median 1.00, 10th–90th percentile
 * 0.85–1.25 on the leak, 0.62–1.44 on a person), enough to move a cold gate's false barge-in from
 * 710 to 200 ms into the answer. With it on, these runs would measure that reshaping, not the
 * gate. The gate is built for a canceller that leaves a loud leak behind, which is what runs here.
 *
 * Each scenario needs a browser of its own: the capture file is a launch flag and starts playing
 * when the page calls getUserMedia.
 */
import { expect, test } from '@playwright/test';
import config from '../../playwright.config';
import { makeSpeech } from './speech/bargeInSpeech';
import type { MicScenario, Speech } from './speech/bargeInSpeech';
import { runScenario } from './speech/bargeInRun';
import type { BargeInOutcome } from './speech/bargeInRun';

const LEAK_LEVELS = [0.1, 0.3, 0.5, 0.7] as const;
/** Where a person starts, in ms after the answer's first sample: just past the gate's warm-up, and well into the first piece. */
const PERSON_AT_MS = [450, 1500] as const;
/** The headphone case's quiet word comes well into the first piece. */
const WORD_AT_MS = 1500;

const leakOnly = (leak: number): MicScenario => ({ name: `leak-${leak}`, leak, person: null });
/** A person 6 dB over the leak (clipping where that passes full scale), as the echo-gate benchmark has it. */
const personOver = (leak: number, atMs: number): MicScenario => ({
  name: `person-over-${leak}-at-${atMs}`,
  leak,
  person: { says: 'question', level: Math.max(0.3, 2 * leak), atMs },
});
const PERSON_LEAKS = [0.3, 0.6] as const;
const headphones: MicScenario = { name: 'headphones', leak: 0, person: { says: 'word', level: 0.15, atMs: WORD_AT_MS } };
const SCENARIOS = [
  ...LEAK_LEVELS.map(leakOnly),
  ...PERSON_LEAKS.flatMap((leak) => PERSON_AT_MS.map((atMs) => personOver(leak, atMs))),
  headphones,
];

let speech: Speech;

test.beforeAll(({ browserName: _ }, testInfo) => {
  // In Playwright's output folder: kept to listen to after a failure, emptied by the next run.
  speech = makeSpeech(testInfo.outputPath('speech'), SCENARIOS);
});

async function run(scenario: MicScenario, baseURL: string | undefined): Promise<BargeInOutcome> {
  const launch = config.use?.launchOptions;
  return runScenario(scenario, {
    baseURL: baseURL ?? '',
    executablePath: launch?.executablePath ?? '/usr/bin/chromium',
    launchArgs: launch?.args ?? [],
    speech,
    echoCancellation: false,
  });
}

/**
 * Where each barge-in fell, in ms into the answer, for a failure to say, with the frames heard in
 * the 100 ms up to the first: [ms into the answer, level, cancelled level (-1: not trusted),
 * output level, first bar, second bar (-1: none)].
 */
function bargeInsIntoAnswer(outcome: BargeInOutcome): string {
  const into = (atMs: number) => Math.round(atMs - outcome.leakStartMs);
  const hit = outcome.report.frames.find((f) => f.bargeIn);
  const near = hit === undefined ? [] : outcome.report.frames.filter((f) => f.atMs > hit.atMs - 100 && f.atMs <= hit.atMs);
  const r = (x: number | null | undefined) => +(x ?? -1).toFixed(3);
  const frames = near.map((f) => [into(f.atMs), r(f.level), r(f.cancelledLevel), r(f.assistantLevel), r(f.bar), r(f.cancelledBar)]);
  return `barge-ins at ${JSON.stringify(outcome.bargeInsAtMs.map(into))} ms into the answer; frames before the first: ${JSON.stringify(frames)}`;
}

/** The player went quiet on the stop: nothing at its output, nothing audible, and no piece started after it. */
function expectSilenced(outcome: BargeInOutcome): void {
  const { report } = outcome;
  expect(report.stoppedAtMs).not.toBeNull();
  expect(report.afterStop).toEqual({ level: 0, audible: false });
  expect(report.audible.map((change) => change.audible)).toEqual([true, false]);
}

for (const leak of LEAK_LEVELS) {
  test(`lets the assistant talk over its own voice leaking into the microphone at ${leak}`, async ({ baseURL }) => {
    const outcome = await run(leakOnly(leak), baseURL);
    expect(outcome.report.refusals).toEqual([]);
    // The leak really reached the meter while the assistant was audible.
    const heardWhileAudible = Math.max(...outcome.report.frames.filter((f) => f.assistantAudible).map((f) => f.level));
    expect(heardWhileAudible).toBeGreaterThan(leak / 2);
    expect(outcome.bargeInsAtMs, bargeInsIntoAnswer(outcome)).toEqual([]);
    expect(outcome.report.stoppedAtMs).toBeNull();
    // Both pieces played out, the second the player's gap after the first.
    expect(outcome.report.sources).toHaveLength(speech.assistant.pieces.length);
    expect(outcome.report.audible.map((change) => change.audible)).toEqual([true, false]);
  });
}

for (const scenario of PERSON_LEAKS.flatMap((leak) => PERSON_AT_MS.map((atMs) => personOver(leak, atMs)))) {
  const { leak, person } = scenario;
  test(`stops the assistant when a person talks over a ${leak} leak ${person?.atMs ?? 0} ms in, and the player goes silent`, async ({ baseURL }) => {
    const outcome = await run(scenario, baseURL);
    expect(outcome.falseBargeIns, bargeInsIntoAnswer(outcome)).toBe(0);
    expect(outcome.bargeInsAtMs, bargeInsIntoAnswer(outcome)).toHaveLength(1);
    // Heard while they were still talking, not after.
    expect(outcome.detectedAfterMs).not.toBeNull();
    expect(outcome.detectedAfterMs ?? Infinity).toBeLessThan(speech.personMs.question);
    expectSilenced(outcome);
  });
}

test('on headphones (no leak), a quiet word interrupts the assistant', async ({ baseURL }) => {
  const outcome = await run(headphones, baseURL);
  // The word is quiet: its loudest frame is under twice the gate's floor.
  const loudest = Math.max(...outcome.report.frames.map((f) => f.level));
  expect(loudest).toBeLessThan(0.2);
  expect(outcome.falseBargeIns, bargeInsIntoAnswer(outcome)).toBe(0);
  expect(outcome.bargeInsAtMs, bargeInsIntoAnswer(outcome)).toHaveLength(1);
  expect(outcome.detectedAfterMs ?? Infinity).toBeLessThan(speech.personMs.word);
  expectSilenced(outcome);
});
