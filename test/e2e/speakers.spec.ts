/**
 * The speakers in Chromium, over test/e2e/harness/speakers.html: the real player, the real device
 * voice (the worker with the tiny Supertonic graphs), the real endpoint voice through the server's
 * speak proxy, and the real conversation machine deciding what is spoken.
 *
 * (4) The endpoint fails — the shared server names none (404 `no-endpoint`), or a server of the
 *     test's own whose endpoint answers 500 — and the device voice speaks the same piece; the
 *     endpoint is never asked again.
 * (5) A reader interrupted mid-stream stops receiving bytes: a server of the test's own proxies to a
 *     local endpoint that streams PCM slowly and records how much it sent before its socket closed.
 * (15) A long answer on a slow device plays with no silence between its pieces beyond the gap (and
 *     50 ms): the worker is the product's on a device making speech at 0.85 of real time.
 */
import { expect, test } from '@playwright/test';
import type { JSHandle, Page } from '@playwright/test';
import type { SpeakersEntry, SpeakersHarness } from './harness/speakers';
import { startConfabServer } from './helpers/confabServer';
import { TEST_BOTS_DIR } from './page/ownServer';
import { startPcmVoiceEndpoint } from './helpers/pcmVoiceEndpoint';
import type { PcmStreamOptions, PcmVoiceEndpoint } from './helpers/pcmVoiceEndpoint';
import type { Listening } from '../server/chat/localServers';
import { LONG_ANSWER } from '../helpers/longAnswer';

/** An answer the chunker cuts in two: the opening sentence, then the rest. */
const ANSWER = 'Hello there. I am speaking from this device now, because the paid voice could not be heard.';
/** How long a turn spoken by the tiny device voice may take on a busy machine before the test gives up. */
const TURN_PATIENCE_MS = 30_000;
/** How long a server of the test's own may take to start on a busy machine. */
const SERVER_PATIENCE_MS = 180_000;
/** 400 chunks of 4800 bytes, one every 50 ms: 20 s of sending, 40 s of audio at 24 kHz. */
const SLOW_PCM: PcmStreamOptions = { chunkBytes: 4800, everyMs: 50, chunks: 400 };

// A page loads the voice model and speaks several turns: a busy 2-core machine needs the room.
test.describe.configure({ timeout: 120_000 });

const HARNESS = '/test/e2e/harness/speakers.html';

/** Errors the page threw; a test ends by asserting there were none. */
const pageErrors = new WeakMap<Page, string[]>();

/**
 * Opens the harness (on the shared server, or at `origin`), loads the device voice, gets a grant and
 * makes the audio in a click.
 */
async function openHarness(page: Page, origin?: string, query = ''): Promise<JSHandle<SpeakersHarness>> {
  const errors: string[] = [];
  pageErrors.set(page, errors);
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(origin === undefined ? `${HARNESS}${query}` : new URL(`${HARNESS}${query}`, origin).href);
  await page.waitForFunction(() => 'harness' in window);
  const harness = await page.evaluateHandle(() => (window as unknown as { harness: SpeakersHarness }).harness);
  await harness.evaluate((h) => h.prepare());
  await page.getByRole('button', { name: 'Begin' }).click();
  return harness;
}

test.afterEach(({ page }) => {
  expect(pageErrors.get(page) ?? []).toEqual([]);
});

/** Waits until the turn is back with the person: every piece played out or settled. */
async function turnBack(harness: JSHandle<SpeakersHarness>): Promise<void> {
  await expect.poll(() => harness.evaluate((h) => h.turnIsBack()), { timeout: TURN_PATIENCE_MS }).toBe(true);
}

const speaks = (log: readonly SpeakersEntry[]) => log.flatMap((e) => (e.kind === 'speak' ? [`${e.utteranceId}:${e.piece}:${e.voice}`] : []));
const opened = (log: readonly SpeakersEntry[]) => log.flatMap((e) => (e.kind === 'open' ? [`${e.utteranceId}:${e.piece}@${e.rateHz}`] : []));
const failures = (log: readonly SpeakersEntry[]) => log.filter((e) => e.kind === 'failed');
/** The entries about one piece. */
const about = (log: readonly SpeakersEntry[], utteranceId: number, piece: number) =>
  log.filter((e) => 'piece' in e && e.utteranceId === utteranceId && e.piece === piece);

/** Asserts the device voice's samples of one piece reached the audio graph and were heard. */
function heardOnDevice(log: readonly SpeakersEntry[], utteranceId: number, piece: number): void {
  const entries = about(log, utteranceId, piece);
  expect(entries.find((e) => e.kind === 'open')).toMatchObject({ rateHz: 44_100 });
  const writes = entries.filter((e) => e.kind === 'write');
  expect(writes.length).toBeGreaterThan(0);
  expect(writes.every((e) => e.samples > 0 && e.peak > 0)).toBe(true);
  expect(entries.map((e) => e.kind).filter((kind) => kind === 'started' || kind === 'ended')).toEqual(['started', 'ended']);
  const ended = entries.find((e) => e.kind === 'ended');
  expect(ended?.kind === 'ended' ? ended.peakLevel : 0).toBeGreaterThan(0);
}

test('(4) with no voice endpoint, the device voice speaks the same piece and the endpoint is never asked again', async ({ page }) => {
  const speakAnswers: number[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname === '/api/speak') speakAnswers.push(response.status());
  });
  const harness = await openHarness(page);

  await harness.evaluate((h) => {
    h.converse('endpoint');
  });
  const first = await harness.evaluate((h, answer) => h.ask('Hello?', answer), ANSWER);
  await turnBack(harness);
  let log = await harness.evaluate((h) => h.log());
  // Both pieces were asked of the endpoint; its one failure, at the opening piece, had the machine
  // re-speak both on the device.
  expect(speaks(log)).toEqual([`${first}:0:endpoint`, `${first}:1:endpoint`, `${first}:0:device`, `${first}:1:device`]);
  expect(failures(log)).toMatchObject([{ utteranceId: first, piece: 0, voice: 'endpoint' }]);
  expect(failures(log)[0]).toHaveProperty('reason', expect.stringMatching(/no voice endpoint/));
  expect(opened(log)).toEqual([`${first}:0@44100`, `${first}:1@44100`]);
  heardOnDevice(log, first, 0);
  heardOnDevice(log, first, 1);
  expect(speakAnswers).toEqual([404]);

  // The next question is voiced on the device from the start.
  const second = await harness.evaluate((h) => h.ask('And now?', 'Still here, on this device.'));
  await turnBack(harness);
  log = await harness.evaluate((h) => h.log());
  expect(speaks(log).filter((s) => s.startsWith(`${second}:`))).toEqual([`${second}:0:device`]);
  heardOnDevice(log, second, 0);

  // A new conversation whose bot file still says endpoint is sent to the device by the speakers.
  await harness.evaluate((h) => {
    h.converse('endpoint');
  });
  const third = await harness.evaluate((h) => h.ask('Hello again?', 'Hello again, from this device.'));
  await turnBack(harness);
  log = await harness.evaluate((h) => h.log());
  const after = log.slice(log.findLastIndex((e) => e.kind === 'conversation'));
  expect(speaks(after)).toEqual([`${third}:0:endpoint`]);
  expect(failures(after)).toEqual([]);
  heardOnDevice(after, third, 0);

  expect(speakAnswers).toEqual([404]);
});

/** The player's gap between pieces (the demo bot's 0.12 s), and the most any gap may be beyond it. */
const GAP_S = 0.12;
const GAP_TOLERANCE_S = 0.05;

test('(15) a long answer on a device making speech at 0.85 of real time plays with no gap beyond the gap and 50 ms', async ({ page }) => {
  test.setTimeout(240_000);
  const harness = await openHarness(page, undefined, '?rtf=0.85');
  await harness.evaluate((h) => {
    h.converse('device');
  });
  const id = await harness.evaluate((h, answer) => h.ask('What is the plan?', answer), LONG_ANSWER);
  await expect.poll(() => harness.evaluate((h) => h.turnIsBack()), { timeout: 180_000 }).toBe(true);

  const log = await harness.evaluate((h) => h.log());
  const pieces = speaks(log).filter((spoken) => spoken.startsWith(`${id}:`));
  // Cut to what the device can make in time: more, smaller pieces than the two a fast device gets.
  expect(pieces.length).toBeGreaterThan(4);
  for (let piece = 0; piece < pieces.length; piece += 1) heardOnDevice(log, id, piece);
  const scheduled = log.flatMap((e) => (e.kind === 'scheduled' ? [e] : []));
  expect(scheduled).toHaveLength(pieces.length);
  const gaps = scheduled.slice(1).map((buffer, i) => {
    const before = scheduled[i];
    return before === undefined ? Number.NaN : buffer.atS - (before.atS + before.durationS);
  });
  expect(gaps.filter((gap) => !(gap <= GAP_S + GAP_TOLERANCE_S))).toEqual([]);
});

test.describe('on a server of the test’s own, in front of a stand-in voice endpoint', () => {
  let upstream: PcmVoiceEndpoint;
  let server: Listening;

  test.beforeAll(async () => {
    // An in-memory database is migrated at start: seconds on a quiet machine, far more on a busy one.
    test.setTimeout(SERVER_PATIENCE_MS);
    upstream = await startPcmVoiceEndpoint(SLOW_PCM);
    // The paid voice is bought only live (AGENTS_LIVE), and only for a bot whose voice is the endpoint
    // (the test bots' studio); with no provider the stand-in still answers.
    server = await startConfabServer({ live: true, botsDir: TEST_BOTS_DIR, speech: { url: upstream.baseUrl, voice: 'alloy' } });
  });

  test.afterAll(async () => {
    await server.close();
    await upstream.close();
  });

  test('(4) when the voice endpoint answers 500, the device voice speaks the same piece and the endpoint is asked once', async ({ page }) => {
    upstream.answerWith({ ...SLOW_PCM, status: 500 });
    const asked = upstream.replies.length;
    const harness = await openHarness(page, server.url, '?bot=studio');
    await harness.evaluate((h) => {
      h.converse('endpoint');
    });
    const first = await harness.evaluate((h, answer) => h.ask('Hello?', answer), ANSWER);
    await turnBack(harness);
    const second = await harness.evaluate((h) => h.ask('And now?', 'Still here, on this device.'));
    await turnBack(harness);

    const log = await harness.evaluate((h) => h.log());
    expect(failures(log)).toMatchObject([{ utteranceId: first, piece: 0, voice: 'endpoint' }]);
    expect(failures(log)[0]).toHaveProperty('reason', expect.stringMatching(/answered 502/));
    expect(speaks(log)).toEqual([`${first}:0:endpoint`, `${first}:1:endpoint`, `${first}:0:device`, `${first}:1:device`, `${second}:0:device`]);
    heardOnDevice(log, first, 0);
    expect(upstream.replies.slice(asked).map((reply) => reply.body.input)).toEqual(['Hello there.']);
  });

  test('(5) a reader interrupted mid-stream stops receiving bytes, and nothing more reaches the player', async ({ page }) => {
    upstream.answerWith(SLOW_PCM);
    const asked = upstream.replies.length;
    const harness = await openHarness(page, server.url, '?bot=studio');
    await harness.evaluate((h) => {
      h.converse('endpoint');
    });
    const id = await harness.evaluate((h) => h.ask('Hello?', 'Hello there.'));

    // The first frames are sounding.
    await expect.poll(() => harness.evaluate((h) => h.level()), { timeout: TURN_PATIENCE_MS }).toBeGreaterThan(0);
    await harness.evaluate((h) => {
      h.interrupt();
    });

    const replies = upstream.replies.slice(asked);
    expect(replies).toHaveLength(1);
    const [reply] = replies;
    expect(await reply?.closedEarly).toBe(true);
    expect(reply?.bytesSent()).toBeLessThan((reply?.totalBytes ?? 0) / 2);

    const log = await harness.evaluate((h) => h.log());
    const cut = log.findIndex((e) => e.kind === 'interrupted');
    const before = log.slice(0, cut);
    const afterCut = log.slice(cut);
    expect(opened(before)).toEqual([`${id}:0@24000`]);
    expect(before.filter((e) => e.kind === 'write').length).toBeGreaterThan(0);
    expect(before.some((e) => e.kind === 'started')).toBe(true);
    expect(afterCut.filter((e) => e.kind === 'write' || e.kind === 'open')).toEqual([]);
    expect(afterCut.map((e) => e.kind)).toContain('stop');
    expect(await harness.evaluate((h) => h.drained())).toBe(true);
    expect(await harness.evaluate((h) => h.turnIsBack())).toBe(true);
  });
});
