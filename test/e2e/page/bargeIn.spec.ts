/**
 * (2) Barge-in while the assistant speaks, heard the way a person is heard: from the level of the
 * page's own microphone, through the echo gate, which ducks the voice; the recogniser's words then
 * say the turn is theirs. Chromium's fake capture plays a file that keeps
 * quiet for a moment after the page opens the microphone, then talks for two seconds.
 *
 * The moment is made certain rather than timed: the question is typed before the person has let
 * the page listen (the microphone is not open yet), and only once the answer is audible does the
 * person press "Start listening" — which opens the microphone, and so starts the file, in the
 * middle of an answer that lasts many seconds more.
 */
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, TALKS_FOR_MS, expect, linesInDb, orb, said, surface, talkOverALongAnswer, test, threadsInDb, turnBack } from './fixtures';

test.use({ mic: 'talks' });
test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

test('(2) stops the answer when the person talks over it, keeps it as interrupted, and answers the next question', async ({ page, speech }) => {
  await talkOverALongAnswer(page);
  // The person talks over it: the voice ducks and the recogniser listens (the fake starts only
  // then), and their words are more than a backchannel, so the turn is theirs, the audio has
  // stopped, and what was said of the answer is marked cut (an answer that simply ended would not be).
  await speech.interim('Wait, hold on, I have a question');
  await expect(orb(page)).toHaveAttribute('data-state', /^(listening|hearing)$/, { timeout: ANSWER_PATIENCE_MS });
  await expect(surface(page)).toHaveAttribute('data-audible', 'false');
  const cut = page.getByTestId('transcript').locator('li[data-role="assistant"]').nth(1);
  await expect(cut).toContainText('Interrupted');

  // A recogniser's final comes once the person has stopped talking. They began before the answer
  // was cut, so by `TALKS_FOR_MS` after the cut was seen the file is silent; said earlier, the next
  // answer would start while they still talk, and rightly be talked over (it was, once in three runs).
  await page.waitForTimeout(TALKS_FOR_MS);
  await speech.final('What happened next?');
  await expect(said(page, 'assistant').nth(2)).toContainText('I heard you say: "What happened next?"', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);

  const [thread] = await threadsInDb(page.request);
  await expect
    .poll(async () => (await linesInDb(page.request, thread?.id ?? '')).map((l) => `${l.who}${l.interrupted ? ' (interrupted)' : ''}`))
    .toEqual(['assistant', 'person', 'assistant (interrupted)', 'person', 'assistant']);
});
