/**
 * (7) A memory forgotten in "What I remember" is never recalled again.
 *
 * The stand-in model does not show what it was given, so this spec starts a server of its own with
 * AGENTS_LIVE on and one provider: a local OpenAI-shaped model that answers with exactly what the
 * server recalled for it (the system note "Things this person told you before…"), or says it
 * recalled nothing. Recall is then visible in the page's own transcript, and the requests the model
 * received are the evidence of what was — and was not — given to it.
 *
 * Sage (test/e2e/bots/demo.md, as bots/demo.md) is `person+recall`: what the person says, twelve
 * characters or more, is kept by the server after the answer.
 */
import type { Page } from '@playwright/test';
import type { Listening, Received, Upstream } from '../../server/chat/localServers';
import { startUpstream } from '../../server/chat/localServers';
import type { FakeSpeech } from './fakeRecogniser';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, said, startListening, stopSpeaking, test, turnBack } from './fixtures';
import { startOwnServer } from './ownServer';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

const RECALL_HEADING = 'Things this person told you before that may matter now:';
const TOLD = 'My sister Rosalind lives in Lisbon.';
const ASKED = 'Where does my sister Rosalind live?';

/** What the server recalled for one request: the recall note's items, or none. */
function recalledIn(received: Received): string[] {
  const messages = (received.body.messages ?? []) as { role: string; content: string }[];
  const note = messages.find((m) => m.role === 'system' && m.content.startsWith(RECALL_HEADING));
  return note === undefined ? [] : note.content.split('\n').slice(1).map((item) => item.replace(/^- /, ''));
}

let model: Upstream;
let server: Listening;

test.beforeAll(async () => {
  model = await startUpstream(async (reply, received) => {
    const recalled = recalledIn(received);
    const answer = recalled.length === 0 ? 'I recall nothing about that.' : `I recall that you told me: ${recalled.join(' ')}`;
    for (const word of answer.match(/\S+\s*/g) ?? []) reply.token(word);
    reply.finish();
    reply.usage(200, 20);
    reply.done();
    await Promise.resolve();
  });
  server = await startOwnServer({ live: true, providers: [{ name: 'recall-echo', baseUrl: model.baseUrl, model: 'gpt-4o-mini', apiKey: 'test-key' }] });
});

test.afterAll(async () => {
  await server.close();
  await model.close();
});

/** Says `question`; resolves with what the model was asked for it, once the answer is written. */
async function ask(page: Page, speech: FakeSpeech, question: string): Promise<Received> {
  const asked = model.next();
  await speech.final(question);
  await expect(said(page, 'user').last()).toHaveText(question);
  await expect(said(page, 'assistant').last()).toHaveText(/^I recall/, { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  return asked;
}

/** What the server keeps for this person and Sage, newest first. */
async function memoriesInDb(page: Page): Promise<string[]> {
  const response = await page.request.get(`${server.url}/api/memories?bot=demo`);
  expect(response.status()).toBe(200);
  return ((await response.json()) as { memories: { text: string }[] }).memories.map((m) => m.text);
}

test('(7) forgets a memory from "What I remember", after which it is never recalled', async ({ page, speech }) => {
  await openVoice(page, 'demo', server.url);
  await stopSpeaking(page);
  await startListening(page);

  const first = await ask(page, speech, TOLD);
  expect(recalledIn(first)).toEqual([]);
  await expect.poll(() => memoriesInDb(page)).toEqual([TOLD]);

  // In a new conversation, a question near it in meaning recalls it.
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('new-conversation').click();
  const before = await ask(page, speech, ASKED);
  expect(recalledIn(before)).toEqual([TOLD]);
  await expect(said(page, 'assistant').last()).toHaveText(`I recall that you told me: ${TOLD}`);
  await expect.poll(() => memoriesInDb(page)).toEqual([ASKED, TOLD]);

  // "What I remember" lists both, newest first; Forget takes one away, there and on the server.
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('show-memories').click();
  const memories = page.getByTestId('memories').locator('.memory');
  await expect(memories).toHaveText([ASKED, TOLD]);
  await page.getByRole('button', { name: `Forget “${TOLD}”` }).click();
  await expect(memories).toHaveText([ASKED]);
  expect(await memoriesInDb(page)).toEqual([ASKED]);
  await page.getByRole('button', { name: 'Close' }).click();

  // The same question again: nothing of the forgotten memory is given to the model any more.
  const after = await ask(page, speech, ASKED);
  expect(recalledIn(after)).toEqual([]);
  await expect(said(page, 'assistant').last()).toHaveText('I recall nothing about that.');
});
