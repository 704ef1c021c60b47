/**
 * (4) A browser with no recogniser (Firefox): the page is typed to from the start, and what is typed
 * goes exactly where speech goes — answered aloud, written down, kept.
 */
import { PAGE_TEST_TIMEOUT_MS, expect, linesInDb, openVoice, orb, said, test, threadsInDb } from './fixtures';
import { VIEWPORTS, expectApart, expectNewestLinesSeen, expectOnScreen } from './layout';
import { typeAndHear } from './typed';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });
test.use({ recogniser: false });

for (const viewport of VIEWPORTS) {
  test.describe(viewport.name, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test('(4) offers typing from the start and answers what is typed aloud, keeping both lines', async ({ page }) => {
      await openVoice(page);
      // Nothing can listen, so nothing asks to: no disclosure, and the button says why.
      await expect(page.getByTestId('disclosure')).toHaveCount(0);
      await expect(page.getByTestId('mic')).toHaveAccessibleName('This browser cannot listen; type instead');
      await expect(page.getByTestId('typing')).toHaveAttribute('placeholder', 'This browser cannot listen; type here');

      await typeAndHear(page, 'Is anybody there?', 1);
      await expect(said(page, 'user')).toHaveText(['Is anybody there?']);
      // Seen: the typing box and its button, the transcript's newest lines beside them, nothing under the box.
      await expectOnScreen(page, { 'the typing box': page.getByTestId('typing'), 'Send': page.getByTestId('send'), 'the microphone button': page.getByTestId('mic'), 'the orb': orb(page) });
      await expectApart({ 'the typing box': page.getByTestId('typing'), 'the transcript': page.getByTestId('transcript'), 'the orb': orb(page) });
      await expectNewestLinesSeen(page);

      const [thread] = await threadsInDb(page.request);
      expect(thread?.title).toBe('Is anybody there?');
      await expect.poll(async () => (await linesInDb(page.request, thread?.id ?? '')).map((l) => l.who)).toEqual(['assistant', 'person', 'assistant']);
    });
  });
}
