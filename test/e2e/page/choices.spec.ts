/**
 * (42) Choices to tap, as a person meets them: Sage's stand-in asks "Which list?" of something put
 * on a list it was not told, as an answer ending in a `- ` list, and the page shows the words and
 * buttons under them — never the list's marks. A press is the person's next words (the offer's),
 * answered; the spent set stays, faded, the one taken marked, after a reload too. Two tabs pressing
 * at once: one gets through, the other is told it is gone. Saying "the second one" is the same press.
 */
import type { Page } from '@playwright/test';
import { FakeSpeech } from './fakeRecogniser';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, said, startListening, stopSpeaking, test, threadsInDb, turnBack } from './fixtures';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const ASK = 'Add milk to my list.';

/** The choices under the newest answer, and one of them by its words (a taken one's name also says it was chosen). */
const choices = (page: Page) => page.getByTestId('choices').last();
const choice = (page: Page, words: string) => choices(page).getByRole('button', { name: words });

/** Records, in the page, whether its transcript has ever shown a `- ` item, from now on. */
async function watchListMarks(page: Page): Promise<void> {
  await page.getByTestId('transcript').evaluate((log) => {
    const w = window as unknown as { listMarksShown: boolean };
    w.listMarksShown = false;
    new MutationObserver(() => {
      if (/(?:^|\n)\s*- /u.test([...log.querySelectorAll('.bubble')].map((bubble) => bubble.textContent).join('\n'))) w.listMarksShown = true;
    }).observe(log, { subtree: true, childList: true, characterData: true });
  });
}

const listMarksShown = (page: Page) => page.evaluate(() => (window as unknown as { listMarksShown: boolean }).listMarksShown);

/** Asks for something that fits a choice, and waits for the buttons under the answer. */
async function offered(page: Page, speech: FakeSpeech): Promise<void> {
  await speech.listening();
  await watchListMarks(page);
  await speech.final(ASK);
  await expect(choices(page)).toHaveAttribute('data-open', 'true', { timeout: ANSWER_PATIENCE_MS });
  await expect(page.getByRole('group', { name: 'Which list?' })).toBeVisible();
  await expect(said(page, 'assistant').last()).toHaveText('Which list?');
  // The list's marks are never shown, not even while the answer streams: its words, then buttons.
  expect(await listMarksShown(page)).toBe(false);
  await expect(choices(page).getByRole('button')).toHaveText(['Shopping', 'To-do']);
}

/** The server's lines of the person's one conversation, with the choices each offered and the one taken. */
async function keptLines(page: Page): Promise<{ who: string; text: string; choices: { items: string[] } | null; taken: number | null }[]> {
  const [thread] = await threadsInDb(page.request);
  const response = await page.request.get(`/api/threads/${thread?.id ?? ''}/lines`);
  return ((await response.json()) as { lines: { who: string; text: string; choices: { items: string[] } | null; taken: number | null }[] }).lines;
}

test('(42.1) offers a choice as buttons, sends the one pressed as the person’s words, and keeps the spent set, after a reload too', async ({ page, speech }) => {
  await openVoice(page);
  await startListening(page);
  await stopSpeaking(page);
  await offered(page, speech);

  await choice(page, 'Shopping').click();
  await expect(said(page, 'user').last()).toHaveText('Shopping');
  await expect(said(page, 'assistant').last()).toHaveText(/milk.*shopping list/, { timeout: ANSWER_PATIENCE_MS });
  await expect(choices(page)).toHaveAttribute('data-open', 'false');
  await expect(choice(page, 'Shopping')).toHaveAttribute('data-taken', 'true');
  await expect(choice(page, 'Shopping')).toBeDisabled();

  await expect.poll(async () => (await keptLines(page)).slice(-4).map((l) => [l.who, l.text, l.choices?.items ?? null, l.taken])).toEqual([
    ['person', ASK, null, null],
    ['assistant', 'Which list?', ['Shopping', 'To-do'], 0],
    ['person', 'Shopping', null, null],
    ['assistant', expect.stringMatching(/milk.*shopping list/) as unknown as string, null, null],
  ]);

  await page.reload();
  await expect(page.getByTestId('mic')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('thread').filter({ hasText: ASK }).click();
  await expect(choices(page)).toHaveAttribute('data-open', 'false');
  await expect(choice(page, 'Shopping')).toHaveAttribute('data-taken', 'true');
  await expect(choice(page, 'To-do')).toHaveAttribute('data-taken', 'false');
});

test('(42.2) two tabs pressing at once: one gets through, the other is told the choice has gone', async ({ page, speech, context }) => {
  await openVoice(page);
  await startListening(page);
  await stopSpeaking(page);
  const other = await context.newPage();
  const errors: string[] = [];
  other.on('pageerror', (error) => errors.push(error.message));
  await FakeSpeech.install(other, { refused: false });
  await openVoice(other);
  await expect(other.getByTestId('active-elsewhere')).toContainText('Listening in another tab');

  await offered(page, speech);
  // The other tab shows the same choices, through presence.
  await expect(choices(other)).toHaveAttribute('data-open', 'true', { timeout: ANSWER_PATIENCE_MS });

  // Both pressed before either is answered: the other tab's press reaches the server second.
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await other.route('**/api/choices', async (route) => {
    await held;
    await route.continue();
  });
  await choice(other, 'To-do').click();
  await choice(page, 'Shopping').click();
  await expect(said(page, 'user').last()).toHaveText('Shopping');
  release();
  await expect(other.getByTestId('choice-problem')).toHaveText('That choice has gone: another of your pages took one first.');
  await expect(page.getByTestId('choice-problem')).toHaveCount(0);

  // One press was answered: one pick in the conversation, on the server and on both pages.
  await expect.poll(async () => (await keptLines(page)).at(-1)?.text ?? '', { timeout: ANSWER_PATIENCE_MS }).toMatch(/milk/);
  const picks = (await keptLines(page)).filter((l) => l.who === 'person').map((l) => l.text);
  expect(picks).toEqual([ASK, 'Shopping']);
  for (const where of [page, other]) {
    await expect(choice(where, 'Shopping')).toHaveAttribute('data-taken', 'true');
    await expect(choices(where)).toHaveAttribute('data-open', 'false');
  }
  expect(errors).toEqual([]);
});

test('(42.3) saying "the second one" is the same press', async ({ page, speech }) => {
  await openVoice(page);
  await startListening(page);
  await offered(page, speech);
  await turnBack(page);

  await speech.listening();
  await speech.final('the second one');
  await expect(said(page, 'user').last()).toHaveText('To-do');
  await expect(said(page, 'assistant').last()).toHaveText(/milk.*to-do list/, { timeout: ANSWER_PATIENCE_MS });
  await expect(choice(page, 'To-do')).toHaveAttribute('data-taken', 'true');
  await expect.poll(async () => (await keptLines(page)).find((l) => l.choices !== null)?.taken).toBe(1);
});
