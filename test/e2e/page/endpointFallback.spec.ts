/**
 * (11) A bot whose site voice speaks (test/e2e/bots/studio.md), on a server whose voice endpoint
 * cannot be reached: the answer is still heard, in this device's own voice, and the page says the
 * site's voice failed. The endpoint is not asked again.
 *
 * The shared server must keep naming no endpoint (test/e2e/speakers.spec.ts relies on it), so this
 * spec starts a server of its own with the test bots and an endpoint on a port nobody listens on.
 */
import { unreachableUrl } from '../../server/chat/localServers';
import type { Listening } from '../../server/chat/localServers';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, linesInDb, openVoice, orb, said, startListening, surface, test, threadsInDb, turnBack } from './fixtures';
import { startOwnServer } from './ownServer';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

let server: Listening;

test.beforeAll(async () => {
  // The paid voice is bought only live (AGENTS_LIVE); the stand-in still answers, with no provider.
  server = await startOwnServer({ live: true, speech: { url: `${await unreachableUrl()}/v1/audio/speech` } });
});

test.afterAll(async () => {
  await server.close();
});

test('(11) speaks the answer on this device when the site voice fails, and says so', async ({ page, speech }) => {
  const speakAnswers: number[] = [];
  const modelFiles: string[] = [];
  page.on('response', (response) => {
    const path = new URL(response.url()).pathname;
    if (path === '/api/speak') speakAnswers.push(response.status());
    if (path.startsWith('/models/')) modelFiles.push(path);
  });

  await openVoice(page, 'studio', server.url);
  await expect(page.getByTestId('bot-name')).toHaveText('Studio');
  await expect(page.getByText('Studio’s voice is machine-generated.')).toBeVisible();
  await startListening(page);
  // A site voice costs the page no model download while it works.
  expect(modelFiles).toEqual([]);

  await speech.final('Can you hear me in the studio?');
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking', { timeout: ANSWER_PATIENCE_MS });
  await expect(surface(page)).toHaveAttribute('data-audible', 'true');
  await expect(page.getByTestId('problem')).toHaveText(/^The voice service answered 502, so this device’s own voice speaks instead for the rest of this visit\.$/);
  // The site voice was asked once and failed; the device's voice model was fetched to speak instead.
  expect(speakAnswers).toEqual([502]);
  expect(modelFiles.some((path) => path.endsWith('/onnx/vocoder.onnx'))).toBe(true);
  await expect(said(page, 'assistant')).toContainText(['I heard you say: "Can you hear me in the studio?"']);
  await turnBack(page);

  // The next answer goes straight to the device's voice.
  await speech.final('And now?');
  await expect(said(page, 'assistant').nth(1)).toContainText('I heard you say: "And now?"', { timeout: ANSWER_PATIENCE_MS });
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  expect(speakAnswers).toEqual([502]);

  const [thread] = await threadsInDb(page.request, 'studio', server.url);
  await expect.poll(async () => (await linesInDb(page.request, thread?.id ?? '', server.url)).map((l) => `${l.who}:${String(l.interrupted)}`)).toEqual([
    'person:false',
    'assistant:false',
    'person:false',
    'assistant:false',
  ]);
});
