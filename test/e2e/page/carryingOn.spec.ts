/**
 * (23) What the person makes over the voice that is not their turn: the voice ducks at once, and
 * carries on. Chromium's fake capture plays a file that keeps quiet for a moment after the page
 * opens the microphone, then murmurs "mm-hmm" (a short hum, two syllables) and, seconds later,
 * knocks once (a burst of noise that dies away within a quarter of a second): the first a backchannel (its words,
 * from the fake recogniser, are "Mm-hmm."), the second a sound the voice activity model hears no
 * speech in, with no words at all.
 *
 * As in bargeIn.spec.ts, the moment is made certain by opening the microphone (and so starting the
 * file) only once a long answer is audible.
 */
import { PAGE_TEST_TIMEOUT_MS, expect, linesInDb, orb, said, surface, talkOverALongAnswer, test, threadsInDb, turnBack } from './fixtures';

test.use({ mic: 'murmurs' });
test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

declare global {
  interface Window {
    /** Every value the surface's `data-ducked` took, in order. */
    ducks: string[];
  }
}

test('(23) carries on past a murmured "mm-hmm" and past a knock on the table: ducked each time, nothing cut, one answer', async ({ page, speech }) => {
  await page.addInitScript(() => {
    window.ducks = [];
    new MutationObserver((records) => {
      for (const record of records) window.ducks.push((record.target as Element).getAttribute('data-ducked') ?? '');
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ducked'] });
  });
  await talkOverALongAnswer(page);
  // The murmur is heard over the voice: it ducks and the recogniser listens; "mm-hmm" is a backchannel.
  await speech.final('Mm-hmm.');
  // Then the knock: ducked again, no speech and no words, and the voice is back.
  await expect.poll(() => page.evaluate(() => window.ducks), { timeout: 20_000 }).toEqual(['true', 'false', 'true', 'false']);
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking');
  await expect(surface(page)).toHaveAttribute('data-audible', 'true');

  // The answer plays out and the turn comes back with nothing marked cut.
  await turnBack(page);
  await expect(said(page, 'assistant')).toHaveCount(2);
  await expect(page.getByTestId('transcript')).not.toContainText('Interrupted');
  await expect(said(page, 'user')).toHaveText(['Tell me a long story about the sea.']);

  const [thread] = await threadsInDb(page.request);
  await expect
    .poll(async () => (await linesInDb(page.request, thread?.id ?? '')).map((l) => `${l.who}${l.interrupted ? ' (interrupted)' : ''}`))
    .toEqual(['assistant', 'person', 'assistant']);
});
