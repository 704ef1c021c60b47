/**
 * A browser with no recogniser, for real: Debian's Firefox ESR (it has no SpeechRecognition),
 * driven over WebDriver BiDi by puppeteer-core, against the real server serving the e2e build. The
 * page says it cannot listen, is typed to, answers, and a second question typed while the first
 * answer is still being said cuts it: kept as interrupted, and the second is answered.
 *
 * Playwright's own Firefox is a build of its own that cannot be fetched here, and Debian's does not
 * speak Playwright's protocol; the Chromium page tests (test/e2e/page/noRecogniser.spec.ts) cover
 * the layouts with the recogniser taken away.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import puppeteer from 'puppeteer-core';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { layTinyModels } from '../e2e/tinyModels';
import { startConfabProcess } from './confabProcess';
import type { ConfabProcess } from './confabProcess';
import { startNullSpeakers } from './nullSpeakers';

const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';
/** Beside the Playwright run's 8797, never on it. */
const PORT = Number(process.env.FIREFOX_E2E_PORT ?? 8811);
/** Its own tiny model mirror: laying one empties the folder, which must never be under a Playwright run. */
const MODELS_DIR = resolve(import.meta.dirname, '..', '..', 'e2e-build', `models-firefox-${String(PORT)}`);
/** How long an answer, spoken by the tiny device voice in real time, may take on a busy machine (as the page tests allow). */
const ANSWER_PATIENCE_MS = 60_000;

let server: ConfabProcess;
let page: Page;
const pageErrors: string[] = [];
/** What beforeAll started, stopped last first (whatever of it did start). */
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  mkdirSync(MODELS_DIR, { recursive: true });
  layTinyModels(MODELS_DIR);
  server = await startConfabProcess({ port: PORT, modelsDir: MODELS_DIR });
  stops.push(server.close);
  const speakers = await startNullSpeakers();
  stops.push(speakers.close);
  const browser = await puppeteer.launch({
    browser: 'firefox',
    protocol: 'webDriverBiDi',
    executablePath: FIREFOX_PATH,
    headless: true,
    env: { ...process.env, PULSE_SERVER: speakers.pulseServer },
    // As the Chromium tests' --autoplay-policy=no-user-gesture-required: the answers are heard.
    extraPrefsFirefox: { 'media.autoplay.default': 0 },
    // The window's own size, not an emulated viewport: Firefox ESR 140's WebDriver BiDi has no
    // emulation.setScreenOrientationOverride, which puppeteer's setViewport sends.
    defaultViewport: null,
    args: ['--width=1280', '--height=800'],
  });
  stops.push(() => browser.close());
  page = await browser.newPage();
  page.on('pageerror', (error: unknown) => pageErrors.push(error instanceof Error ? error.message : String(error)));
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
});

const testId = (id: string) => `[data-testid="${id}"]`;

/** The words in each of the transcript's bubbles by `role`, with whether the line is marked cut. */
function lines(role: 'user' | 'assistant'): Promise<{ text: string; interrupted: boolean }[]> {
  return page.$$eval(`${testId('transcript')} li[data-role="${role}"]`, (items) =>
    items.map((li) => ({ text: li.querySelector('.bubble')?.textContent.trim() ?? '', interrupted: li.querySelector('.note')?.textContent.trim() === 'Interrupted' })),
  );
}

const attribute = (id: string, name: string) => page.$eval(testId(id), (element, n) => element.getAttribute(n), name);
const audible = () => page.$eval('[data-audible]', (element) => element.getAttribute('data-audible'));

async function type(text: string): Promise<void> {
  await page.locator(testId('typing')).fill(text);
  await page.locator(testId('send')).click();
}

/** The person's lines in their one conversation with Sage, as the server has them (the page's cookie is theirs). */
function linesInDb(): Promise<string[]> {
  return page.evaluate(async () => {
    const { threads } = (await (await fetch('/api/threads?bot=demo')).json()) as { threads: { id: string }[] };
    const { lines: kept } = (await (await fetch(`/api/threads/${threads[0]?.id ?? ''}/lines`)).json()) as { lines: { who: string; interrupted: boolean }[] };
    return kept.map((l) => `${l.who}${l.interrupted ? ' (interrupted)' : ''}`);
  });
}

it('says it cannot listen, answers what is typed, and a question typed over an answer cuts it and is answered', { timeout: 3 * ANSWER_PATIENCE_MS }, async () => {
  await page.goto(`${server.origin}/voice/demo`);
  await page.locator(testId('mic')).setTimeout(30_000).wait();
  expect(await page.evaluate(() => 'SpeechRecognition' in window || 'webkitSpeechRecognition' in window)).toBe(false);
  // Seen where the person types, and said by the button that would listen.
  await page.locator(`${testId('typing')}[placeholder="This browser cannot listen; type here"]`).setVisibility('visible').wait();
  expect(await attribute('mic', 'aria-label')).toBe('This browser cannot listen; type instead');

  // The first tap lets audio play: the greeting is heard out, and the page waits to be typed to.
  await page.locator(testId('bot-name')).click();
  await expect.poll(audible, { timeout: ANSWER_PATIENCE_MS }).toBe('true');
  await expect.poll(() => attribute('orb', 'data-state'), { timeout: ANSWER_PATIENCE_MS }).toBe('muted');

  await type('Tell me a long story about the sea.');
  await expect.poll(() => attribute('orb', 'data-state'), { timeout: ANSWER_PATIENCE_MS }).toBe('speaking');
  await expect.poll(audible).toBe('true');
  await expect.poll(async () => (await lines('assistant'))[1]?.text ?? '').toMatch(/^I'm a stand-in/);
  expect(await lines('user')).toEqual([{ text: 'Tell me a long story about the sea.', interrupted: false }]);

  // Typed while the answer is still being said: it stops, is kept as cut, and the new question is answered.
  expect(await attribute('orb', 'data-state')).toBe('speaking');
  await type('What happened next?');
  await expect.poll(async () => (await lines('assistant'))[1]?.interrupted).toBe(true);
  await expect.poll(async () => (await lines('assistant'))[2]?.text ?? '', { timeout: ANSWER_PATIENCE_MS }).toContain('I heard you say: "What happened next?"');
  await expect.poll(() => attribute('orb', 'data-state'), { timeout: ANSWER_PATIENCE_MS }).toMatch(/^(listening|hearing|muted)$/);
  expect((await lines('user')).map((l) => l.text)).toEqual(['Tell me a long story about the sea.', 'What happened next?']);
  expect((await lines('assistant')).map((l) => l.interrupted)).toEqual([false, true, false]);

  await expect.poll(linesInDb).toEqual(['assistant', 'person', 'assistant (interrupted)', 'person', 'assistant']);
  expect(pageErrors).toEqual([]);
});
