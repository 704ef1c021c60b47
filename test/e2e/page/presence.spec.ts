/**
 * (13) One active page across a person's tabs and devices. Two pages of one browser context are two tabs
 * (they share the Web Lock and the BroadcastChannel); a second context with the same person's
 * cookie is another device (only the server connects them). Exactly one page listens and speaks;
 * the others show the conversation live and offer "Use this one"; typing or holding to talk there
 * makes it the active page; closing the active page lets another become active on a gesture; a page that
 * was offline is owed exactly what it missed; a reminder is said once, by the active page.
 */
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { FakeSpeech } from './fakeRecogniser';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, orb, said, startListening, stopSpeaking, surface, test, turnBack } from './fixtures';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

/** A page of the test's own beside the fixture's: the fake recogniser, and no error thrown in it. */
interface Other {
  page: Page;
  speech: FakeSpeech;
  errors: string[];
}

async function another(context: BrowserContext): Promise<Other> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, speech: await FakeSpeech.install(page, { refused: false }), errors };
}

/** The same person on another device: a browser context of its own with their cookie. */
async function anotherDevice(browser: Browser, from: BrowserContext, baseURL: string | undefined): Promise<{ context: BrowserContext } & Other> {
  const context = await browser.newContext(baseURL === undefined ? {} : { baseURL });
  await context.addCookies(await from.cookies());
  return { context, ...(await another(context)) };
}

/** Records, in the page, whether its player has ever sounded (the surface's `data-audible`). */
async function watchAudible(page: Page): Promise<void> {
  await page.evaluate(() => {
    const surfaceElement = document.querySelector('[data-audible]');
    const w = window as unknown as { everAudible: boolean };
    w.everAudible = surfaceElement?.getAttribute('data-audible') === 'true';
    if (surfaceElement === null) return;
    new MutationObserver(() => {
      if (surfaceElement.getAttribute('data-audible') === 'true') w.everAudible = true;
    }).observe(surfaceElement, { attributes: true, attributeFilter: ['data-audible'] });
  });
}

const everAudible = (page: Page) => page.evaluate(() => (window as unknown as { everAudible: boolean }).everAudible);
const elsewhere = (page: Page) => page.getByTestId('active-elsewhere');
const transcript = async (page: Page) => page.getByTestId('transcript').locator('li .bubble').allTextContents();

test('(13.1) two tabs: only one listens and speaks, the other shows it live; typing in the other makes it the active page and the first goes quiet', async ({ page, speech, context }) => {
  await openVoice(page);
  await startListening(page);
  await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });
  await expect(elsewhere(page)).toHaveCount(0);

  const second = await another(context);
  await openVoice(second.page);
  await expect(elsewhere(second.page)).toContainText('Listening in another tab');
  await expect(elsewhere(second.page)).toHaveAttribute('data-at', 'tab');
  await watchAudible(second.page);

  await speech.listening();
  await speech.final('Tell me about the northern lights please.');
  // Shown in the other tab as it is said there, and the answer as it is spoken.
  await expect(said(second.page, 'user').last()).toHaveText('Tell me about the northern lights please.');
  await expect(surface(page)).toHaveAttribute('data-audible', 'true', { timeout: ANSWER_PATIENCE_MS });
  await expect(said(second.page, 'assistant').last()).toContainText("I'm a stand-in", { timeout: ANSWER_PATIENCE_MS });
  expect(await second.speech.started()).toBe(0);
  expect(await everAudible(second.page)).toBe(false);

  // Typing in the passive tab makes it the active page at once: the first tab stops listening and speaking.
  await second.page.getByTestId('typing').fill('Over here now.');
  await second.page.getByTestId('send').click();
  await expect(elsewhere(page)).toContainText('Listening in another tab');
  await expect(surface(page)).toHaveAttribute('data-audible', 'false');
  await expect.poll(() => speech.running()).toBe(false);
  await expect(elsewhere(second.page)).toHaveCount(0);
  // The answer the first tab was saying is kept as interrupted, and the conversation goes on.
  await expect(second.page.getByTestId('transcript').locator('li[data-role="assistant"]').last()).toContainText('I heard you say: "Over here now."', { timeout: ANSWER_PATIENCE_MS });
  await expect(said(page, 'user').last()).toHaveText('Over here now.');
  const cut = page.getByTestId('transcript').locator('li[data-role="assistant"]').filter({ hasText: 'Interrupted' });
  await expect(cut).toHaveCount(1);
  await expect(cut.locator('.bubble')).toHaveText(/^I'm a stand-in/);
  await expect(second.page.getByTestId('transcript').locator('li[data-role="assistant"]').filter({ hasText: 'Interrupted' }).locator('.bubble')).toHaveText(/^I'm a stand-in/);
  await turnBack(second.page);
  expect(second.errors).toEqual([]);
});

test('(13.2) two devices: a line said on one appears on the other live, and typing on the other makes it the active page', async ({ page, speech, context, browser, baseURL }) => {
  await openVoice(page);
  await stopSpeaking(page);
  await startListening(page);
  await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });
  const phone = await anotherDevice(browser, context, baseURL);
  try {
    await openVoice(phone.page);
    await expect(elsewhere(phone.page)).toContainText('Listening on another device');
    await expect(elsewhere(phone.page)).toHaveAttribute('data-at', 'device');

    const line = 'What is the capital of Portugal?';
    await speech.listening();
    await page.evaluate((text) => {
      window.fakeSpeech.final(text);
    }, line);
    // Shown on the other device live, without a reload; how soon is `npm run bench -- presence`'s
    // fan-out figure (a time bound here would fail on a busy machine, not on a slow fan-out).
    await expect(said(phone.page, 'user').last()).toHaveText(line);
    await turnBack(page);

    await phone.page.getByTestId('typing').fill('From my phone.');
    await phone.page.getByTestId('send').click();
    await expect(elsewhere(page)).toContainText('Listening on another device');
    await expect.poll(() => speech.running()).toBe(false);
    await expect(said(phone.page, 'assistant').last()).toContainText('I heard you say: "From my phone."', { timeout: ANSWER_PATIENCE_MS });
    await expect(said(page, 'assistant').last()).toContainText('I heard you say: "From my phone."', { timeout: ANSWER_PATIENCE_MS });
    expect(phone.errors).toEqual([]);
  } finally {
    await phone.context.close();
  }
});

test('(13.3) closing the active page lets the other become active on the first gesture there', async ({ page, context }) => {
  await openVoice(page);
  await startListening(page);
  const second = await another(context);
  await openVoice(second.page);
  await expect(elsewhere(second.page)).toContainText('Listening in another tab');

  await page.close();
  await expect(elsewhere(second.page)).toContainText('Not listening anywhere');
  expect(await second.speech.started()).toBe(0);
  // The first gesture there takes it: it listens.
  await orb(second.page).click();
  await expect(elsewhere(second.page)).toHaveCount(0);
  await second.speech.listening();
  await second.speech.final('Are you there?');
  await expect(said(second.page, 'assistant').last()).toContainText('I heard you say: "Are you there?"', { timeout: ANSWER_PATIENCE_MS });
  expect(second.errors).toEqual([]);
});

test('(13.4) holding to talk on the passive page makes it the active one', async ({ page, speech, context }) => {
  await openVoice(page);
  await startListening(page);
  await page.getByTestId('open-settings').click();
  await page.getByTestId('push-to-talk-mode').check();
  await page.getByRole('button', { name: 'Close settings' }).click();
  // The second tab opens once the setting is kept, so it reads it.
  await expect(page.getByTestId('mic')).toHaveAccessibleName('Hold to talk');
  const second = await another(context);
  await openVoice(second.page);
  await expect(elsewhere(second.page)).toContainText('Listening in another tab');

  const mic = second.page.getByTestId('mic');
  await mic.hover();
  await second.page.mouse.down();
  await expect(elsewhere(page)).toContainText('Listening in another tab');
  await expect(mic).toHaveAccessibleName('Listening — let go to send');
  await second.speech.final('Held on the second tab.');
  await second.page.mouse.up();
  await expect(said(second.page, 'assistant').last()).toContainText('I heard you say: "Held on the second tab."', { timeout: ANSWER_PATIENCE_MS });
  expect(await speech.running()).toBe(false);
  expect(second.errors).toEqual([]);
});

test('(13.5) a device offline for 30 s misses nothing and shows nothing twice when it is back', async ({ page, context, browser, baseURL }) => {
  await openVoice(page);
  await stopSpeaking(page);
  await startListening(page);
  await page.getByTestId('mic').click();
  const phone = await anotherDevice(browser, context, baseURL);
  try {
    await openVoice(phone.page);
    await expect(elsewhere(phone.page)).toContainText('Listening on another device');
    const type = async (text: string) => {
      await page.getByTestId('typing').fill(text);
      await page.getByTestId('send').click();
      await expect(said(page, 'assistant').last()).toContainText(`I heard you say: "${text}"`, { timeout: ANSWER_PATIENCE_MS });
    };
    await type('Before the tunnel.');
    await expect(said(phone.page, 'assistant').last()).toContainText('I heard you say: "Before the tunnel."');

    await phone.context.setOffline(true);
    const offlineAtMs = Date.now();
    await type('In the tunnel, one.');
    await type('In the tunnel, two.');
    // Offline for 30 s, as a train in a tunnel is: the scenario's own length, not a wait for the page.
    await phone.page.waitForTimeout(Math.max(0, 30_000 - (Date.now() - offlineAtMs)));
    await expect(said(phone.page, 'user')).toHaveText(['Before the tunnel.']);
    await phone.context.setOffline(false);

    await expect(said(phone.page, 'user')).toHaveText(['Before the tunnel.', 'In the tunnel, one.', 'In the tunnel, two.'], { timeout: ANSWER_PATIENCE_MS });
    await expect(said(phone.page, 'assistant').last()).toContainText('I heard you say: "In the tunnel, two."');
    expect(await transcript(phone.page)).toEqual(await transcript(page));
    expect(phone.errors).toEqual([]);
  } finally {
    await phone.context.close();
  }
});

test('(13.6) a reminder due while two pages are open is said once, by the active page', async ({ page, speech, context }) => {
  await openVoice(page);
  await startListening(page);
  const second = await another(context);
  await openVoice(second.page);
  await expect(elsewhere(second.page)).toContainText('Listening in another tab');
  // Audio could play there too: a gesture that does not make it the active page.
  await second.page.getByTestId('toggle-transcript').click();
  await second.page.getByTestId('toggle-transcript').click();
  await watchAudible(second.page);

  // When the active page begins to sound, and when the reminder is written there: it is said
  // after the answer has played out, so a sound that begins once it is written is the reminder's.
  await page.evaluate(() => {
    const w = window as unknown as { soundedAtMs: number[]; reminderAtMs: number | null };
    w.soundedAtMs = [];
    w.reminderAtMs = null;
    const surfaceElement = document.querySelector('[data-audible]');
    if (surfaceElement === null) return;
    new MutationObserver(() => {
      if (surfaceElement.getAttribute('data-audible') === 'true') w.soundedAtMs.push(performance.now());
    }).observe(surfaceElement, { attributes: true, attributeFilter: ['data-audible'] });
    new MutationObserver(() => {
      if (w.reminderAtMs === null && document.querySelector('[data-testid="transcript"]')?.textContent.includes('Reminder: stretch') === true) w.reminderAtMs = performance.now();
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  await speech.listening();
  await speech.final('Remind me in 5 seconds to stretch.');
  await expect(said(page, 'assistant').last()).toContainText('stretch', { timeout: ANSWER_PATIENCE_MS });
  await expect(said(page, 'assistant').last()).toHaveText(/^Reminder: stretch\.?$/, { timeout: ANSWER_PATIENCE_MS });
  await expect
    .poll(() => page.evaluate(() => {
      const w = window as unknown as { soundedAtMs: number[]; reminderAtMs: number | null };
      return w.reminderAtMs !== null && w.soundedAtMs.some((atMs) => atMs >= (w.reminderAtMs ?? Infinity));
    }), { timeout: ANSWER_PATIENCE_MS })
    .toBe(true);
  await expect(said(second.page, 'assistant').last()).toHaveText(/^Reminder: stretch\.?$/, { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  const reminders = (texts: string[]) => texts.filter((t) => /^Reminder: stretch/.test(t)).length;
  expect(reminders(await said(page, 'assistant').allTextContents())).toBe(1);
  expect(reminders(await said(second.page, 'assistant').allTextContents())).toBe(1);
  expect(await everAudible(second.page)).toBe(false);
  expect(second.errors).toEqual([]);
});
