/**
 * axe-core on /voice/demo finds no serious or critical violation — as it opens (the listening
 * disclosure showing), in a conversation (transcript, live line, controls), with the drawer of
 * conversations and memories open, with the settings open, and typed to when there is no voice;
 * with motion and with reduced motion.
 *
 * axe judges the page once it is still (a colour caught mid-fade is no colour anybody reads by),
 * and the page keeps its colours passing at every moment in between: nothing that moves on it
 * fades or changes a colour text is read in — it slides, or darkens a backdrop — which the test
 * checks of every transition and animation that ran.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, said, startListening, stopSpeaking, test, turnBack } from './fixtures';
import { settled } from './layout';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

/** The serious and critical violations on the page once it is still, each as "rule: the elements it names". */
async function seriousViolations(page: Page): Promise<string[]> {
  await settled(page);
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** One property a transition or animation moved, and on what. */
interface Motion {
  property: string;
  on: string;
}

/**
 * Records every property any transition or animation on the page moves, from before the page
 * loads: a plain string, so nothing of the test's build reaches the page.
 */
const RECORD_MOTION = `(() => {
  const motions = [];
  window.pageMotions = motions;
  const on = (target) => target instanceof Element ? target.tagName.toLowerCase() + [...target.classList].map((c) => '.' + c).join('') : String(target);
  document.addEventListener('transitionstart', (event) => motions.push({ property: event.propertyName, on: on(event.target) }), true);
  document.addEventListener('animationstart', (event) => {
    const animation = event.target.getAnimations().find((a) => a.animationName === event.animationName);
    const keyframes = animation?.effect?.getKeyframes() ?? [];
    for (const property of new Set(keyframes.flatMap((frame) => Object.keys(frame)))) {
      if (!['offset', 'computedOffset', 'easing', 'composite'].includes(property)) motions.push({ property, on: on(event.target) });
    }
  }, true);
})();`;

/** What may move without changing a colour text is read in: where it is, and the backgrounds behind it. */
const COLOUR_SAFE = new Set(['transform', 'translate', 'scale', 'background-color', 'background', 'border-color', 'box-shadow']);

for (const motion of ['no-preference', 'reduce'] as const) {
  test.describe(`with ${motion === 'reduce' ? 'reduced motion' : 'motion'}`, () => {
    test.use({ reducedMotion: motion });

    test('finds no serious or critical accessibility violation in any state of the page, and nothing fades the words on it', async ({ page, speech }) => {
      await page.addInitScript(RECORD_MOTION);
      await openVoice(page);
      await expect(page.getByTestId('disclosure')).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);

      await stopSpeaking(page);
      await startListening(page);
      await speech.final('Is this page easy to use?');
      await expect(said(page, 'assistant').nth(1)).toContainText('I heard you say', { timeout: ANSWER_PATIENCE_MS });
      await turnBack(page);
      await speech.interim('And with a');
      await expect(page.getByTestId('live-line')).toHaveText('And with a');
      expect(await seriousViolations(page)).toEqual([]);

      await page.getByTestId('open-drawer').click();
      await expect(page.getByTestId('threads')).toContainText('Is this page easy to use?');
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByTestId('show-memories').click();
      await expect(page.getByTestId('memories')).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Close' }).click();

      await page.getByTestId('open-settings').click();
      await expect(page.getByTestId('settings')).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Close settings' }).click();

      // Muted: the typing box and its hint.
      await page.getByTestId('mic').click();
      await expect(page.getByTestId('typing')).toBeVisible();
      expect(await seriousViolations(page)).toEqual([]);

      const moved = await page.evaluate(() => (window as unknown as { pageMotions: Motion[] }).pageMotions);
      expect(moved.filter((m) => !COLOUR_SAFE.has(m.property))).toEqual([]);
      if (motion === 'no-preference') expect(moved.map((m) => m.property)).toContain('transform');
      else expect(moved).toEqual([]);
    });
  });
}
