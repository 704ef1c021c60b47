/**
 * axe-core on /voice/demo finds no serious or critical violation — as it opens (the listening
 * disclosure showing), in a conversation (transcript, live line, controls), with the drawer of
 * conversations and memories open, with the settings open, and typed to when there is no voice.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, said, startListening, stopSpeaking, test, turnBack } from './fixtures';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

/** The serious and critical violations on the page now, each as "rule: the elements it names". */
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

test('finds no serious or critical accessibility violation in any state of the page', async ({ page, speech }) => {
  await openVoice(page);
  await expect(page.getByTestId('disclosure')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);

  await stopSpeaking(page);
  await startListening(page);
  await speech.final('Is this page easy to use?');
  await expect(said(page, 'assistant').nth(1)).toContainText('I heard you say', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  await speech.interim('And with a');
  await expect(page.getByTestId('live-line')).toHaveText('And with a');
  expect(await seriousViolations(page)).toEqual([]);

  await page.getByTestId('open-drawer').click();
  await expect(page.getByTestId('threads')).toContainText('Is this page easy to use?');
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByTestId('show-memories').click();
  await expect(page.getByTestId('memories')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Close' }).click();

  await page.getByTestId('open-settings').click();
  await expect(page.getByTestId('settings')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('button', { name: 'Close settings' }).click();

  // Muted: the typing box and its hint.
  await page.getByTestId('mic').click();
  await expect(page.getByTestId('typing')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
});
