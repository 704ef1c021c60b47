/**
 * (9) Lines said while the server cannot be reached wait on this device (IndexedDB) and are sent
 * when it can be: the page says how many wait, and once the network is back they reach the server.
 */
import type { Page } from '@playwright/test';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, linesInDb, openVoice, orb, said, startListening, stopSpeaking, test, threadsInDb } from './fixtures';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const TYPED = 'I am writing this on a train with no signal.';

/** The lines waiting in the page's outbox, read from IndexedDB itself. */
function waitingInIndexedDb(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const open = indexedDB.open('confab');
        open.onerror = () => {
          reject(new Error(open.error?.message ?? 'IndexedDB would not open'));
        };
        open.onsuccess = () => {
          const all = open.result.transaction('outbox').objectStore('outbox').getAll();
          all.onsuccess = () => {
            const records = all.result as { kind: string; line?: { text: string } }[];
            resolve(records.flatMap((r) => (r.kind === 'line' && r.line !== undefined ? [r.line.text] : [])));
            open.result.close();
          };
        };
      }),
  );
}

test('(9) keeps lines typed offline on the device, says they wait, and sends them when the network is back', async ({ page, context }) => {
  await openVoice(page);
  await stopSpeaking(page);
  await startListening(page);
  await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });

  await context.setOffline(true);
  // Muting is one way to the typing box.
  await page.getByTestId('mic').click();
  await page.getByTestId('typing').fill(TYPED);
  await page.getByTestId('send').click();
  await expect(said(page, 'user')).toHaveText([TYPED]);
  // No answer can be had, and the page says so; the line (and the greeting before it) wait.
  await expect(page.getByTestId('problem')).toContainText('unreachable', { timeout: ANSWER_PATIENCE_MS });
  await expect(page.getByTestId('waiting-lines')).toHaveText('2 lines waiting to be saved');
  expect(await waitingInIndexedDb(page)).toEqual(["Hello, I'm Sage. What's on your mind?", TYPED]);

  await context.setOffline(false);
  await expect(page.getByTestId('waiting-lines')).toHaveText('', { timeout: ANSWER_PATIENCE_MS });
  expect(await waitingInIndexedDb(page)).toEqual([]);
  const [thread] = await threadsInDb(page.request);
  expect(thread?.title).toBe(TYPED);
  expect((await linesInDb(page.request, thread?.id ?? '')).map((l) => l.text)).toEqual(["Hello, I'm Sage. What's on your mind?", TYPED]);
});
