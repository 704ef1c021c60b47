/**
 * (3) Push to talk: with hearing set to push to talk in the cog, the page listens only while the microphone
 * button is held — with the mouse, or with Space on the focused button — and what is said while it
 * is held is answered; between presses nothing is heard.
 */
import type { Page } from '@playwright/test';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, orb, said, startListening, test, turnBack } from './fixtures';
import type { FakeSpeech } from './fakeRecogniser';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

/** Nothing is listening, and the button says it waits to be held. */
async function notListening(page: Page, speech: FakeSpeech): Promise<void> {
  await expect.poll(() => speech.running()).toBe(false);
  await expect(page.getByTestId('mic')).toHaveAttribute('aria-pressed', 'false');
  await expect(page.getByTestId('mic')).toHaveAccessibleName('Hold to talk');
}

test('(3) listens only while the button is held, by mouse or by Space, and answers what was said meanwhile', async ({ page, speech }) => {
  await openVoice(page);
  await startListening(page);
  await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });

  await page.getByTestId('open-settings').click();
  await page.getByTestId('push-to-talk-mode').check();
  await page.getByRole('button', { name: 'Close settings' }).click();
  await notListening(page, speech);
  const sessionsBefore = await speech.started();

  // Held with the mouse: it listens, and a sentence said while held is the question.
  const mic = page.getByTestId('mic');
  await mic.hover();
  await page.mouse.down();
  await expect(mic).toHaveAccessibleName('Listening — let go to send');
  await speech.interim('Tell me');
  await expect(page.getByTestId('live-line')).toHaveText('Tell me');
  await speech.final('Tell me about the tides please.');
  await page.mouse.up();
  await expect(said(page, 'user')).toHaveText(['Tell me about the tides please.'], { timeout: ANSWER_PATIENCE_MS });
  await expect(said(page, 'assistant').nth(1)).toContainText('I heard you say: "Tell me about the tides please."', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);

  // Between presses nothing is heard: no session runs, and none was started since the release.
  await notListening(page, speech);
  expect(await speech.started()).toBe(sessionsBefore + 1);

  // Held with Space on the focused button.
  await mic.focus();
  await page.keyboard.down('Space');
  await expect(mic).toHaveAttribute('aria-pressed', 'true');
  await speech.final('And what about the moon?');
  await page.keyboard.up('Space');
  await expect(said(page, 'user')).toHaveText(['Tell me about the tides please.', 'And what about the moon?'], { timeout: ANSWER_PATIENCE_MS });
  await expect(said(page, 'assistant').nth(2)).toContainText('I heard you say: "And what about the moon?"', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  await notListening(page, speech);
  expect(await speech.started()).toBe(sessionsBefore + 2);
});
