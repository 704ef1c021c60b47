/** Typing to the page, as a person with no voice in does. */
import type { Page } from '@playwright/test';
import { ANSWER_PATIENCE_MS, expect, orb, said, turnBack } from './fixtures';

/** Types `text`, and waits until it has been answered aloud and written down. */
export async function typeAndHear(page: Page, text: string, answerIndex: number): Promise<void> {
  await page.getByTestId('typing').fill(text);
  await page.getByTestId('send').click();
  await expect(page.getByTestId('typing')).toHaveValue('');
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking', { timeout: ANSWER_PATIENCE_MS });
  await expect(said(page, 'assistant').nth(answerIndex)).toContainText(`I heard you say: "${text}"`);
  await turnBack(page);
}
