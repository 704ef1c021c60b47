/**
 * (13) When the voice cannot start (the model files cannot be had, as when the model hub is
 * unreachable), the page says so once — one line, however many answers are only written because of
 * it — offers "Try again", and trying again really loads the voice: the next answer is heard. Beside
 * the disclosure, that warning, the typing box and a long conversation, the transcript keeps room
 * for its newest two lines and scrolls, at each of the four sizes the page is judged at. A warning
 * put away stays away when the same fault comes again.
 */
import type { Page } from '@playwright/test';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, orb, said, test, turnBack } from './fixtures';
import { VIEWPORTS, expectApart, expectNewestLinesSeen, expectOnScreen, expectTranscriptScrolls } from './layout';
import { typeAndHear } from './typed';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

/** Makes the model files unreachable until the returned function is called. */
async function modelHubAway(page: Page): Promise<() => void> {
  let away = true;
  await page.route('**/models/**', (route) => (away ? route.abort('internetdisconnected') : route.fallback()));
  return () => {
    away = false;
  };
}

/** Types `text` and waits until its answer is written (not heard: the voice is away) and the turn is back. */
async function typeAndRead(page: Page, text: string, answerIndex: number): Promise<void> {
  await page.getByTestId('typing').fill(text);
  await page.getByTestId('send').click();
  await expect(said(page, 'assistant').nth(answerIndex)).toContainText(`I heard you say: "${text}"`, { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
}

const QUESTIONS = ['What is on the list today?', 'Anything about the garden?', 'And the weekend, what then?', 'Remind me of the first thing again.'];

for (const viewport of VIEWPORTS) {
  test.describe(viewport.name, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test('(13) says once that the voice could not start, keeps the transcript in view beside it, and Try again loads the voice', async ({ page }) => {
      const hubBack = await modelHubAway(page);
      await openVoice(page);
      await expect(page.getByTestId('voice-problem')).toHaveAccessibleName(/^The voice could not be started: /, { timeout: ANSWER_PATIENCE_MS });
      // What shows is the gist, in one line; the whole sentence is its name, and shows when tapped.
      await expect(page.getByTestId('voice-problem').locator('[aria-hidden="true"]')).toHaveText('The voice could not start.');
      await expect(page.getByTestId('retry-voice')).toHaveText('Try again');

      // Every answer is only written now; that is the same fault, and it stays one line.
      for (const [i, question] of QUESTIONS.entries()) await typeAndRead(page, question, i + 1);
      await expect(page.getByTestId('warning')).toHaveCount(1);

      const disclosure = page.getByTestId('disclosure');
      const warning = page.getByTestId('warning');
      const typing = page.getByTestId('typing');
      await expectOnScreen(page, {
        'the disclosure': disclosure,
        'its Start listening button': page.getByTestId('start-listening'),
        'the warning': warning,
        'Try again': page.getByTestId('retry-voice'),
        'the typing box': typing,
        'Send': page.getByTestId('send'),
        'the microphone button': page.getByTestId('mic'),
      });
      await expectApart({ 'the disclosure': disclosure, 'the warning': warning, 'the transcript': page.getByTestId('transcript'), 'the typing box': typing });
      await expectNewestLinesSeen(page);
      await expectTranscriptScrolls(page);
      await expectNewestLinesSeen(page);

      // The hub is back: Try again loads the voice, the warning goes, and the next answer is heard.
      hubBack();
      await page.getByTestId('retry-voice').click();
      await expect(page.getByTestId('warning')).toHaveCount(0, { timeout: ANSWER_PATIENCE_MS });
      await typeAndHear(page, 'Can you hear me now?', QUESTIONS.length + 1);
      await expect(page.getByTestId('warning')).toHaveCount(0);
      await expectNewestLinesSeen(page);
    });
  });
}

test('(13) a warning put away stays away when the same fault comes again', async ({ page }) => {
  await modelHubAway(page);
  await openVoice(page);
  await expect(page.getByTestId('voice-problem')).toBeVisible({ timeout: ANSWER_PATIENCE_MS });
  // The line shows the gist; tapped, the whole sentence.
  await page.getByTestId('voice-problem').click();
  await expect(page.getByTestId('voice-problem')).toHaveText(/^The voice could not be started: .*Check the connection\./);
  await expect(page.getByTestId('voice-problem')).toHaveAttribute('aria-expanded', 'true');
  await page.getByRole('button', { name: 'Dismiss this warning' }).click();
  await expect(page.getByTestId('warning')).toHaveCount(0);
  await typeAndRead(page, QUESTIONS[0] ?? '', 1);
  await expect(orb(page)).toHaveAttribute('data-state', 'muted');
  await expect(page.getByTestId('warning')).toHaveCount(0);
});
