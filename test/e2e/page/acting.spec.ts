/**
 * (14) Bots that act, as a person meets it in the page: verbs called through the door, their
 * consequences said aloud, a spoken yes or no before anything destructive, a verb talked over, a
 * reminder coming due on the open page, and a reload mid-turn that does not repeat a write.
 *
 * (1), (2) and (4) talk to Sage on the shared server, whose stand-in (no provider bought)
 * recognises plain phrasings and calls the shipped apps' verbs through the same loop a model's
 * calls go through. (3) and (5) need a verb that takes its time: a server of their own with the
 * tests' `pantry` app (test/server/chat/actingDoor.ts) and a scripted model that calls it.
 */
import type { Page } from '@playwright/test';
import { pantry, seen } from '../../server/chat/actingDoor';
import { startUpstream } from '../../server/chat/localServers';
import type { Received, Reply, Upstream } from '../../server/chat/localServers';
import type { ConfabServer } from '../helpers/confabServer';
import type { FakeSpeech } from './fakeRecogniser';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, orb, said, startListening, stopSpeaking, test, turnBack } from './fixtures';
import { VIEWPORTS, expectNewestLinesSeen, expectOnScreen, settled } from './layout';
import { startOwnServer } from './ownServer';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

/** Says `text` once the page is listening, and waits until the bot has answered and the turn is back. */
async function say(page: Page, speech: FakeSpeech, text: string, answer: RegExp): Promise<void> {
  await speech.listening();
  await speech.final(text);
  await expect(said(page, 'user').last()).toHaveText(text);
  await expect(said(page, 'assistant').last()).toHaveText(answer, { timeout: ANSWER_PATIENCE_MS });
}

test('(14.1) adds two things to a list, says how many there are, and reads the list back', async ({ page, speech }) => {
  await openVoice(page);
  await startListening(page);
  await say(page, speech, 'Add milk and eggs to my shopping list.', /milk and eggs.*That's 2 things on your shopping list\./);
  // The consequence is heard, not only written: the answer is spoken before the turn comes back.
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking', { timeout: ANSWER_PATIENCE_MS });
  await turnBack(page);
  await say(page, speech, "What's on my shopping list?", /milk and eggs/);
  await turnBack(page);
});

const CLEAR = 'Clear your shopping list? Say yes or no.';

/** How many times `text` is on the page as a person sees it (rendered text, hidden parts left out). */
async function timesShown(page: Page, text: string): Promise<number> {
  return (await page.locator('body').innerText()).split(text).length - 1;
}

/**
 * Says `text` once the page is listening, and waits for the question it asks to wait on its card:
 * there, with its buttons, and nowhere else on the page (a sentence is in one place at a time) — the
 * same question asked and answered earlier stays in the transcript, as it was said then.
 */
async function sayAndBeAsked(page: Page, speech: FakeSpeech, text: string, question: string): Promise<void> {
  const before = await timesShown(page, question);
  await speech.listening();
  await speech.final(text);
  await expect(said(page, 'user').last()).toHaveText(text);
  await expect(page.getByTestId('confirm').locator('.question')).toHaveText(question, { timeout: ANSWER_PATIENCE_MS });
  // Counted once the page is still: the line the card takes the question from leaves the transcript
  // through its transition group, a frame after the card appears.
  await settled(page);
  expect(await timesShown(page, question), 'the question is shown once more, on its card only').toBe(before + 1);
}

for (const viewport of VIEWPORTS.filter((v) => v.name.startsWith('laptop') || v.name.startsWith('phone'))) {
  test.describe(viewport.name, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test('(14.2) asks before clearing a list, the question shown once: no leaves it, yes clears it once', async ({ page, speech }, testInfo) => {
      await openVoice(page);
      await startListening(page);
      await say(page, speech, 'Add rice and beans to my shopping list.', /2 things on your shopping list/);
      await turnBack(page);

      await sayAndBeAsked(page, speech, 'Clear my shopping list.', CLEAR);
      expect(await timesShown(page, CLEAR), 'the question is on the page exactly once while it waits').toBe(1);
      const yes = page.getByRole('button', { name: 'Yes, do it' });
      const no = page.getByRole('button', { name: 'No, leave it' });
      await expect(yes).toBeInViewport();
      await expect(no).toBeInViewport();
      // The question's card takes room from the transcript, which still shows the lines before it.
      await expectOnScreen(page, { 'Yes, do it': yes, 'No, leave it': no });
      await expectNewestLinesSeen(page);
      await page.screenshot({ path: testInfo.outputPath(`confirm-${String(viewport.width)}x${String(viewport.height)}.png`) });
      await speech.listening();
      await speech.final('No.');
      await expect(said(page, 'assistant').last()).toHaveText("Okay, I've left it as it was.", { timeout: ANSWER_PATIENCE_MS });
      await expect(yes).toBeHidden();
      // Answered, the card is gone and the transcript keeps the question where it was said.
      await expect(said(page, 'assistant').nth(-2)).toHaveText(CLEAR);
      expect(await timesShown(page, CLEAR)).toBe(1);
      await turnBack(page);
      await say(page, speech, "What's on my shopping list?", /rice and beans/);
      await turnBack(page);

      await sayAndBeAsked(page, speech, 'Clear my shopping list.', CLEAR);
      await speech.listening();
      await speech.final('Yes, go ahead.');
      await expect(said(page, 'assistant').last()).toHaveText(/^Done\. Your shopping list is empty now\.$/, { timeout: ANSWER_PATIENCE_MS });
      await turnBack(page);
      await say(page, speech, "What's on my shopping list?", /empty/);
      await turnBack(page);
    });
  });
}

test('(14.4) says a reminder on the open page when it comes due', async ({ page, speech }) => {
  await openVoice(page);
  await startListening(page);
  await stopSpeaking(page);
  await say(page, speech, 'Remind me in 5 seconds to take the tea out.', /take the tea out/);
  await expect(said(page, 'assistant').last()).toHaveText(/^Reminder: take the tea out\.?$/, { timeout: 20_000 });
});

/** The scripted model for (3) and (5): calls what `plan` says for a question, then answers in a sentence. */
function scripted(plan: (question: string) => { name: string; arguments: string } | undefined) {
  return async (reply: Reply, received: Received) => {
    const messages = received.body.messages as { role: string; content?: string }[];
    const last = messages.at(-1);
    const call = last?.role === 'user' ? plan(last.content ?? '') : undefined;
    if (call !== undefined) {
      reply.toolCalls([{ index: 0, id: `call_${String(received.path.length)}_${String(Date.now())}`, type: 'function', function: { name: call.name, arguments: call.arguments } }]);
      reply.finish('tool_calls');
    } else {
      for (const word of ['All ', 'right, ', 'done.']) reply.token(word);
      reply.finish();
    }
    reply.done();
    await Promise.resolve();
  };
}

test.describe('with a verb that takes its time', () => {
  let model: Upstream;
  let server: ConfabServer;

  test.beforeAll(async () => {
    model = await startUpstream(
      scripted((question) => {
        if (question.startsWith('Check the pantry')) return { name: 'pantry-slow', arguments: '{"ms":8000}' };
        if (question.startsWith('Add flour')) return { name: 'pantry-add', arguments: '{"item":"flour","waitMs":1500}' };
        if (question.startsWith('Add rice')) return { name: 'pantry-add', arguments: '{"item":"rice","waitMs":1500}' };
        return undefined;
      }),
    );
    server = await startOwnServer({ live: true, providers: [{ name: 'scripted', baseUrl: model.baseUrl, model: 'm', apiKey: 'test-key' }], extraApps: [pantry] });
  });

  test.afterAll(async () => {
    await server.close();
    await model.close();
  });

  const items = async () => {
    const { rows } = await server.db.asServer((tx) => tx.query<{ text: string }>("select text from notices where app = 'pantry' order by created_at"));
    return rows.map((r) => r.text);
  };

  test('(14.3) talking over a slow read cancels it; talking over a write lets it land once', async ({ page, speech }) => {
    await openVoice(page, 'pantry', server.url);
    await startListening(page);
    await stopSpeaking(page);

    const aborted = seen.slowAborted;
    const started = seen.slowStarted;
    await speech.listening();
    await speech.final('Check the pantry slowly.');
    await expect.poll(() => seen.slowStarted, { timeout: ANSWER_PATIENCE_MS }).toBe(started + 1);
    await speech.final('Never mind.');
    await expect.poll(() => seen.slowAborted, { timeout: 10_000 }).toBe(aborted + 1);
    await expect(said(page, 'assistant').last()).toHaveText('All right, done.', { timeout: ANSWER_PATIENCE_MS });
    await turnBack(page);

    const writes = seen.writesStarted;
    await speech.listening();
    await speech.final('Add flour to the pantry.');
    await expect.poll(() => seen.writesStarted, { timeout: ANSWER_PATIENCE_MS }).toBe(writes + 1);
    await speech.final('Stop.');
    await expect.poll(items, { timeout: 10_000 }).toEqual(['flour']);
    await turnBack(page);
    expect(seen.writesStarted).toBe(writes + 1);
    expect(await items()).toEqual(['flour']);
  });

  test('(14.5) a reload in the middle of a turn does not repeat its write', async ({ page, speech }) => {
    await openVoice(page, 'pantry', server.url);
    await startListening(page);
    await stopSpeaking(page);
    const writes = seen.writesStarted;
    const before = (await items()).filter((i) => i === 'rice').length;
    await speech.listening();
    const asked = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/v1/chat/completions'));
    await speech.final('Add rice to the pantry.');
    const request = await asked;
    // The turn's id, made when the person finished: what a retry of this turn sends again.
    const turn = request.headers()['x-confab-turn'];
    expect(turn).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await expect.poll(() => seen.writesStarted, { timeout: ANSWER_PATIENCE_MS }).toBe(writes + 1);
    await page.reload();
    await expect(page.getByTestId('mic')).toBeVisible({ timeout: 30_000 });
    await expect.poll(async () => (await items()).filter((i) => i === 'rice').length, { timeout: 10_000 }).toBe(before + 1);
    // The page came back and kept what was said; nothing sent the turn again.
    await page.waitForTimeout(2500);
    expect(seen.writesStarted).toBe(writes + 1);
    // The turn cut by the reload, sent again under its id (as a page resending it would): its write is not done again.
    const sent = request.headers();
    const retried = await page.request.post(request.url(), {
      headers: Object.fromEntries(['authorization', 'content-type', 'x-confab-conversation', 'x-confab-time-zone', 'x-confab-turn'].flatMap((name) => (sent[name] === undefined ? [] : [[name, sent[name]]]))),
      data: request.postData() ?? '',
    });
    expect(retried.status()).toBe(200);
    expect(await retried.text()).toContain('[DONE]');
    expect(seen.writesStarted).toBe(writes + 1);
    expect((await items()).filter((i) => i === 'rice').length).toBe(before + 1);
  });
});
