/**
 * (23) "Give me a second" as a whole turn is not answered: the bot says nothing, the live line says
 * it is waiting (on screen, in one place), nothing is written down; what the person says next is
 * the turn, and that is answered.
 */
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, linesInDb, openVoice, said, startListening, stopSpeaking, test, threadsInDb, turnBack } from './fixtures';
import { expectOnScreen } from './layout';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const WAITING = 'Take your time. I’m listening.';

test('(23) waits, saying nothing, when asked to, and answers what comes next', async ({ page, speech }) => {
  await openVoice(page);
  await stopSpeaking(page);
  await startListening(page);
  await expect(said(page, 'assistant')).toHaveCount(1);

  await speech.final('Give me a second.');
  await expect(page.getByTestId('live-line')).toHaveText(WAITING);
  await expectOnScreen(page, { 'the live line': page.getByTestId('live-line') });
  await expect(page.getByText(WAITING)).toHaveCount(1);
  // Nothing was asked, so nothing is answered or written down.
  await expect(said(page, 'user')).toHaveCount(0);
  await expect(said(page, 'assistant')).toHaveCount(1);

  await speech.interim('What time');
  await expect(page.getByTestId('live-line')).toHaveText('What time');
  await speech.final('What time is it in Lisbon?');
  await expect(said(page, 'assistant').last()).toContainText('I heard you say: "What time is it in Lisbon?"', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  await expect(said(page, 'user')).toHaveText(['What time is it in Lisbon?']);
  await expect(page.getByTestId('live-line')).toHaveText('');

  const [thread] = await threadsInDb(page.request);
  const lines = await linesInDb(page.request, thread?.id ?? '');
  expect(lines.filter((line) => line.who === 'person').map((line) => line.text)).toEqual(['What time is it in Lisbon?']);
});
