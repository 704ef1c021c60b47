/**
 * (1) One spoken turn at /voice/demo, end to end: the words show on the live line as they are said,
 * the answer is heard (the player's first sample sounded: the machine is speaking, the orb says so,
 * and the player reports audio going out), the pair drops into the transcript, and both lines are
 * in the database.
 */
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, linesInDb, openVoice, orb, said, startListening, surface, test, threadsInDb, turnBack } from './fixtures';
import { VIEWPORTS, expectApart, expectNewestLinesSeen, expectOnScreen } from './layout';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const QUESTION = 'What is the weather like on Mars today?';

for (const viewport of VIEWPORTS) {
  test.describe(viewport.name, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test('(1) shows the words as they are said, speaks the answer, writes the pair down and keeps both lines', async ({ page, speech }) => {
      await openVoice(page);
      await startListening(page);
      // The greeting is shown and spoken first; the page listens once it has been heard.
      await expect(said(page, 'assistant').first()).toHaveText(/Hello, I'm Sage/);
      await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });
      await speech.listening();

      await speech.interim('What is the weather');
      await expect(page.getByTestId('live-line')).toHaveText('What is the weather');
      await expect(orb(page)).toHaveAttribute('data-state', 'hearing');
      // Seen, not only there: the orb, the words being said and the transcript, none under another.
      await expectOnScreen(page, { 'the orb': orb(page), 'the live line': page.getByTestId('live-line'), 'the microphone button': page.getByTestId('mic') });
      await expectApart({ 'the orb': orb(page), 'the live line': page.getByTestId('live-line'), 'the transcript': page.getByTestId('transcript'), 'the microphone button': page.getByTestId('mic') });
      await expectNewestLinesSeen(page);
      // Words still being said are not in the transcript.
      await expect(said(page, 'user')).toHaveCount(0);

      await speech.final(QUESTION);
      // The answer reached the audio graph and is sounding: the player reported its first sample.
      await expect(orb(page)).toHaveAttribute('data-state', 'speaking', { timeout: ANSWER_PATIENCE_MS });
      await expect(orb(page).getByRole('status')).toHaveText('Speaking');
      await expect(surface(page)).toHaveAttribute('data-audible', 'true');
      // While it is audible the recogniser is stopped (half-duplex).
      expect(await speech.running()).toBe(false);
      await expect(said(page, 'user')).toHaveText([QUESTION]);
      await expect(said(page, 'assistant').nth(1)).toContainText(`I heard you say: "${QUESTION}"`, { timeout: ANSWER_PATIENCE_MS });
      // A sentence is never in two places at once: the live line has gone dark.
      await expect(page.getByTestId('live-line')).toHaveText('');
      await expectOnScreen(page, { 'the orb': orb(page), 'the microphone button': page.getByTestId('mic') });
      await expectNewestLinesSeen(page);

      await turnBack(page);
      await speech.listening();
      await expect(said(page, 'assistant')).toHaveCount(2);
      const answer = (await said(page, 'assistant').nth(1).textContent())?.trim() ?? '';
      expect(answer).toMatch(/Once a provider is configured and AGENTS_LIVE is set to 1, a real model will answer instead\.$/);

      await expect.poll(async () => (await threadsInDb(page.request)).map((t) => t.title)).toEqual([QUESTION]);
      const thread = (await threadsInDb(page.request))[0]?.id ?? '';
      await expect.poll(() => linesInDb(page.request, thread)).toEqual([
        { who: 'assistant', text: "Hello, I'm Sage. What's on your mind?", interrupted: false },
        { who: 'person', text: QUESTION, interrupted: false },
        { who: 'assistant', text: answer, interrupted: false },
      ]);
    });
  });
}
