/**
 * (6) The drawer of conversations: each is listed under the first thing said in it, newest first;
 * choosing one opens it (its lines in the transcript, the drawer shut) and the next question
 * continues it (the same thread on the server); forgetting one takes a second, confirming press,
 * and then it is gone from the list and from the server.
 *
 * The answers are not spoken here (the cog's "Speak the answers" is off): this is about what is kept.
 */
import type { Page } from '@playwright/test';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, linesInDb, openVoice, said, startListening, stopSpeaking, test, threadsInDb, turnBack } from './fixtures';
import type { FakeSpeech } from './fakeRecogniser';
import { VIEWPORTS, expectNewestLinesSeen, expectOnScreen } from './layout';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const GREETING = "Hello, I'm Sage. What's on your mind?";

/** Says `question` and waits for its answer to be written and the turn to come back. */
async function ask(page: Page, speech: FakeSpeech, question: string): Promise<void> {
  await speech.final(question);
  await expect(said(page, 'assistant').last()).toContainText(`I heard you say: "${question}"`, { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
}

const titles = (page: Page) => page.getByTestId('threads').locator('.title');

for (const viewport of VIEWPORTS) {
  test.describe(viewport.name, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test('(6) lists conversations by their first words, opens and continues one, and forgets it after a confirmation', async ({ page, speech }) => {
      await openVoice(page);
      await stopSpeaking(page);
      await startListening(page);
      await ask(page, speech, 'Where should I go hiking?');
      await ask(page, speech, 'Somewhere near the coast.');

      await page.getByTestId('open-drawer').click();
      await expect(page.getByTestId('drawer')).toBeVisible();
      await page.getByTestId('new-conversation').click();
      await expect(page.getByTestId('drawer')).toBeHidden();
      await expect(said(page, 'assistant')).toHaveText([GREETING]);
      await expect(said(page, 'user')).toHaveCount(0);
      await ask(page, speech, 'How do I bake bread?');

      await expect.poll(async () => (await threadsInDb(page.request)).map((t) => t.title)).toEqual(['How do I bake bread?', 'Where should I go hiking?']);
      const threads = await threadsInDb(page.request);
      const hiking = threads.find((t) => t.title === 'Where should I go hiking?')?.id ?? '';
      const bread = threads.find((t) => t.title === 'How do I bake bread?')?.id ?? '';

      // Listed under their first words, newest first.
      await page.getByTestId('open-drawer').click();
      await expect(titles(page)).toHaveText(['How do I bake bread?', 'Where should I go hiking?']);
      await expect(page.getByTestId('thread').filter({ hasText: 'How do I bake bread?' })).toHaveAttribute('aria-current', 'true');
      // Seen: the drawer and everything in it, on screen once it has slid in, nothing over any of it.
      await expectOnScreen(page, {
        'the drawer': page.getByTestId('drawer'),
        'New conversation': page.getByTestId('new-conversation'),
        'the newest conversation': page.getByTestId('thread').nth(0),
        'the older conversation': page.getByTestId('thread').nth(1),
        'Close': page.getByRole('button', { name: 'Close' }),
      });

      // Opening one shows its lines and shuts the drawer.
      await page.getByTestId('thread').filter({ hasText: 'Where should I go hiking?' }).click();
      await expect(page.getByTestId('drawer')).toBeHidden();
      await expect(said(page, 'user')).toHaveText(['Where should I go hiking?', 'Somewhere near the coast.']);
      await expect(said(page, 'assistant')).toHaveCount(3);
      await expect(said(page, 'assistant').first()).toHaveText(GREETING);
      await expectNewestLinesSeen(page);

      // The next question continues it: same thread on the server, and no new one.
      await ask(page, speech, 'What should I pack?');
      await expect(said(page, 'user')).toHaveText(['Where should I go hiking?', 'Somewhere near the coast.', 'What should I pack?']);
      await expect
        .poll(async () => (await linesInDb(page.request, hiking)).map((l) => (l.who === 'person' ? l.text : 'answer')))
        .toEqual(['answer', 'Where should I go hiking?', 'answer', 'Somewhere near the coast.', 'answer', 'What should I pack?', 'answer']);
      expect((await threadsInDb(page.request)).map((t) => t.id).sort()).toEqual([hiking, bread].sort());

      // Forgetting takes a confirmation: the first press only asks.
      await page.getByTestId('open-drawer').click();
      await expect(titles(page)).toHaveText(['Where should I go hiking?', 'How do I bake bread?']);
      const forget = page.getByRole('button', { name: 'Forget “Where should I go hiking?”' });
      await forget.click();
      const forGood = page.getByRole('button', { name: 'Forget “Where should I go hiking?” for good' });
      await expect(forGood).toHaveText('Forget for good');
      await expect(titles(page)).toHaveCount(2);
      expect(await threadsInDb(page.request)).toHaveLength(2);
      await forGood.click();
      await expect(titles(page)).toHaveText(['How do I bake bread?']);
      expect((await threadsInDb(page.request)).map((t) => t.id)).toEqual([bread]);
      expect(await linesInDb(page.request, hiking)).toEqual([]);
      // It was the conversation on screen: a new one takes its place.
      await page.getByRole('button', { name: 'Close' }).click();
      await expect(said(page, 'assistant')).toHaveText([GREETING]);
      await expect(said(page, 'user')).toHaveCount(0);
    });
  });
}
