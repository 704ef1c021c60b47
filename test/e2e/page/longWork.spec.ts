/**
 * (25) Work that outlives a turn, through the page, with the stand-in (no key): "go through my
 * shopping list and remind me about each thing in one minute" is taken on and the turn ends; the
 * server's worker carries it out a step at a time; the active page says how it is going between
 * turns — never over the person while they talk — and what it came to, once; a passive tab of the
 * same person says nothing.
 */
import type { Page } from '@playwright/test';
import { FakeSpeech } from './fakeRecogniser';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, said, startListening, stopSpeaking, test, turnBack } from './fixtures';
import { keepOnDevices } from './keepOnDevices';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const PROGRESS = /^I'm still on it: \d+ steps? done so far\.$/;
const FINISHED = /milk.*remind you.*milk.*eggs/i;

const assistantLines = (page: Page) => said(page, 'assistant').allTextContents();

test('(25) takes the work on, says its progress between turns and its ending once on the active page; the passive tab stays silent', async ({ page, speech, context }) => {
  await openVoice(page);
  // Work that outlives a turn is for people, not bare cookies (Sage's `work:` is the default).
  await keepOnDevices(page);
  await startListening(page);
  await stopSpeaking(page);
  for (const [line, answer] of [
    ['Add milk to my shopping list.', /milk/],
    ['Add eggs to my shopping list.', /eggs/],
  ] as const) {
    await speech.listening();
    await speech.final(line);
    await expect(said(page, 'assistant').last()).toHaveText(answer, { timeout: ANSWER_PATIENCE_MS });
    await turnBack(page);
  }

  const passive = await context.newPage();
  const passiveSpeech = await FakeSpeech.install(passive, { refused: false });
  await openVoice(passive);
  await expect(passive.getByTestId('active-elsewhere')).toBeVisible();

  await speech.listening();
  await speech.final('Go through my shopping list and remind me about each thing in one minute.');
  await expect(said(page, 'assistant').last()).toHaveText("I'm on it — I'll tell you when it's done.", { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  // Between turns, how it is going.
  await expect(said(page, 'assistant').last()).toHaveText(PROGRESS, { timeout: ANSWER_PATIENCE_MS });
  // The person starts talking and goes on while it finishes: nothing of the run is said over them.
  await speech.listening();
  await speech.interim('hmm let me see what else');
  const before = (await assistantLines(page)).length;
  await page.waitForTimeout(4_000);
  expect((await assistantLines(page)).length, 'nothing is said while the person talks').toBe(before);
  await speech.final('Hmm, let me see what else.');
  await turnBack(page);

  // Between turns: its latest progress, then what it came to — each once.
  await expect.poll(async () => (await assistantLines(page)).some((text) => FINISHED.test(text)), { timeout: ANSWER_PATIENCE_MS }).toBe(true);
  const lines = await assistantLines(page);
  expect(lines.filter((text) => PROGRESS.test(text)).length).toBeGreaterThanOrEqual(1);
  expect(lines.filter((text) => FINISHED.test(text))).toHaveLength(1);

  // The passive tab shows the conversation but never listened or spoke.
  expect(await passiveSpeech.started()).toBe(0);
  await expect(passive.getByTestId('active-elsewhere')).toBeVisible();

  // Reloaded, the page does not say it again: its notice was said once, whichever page opens next.
  await page.reload();
  await expect(said(page, 'assistant').first()).toBeVisible({ timeout: ANSWER_PATIENCE_MS });
  await page.waitForTimeout(2_000);
  expect((await assistantLines(page)).filter((text) => FINISHED.test(text)).length).toBeLessThanOrEqual(1);
});

test('(25) stops at the confirmation gate: asks between turns on the active page, and goes on with the yes', async ({ page, speech }) => {
  await openVoice(page);
  await keepOnDevices(page);
  await startListening(page);
  await stopSpeaking(page);
  await speech.listening();
  await speech.final('Add milk to my shopping list.');
  await expect(said(page, 'assistant').last()).toHaveText(/milk/, { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);

  await speech.listening();
  await speech.final('In the background, clear my shopping list.');
  await expect(said(page, 'assistant').last()).toHaveText("I'm on it — I'll tell you when it's done.", { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  // Asked between turns, with the card's Yes and No as for a question in a turn.
  await expect(page.getByTestId('confirm').locator('.question')).toHaveText('Clear your shopping list? Say yes or no.', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  await speech.listening();
  await speech.final('Yes.');
  await expect.poll(async () => (await assistantLines(page)).some((text) => /cleared your shopping list/.test(text)), { timeout: ANSWER_PATIENCE_MS }).toBe(true);
  await speech.listening();
  await speech.final("What's on my shopping list?");
  await expect(said(page, 'assistant').last()).toHaveText(/empty/, { timeout: ANSWER_PATIENCE_MS });
});
