/**
 * (8) A reload in the middle of an answer loses nothing that was said: afterwards the conversation,
 * reopened from the drawer, has the question and the answer — marked interrupted, since the reload
 * cut it — in the transcript and on the server.
 */
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, linesInDb, openVoice, orb, said, startListening, surface, test, threadsInDb } from './fixtures';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const QUESTION = 'Please tell me everything about the northern lights.';

test('(8) keeps every line said when the page is reloaded mid-answer, the cut answer marked interrupted', async ({ page, speech }) => {
  await openVoice(page);
  await startListening(page);
  await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });
  await speech.final(QUESTION);
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking', { timeout: ANSWER_PATIENCE_MS });
  await expect(surface(page)).toHaveAttribute('data-audible', 'true');
  await expect(said(page, 'assistant').nth(1)).toContainText("I'm a stand-in");

  await page.reload();
  await expect(page.getByTestId('mic')).toBeVisible({ timeout: 30_000 });
  // Listening was agreed to on this device: it is not asked again.
  await expect(page.getByTestId('disclosure')).toHaveCount(0);

  await page.getByTestId('open-drawer').click();
  await page.getByTestId('thread').filter({ hasText: QUESTION }).click();
  await expect(said(page, 'user')).toHaveText([QUESTION]);
  await expect(said(page, 'assistant')).toHaveCount(2);
  const cut = page.getByTestId('transcript').locator('li[data-role="assistant"]').nth(1);
  await expect(cut).toContainText('Interrupted');

  const [thread] = await threadsInDb(page.request);
  const lines = await linesInDb(page.request, thread?.id ?? '');
  expect(lines.map((l) => `${l.who}${l.interrupted ? ' (interrupted)' : ''}`)).toEqual(['assistant', 'person', 'assistant (interrupted)']);
  expect(lines[1]?.text).toBe(QUESTION);
  // What had been written of the answer when the page went: its opening, at least.
  expect(lines[2]?.text).toMatch(/^I'm a stand-in/);
  await expect(cut.locator('.bubble')).toHaveText(lines[2]?.text ?? '');
});
