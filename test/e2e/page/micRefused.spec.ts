/**
 * (5) A microphone the browser refuses (and with it, as in Chromium, the recogniser): the page says
 * so once — not again at each tap or question — stands, and is typed to; pressing the microphone
 * button asks again.
 */
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, said, startListening, test } from './fixtures';
import { typeAndHear } from './typed';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });
test.use({ mic: 'refused' });

test('(5) says once that the microphone was refused, and the page stands and is typed to', async ({ page, speech }) => {
  await openVoice(page);
  await startListening(page);
  const refusal = page.getByText('The microphone was not allowed');
  await expect(refusal).toHaveCount(1, { timeout: ANSWER_PATIENCE_MS });
  await expect(page.getByTestId('problem')).toContainText('so this conversation is typed');
  await expect(page.getByTestId('mic')).toHaveAccessibleName('The microphone was refused; type, or press to try it again');
  await expect(page.getByTestId('typing')).toHaveAttribute('placeholder', 'The microphone was refused; type here');

  await typeAndHear(page, 'Can you hear me typing?', 1);
  await typeAndHear(page, 'Then I will keep typing.', 2);
  await expect(said(page, 'user')).toHaveText(['Can you hear me typing?', 'Then I will keep typing.']);
  // The refusal was said once and not again with each question.
  await expect(refusal).toHaveCount(0);
  await expect(page.getByTestId('page-problem')).toHaveCount(0);
  // Nor asked again: the refused recogniser was tried once, not restarted turn after turn.
  expect(await speech.started()).toBe(1);

  // Pressing the button is asking again, and the answer is said again — once.
  await page.getByTestId('mic').click();
  await expect(refusal).toHaveCount(1);
  await expect.poll(() => speech.started()).toBe(2);
  await expect(page.getByTestId('typing')).toBeVisible();
});
