/**
 * What every test of the page at /voice/<bot> stands on:
 *
 * - a Chromium of its own per microphone: a silent one by default (the default fake device beeps,
 *   which the echo gate hears as a person talking over the assistant), one that is refused, or one
 *   that stays quiet and then talks (`mic` option, per file);
 * - the fake recogniser installed before the page loads (`recogniser: false` for a browser that
 *   has none), refused where the microphone is, as Chromium's is; on the device and with phrases
 *   where a file says (`onDevice`, `phrases`);
 * - no error thrown in the page, checked after each test;
 * - small readers of the page and of the server's API (which share the page's person cookie).
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { test as base, expect } from '@playwright/test';
import type { APIRequestContext, Browser, Locator, Page } from '@playwright/test';
import config from '../../../playwright.config';
import { FakeSpeech } from './fakeRecogniser';
import type { FakeOnDevice } from './fakeRecogniser';
import { writeSilence, writeSounds, writeTalkAfter } from './micFiles';

/**
 * The page's microphone: silent; refused by the browser; quiet, then a person talking for 2 s; or
 * quiet, then a murmured "mm-hmm" and, later, a knock on the table (`MURMUR_AT_MS`, `KNOCK_AT_MS`).
 */
type Mic = 'silent' | 'refused' | 'talks' | 'murmurs';

/** How long a person in the `talks` file keeps quiet after the page opens the microphone. */
const TALKS_AFTER_MS = 1500;
/** How long they then talk; after it the file is silent. */
export const TALKS_FOR_MS = 2000;
/** In the `murmurs` file: when the person murmurs "mm-hmm", and when something knocks on the table. */
const MURMUR_AT_MS = 1500;
const KNOCK_AT_MS = 5000;

interface PageOptions {
  /** Whether the browser has a recogniser (the fake one); false is Firefox. Default true. */
  recogniser: boolean;
  /** What the fake says of recognising on the device; null (the default): it cannot, as before Chrome 139. */
  onDevice: FakeOnDevice | null;
  /** Whether the fake's sessions take phrases to favour. Default false. */
  phrases: boolean;
}

interface PageFixtures {
  speech: FakeSpeech;
}

interface WorkerOptions {
  mic: Mic;
}

const chromiumPath = config.use?.launchOptions?.executablePath ?? '/usr/bin/chromium';
const sharedArgs = config.use?.launchOptions?.args ?? [];

function launchArgs(mic: Mic, folder: string): string[] {
  if (mic === 'refused') {
    // No fake prompt that says yes: the browser refuses the microphone as a person would.
    return [...sharedArgs.filter((arg) => arg !== '--use-fake-ui-for-media-stream'), '--deny-permission-prompts'];
  }
  const file =
    mic === 'silent'
      ? writeSilence(join(folder, 'silence.wav'))
      : mic === 'talks'
        ? writeTalkAfter(join(folder, 'talks.wav'), { quietMs: TALKS_AFTER_MS, talkMs: TALKS_FOR_MS, level: 0.6, totalMs: 30_000 })
        : writeSounds(join(folder, 'murmurs.wav'), [{ kind: 'murmur', atMs: MURMUR_AT_MS, level: 0.5 }, { kind: 'knock', atMs: KNOCK_AT_MS, level: 0.6 }], 30_000);
  return [...sharedArgs, `--use-file-for-fake-audio-capture=${file}`];
}

/** Errors thrown in each page, asserted empty after each test. */
const pageErrors = new WeakMap<Page, string[]>();

export const test = base.extend<PageOptions & PageFixtures, WorkerOptions>({
  mic: ['silent', { scope: 'worker', option: true }],
  browser: [
    async ({ playwright, mic }, use, workerInfo) => {
      const folder = join(workerInfo.project.outputDir, `mic-${mic}-${String(workerInfo.workerIndex)}`);
      mkdirSync(folder, { recursive: true });
      const browser: Browser = await playwright.chromium.launch({ executablePath: chromiumPath, args: launchArgs(mic, folder) });
      await use(browser);
      await browser.close();
    },
    { scope: 'worker' },
  ],
  recogniser: [true, { option: true }],
  onDevice: [null, { option: true }],
  phrases: [false, { option: true }],
  page: async ({ page }, use) => {
    const errors: string[] = [];
    pageErrors.set(page, errors);
    page.on('pageerror', (error) => errors.push(error.message));
    await use(page);
  },
  speech: [
    async ({ page, recogniser, mic, onDevice, phrases }, use) => {
      if (!recogniser) await FakeSpeech.remove(page);
      await use(recogniser ? await FakeSpeech.install(page, { refused: mic === 'refused', onDevice, phrases }) : new FakeSpeech(page));
    },
    { auto: true },
  ],
});

test.afterEach(({ page }) => {
  expect(pageErrors.get(page) ?? []).toEqual([]);
});

export { expect };

/** A page loads the voice model and speaks whole answers in real time: a busy 2-core machine needs the room. */
export const PAGE_TEST_TIMEOUT_MS = 180_000;
/** How long an answer, spoken by the tiny device voice in real time, may take on a busy machine. */
export const ANSWER_PATIENCE_MS = 60_000;

/** Opens `/voice/<slug>` (on the shared server, or at `origin`) and waits until it is ready to talk. */
export async function openVoice(page: Page, slug = 'demo', origin?: string): Promise<void> {
  await page.goto(origin === undefined ? `/voice/${slug}` : new URL(`/voice/${slug}`, origin).href);
  await expect(page.getByTestId('mic')).toBeVisible({ timeout: 30_000 });
}

/** Reads the disclosure and starts listening (the click is also the gesture that lets audio play). */
export async function startListening(page: Page): Promise<void> {
  await expect(page.getByTestId('disclosure')).toContainText('may send what you say');
  await page.getByTestId('start-listening').click();
  await expect(page.getByTestId('disclosure')).toBeHidden();
}

/** The orb, whose `data-state` and status sentence say what the conversation is doing. */
export const orb = (page: Page): Locator => page.getByTestId('orb');

/** The page's surface, whose `data-audible` says whether the player is sounding the assistant now. */
export const surface = (page: Page): Locator => page.locator('[data-audible]');

/** The transcript's lines by role: the words in each bubble (not the "You said:" read to screen readers). */
export const said = (page: Page, role: 'user' | 'assistant'): Locator => page.getByTestId('transcript').locator(`li[data-role="${role}"] .bubble`);

/** Waits until the answer to the last question has been spoken and the turn is the person's again. */
export async function turnBack(page: Page): Promise<void> {
  await expect(orb(page)).toHaveAttribute('data-state', /^(listening|hearing|muted)$/, { timeout: ANSWER_PATIENCE_MS });
}

/** Turns the answers' voice off in the settings (for tests about what is kept, not heard). */
export async function stopSpeaking(page: Page): Promise<void> {
  await page.getByTestId('open-settings').click();
  await page.getByTestId('speech').uncheck();
  await page.getByRole('button', { name: 'Close settings' }).click();
}

export interface ThreadRow {
  id: string;
  title: string;
}

export interface LineRow {
  who: 'person' | 'assistant';
  text: string;
  interrupted: boolean;
}

/** The person's conversations with `bot`, as the server has them. */
export async function threadsInDb(request: APIRequestContext, bot = 'demo', origin = ''): Promise<ThreadRow[]> {
  const response = await request.get(`${origin}/api/threads?bot=${bot}`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { threads: ThreadRow[] }).threads;
}

/** One conversation's lines, as the server has them (they must all have been there). */
export async function linesInDb(request: APIRequestContext, threadId: string, origin = ''): Promise<LineRow[]> {
  const response = await request.get(`${origin}/api/threads/${threadId}/lines`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { lines: LineRow[] }).lines.map(({ who, text, interrupted }) => ({ who, text, interrupted }));
}

/**
 * A long answer to a typed question, audible, and then the person lets the page listen — which
 * opens the microphone, so the capture's person starts talking over it.
 */
export async function talkOverALongAnswer(page: Page): Promise<void> {
  await openVoice(page);
  // The first tap lets audio play; the greeting is spoken, and until listening is allowed the page is typed to.
  await page.getByTestId('bot-name').click();
  await expect(orb(page)).toHaveAttribute('data-state', 'muted', { timeout: ANSWER_PATIENCE_MS });
  await page.getByTestId('typing').fill('Tell me a long story about the sea.');
  await page.getByTestId('send').click();
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking', { timeout: ANSWER_PATIENCE_MS });
  await expect(surface(page)).toHaveAttribute('data-audible', 'true');
  await page.getByTestId('start-listening').click();
}
