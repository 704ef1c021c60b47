/**
 * (10) Reduced motion: the orb is painted, and then still — the same picture frame after frame, even
 * while the answer sounds — and the states are announced in words. Without the preference the same
 * measurement sees it move, so the stillness is the preference's doing.
 */
import type { Page } from '@playwright/test';
import { ANSWER_PATIENCE_MS, PAGE_TEST_TIMEOUT_MS, expect, openVoice, orb, startListening, surface, test, turnBack } from './fixtures';

test.describe.configure({ timeout: PAGE_TEST_TIMEOUT_MS });

/** Animation frames between two looks at the orb: about half a second at 60 Hz. */
const FRAMES_APART = 30;

/** What the orb's canvas shows now, and whether anything is painted on it at all. */
function picture(page: Page): Promise<{ image: string; painted: boolean }> {
  return orb(page)
    .locator('canvas')
    .evaluate((canvas: HTMLCanvasElement) => {
      const blank = document.createElement('canvas');
      blank.width = canvas.width;
      blank.height = canvas.height;
      const image = canvas.toDataURL();
      return { image, painted: canvas.width > 0 && image !== blank.toDataURL() };
    });
}

/** Waits for `count` animation frames of the page to pass. */
async function framesPass(page: Page, count: number): Promise<void> {
  await page.evaluate(
    (frames) =>
      new Promise<void>((resolve) => {
        let seen = 0;
        const next = () => {
          seen += 1;
          if (seen >= frames) resolve();
          else requestAnimationFrame(next);
        };
        requestAnimationFrame(next);
      }),
    count,
  );
}

test('(10) with reduced motion paints the orb once and keeps it still while announcing each state', async ({ page, speech }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await openVoice(page);
  await expect(orb(page)).toHaveAttribute('data-motion', 'still');
  await startListening(page);
  await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });
  await expect(orb(page).getByRole('status')).toHaveText('Listening');

  await speech.final('Could you say something calm?');
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking', { timeout: ANSWER_PATIENCE_MS });
  await expect(orb(page).getByRole('status')).toHaveText('Speaking');
  await expect(surface(page)).toHaveAttribute('data-audible', 'true');
  const first = await picture(page);
  expect(first.painted).toBe(true);
  await framesPass(page, FRAMES_APART);
  // Sound is going out, and the picture has not moved with it.
  await expect(orb(page)).toHaveAttribute('data-state', 'speaking');
  expect((await picture(page)).image).toBe(first.image);

  await turnBack(page);
  await expect(orb(page).getByRole('status')).toHaveText('Listening');
  expect((await picture(page)).painted).toBe(true);
});

test('(10) without the preference the same measurement sees the orb move', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  await openVoice(page);
  await expect(orb(page)).toHaveAttribute('data-motion', 'moving');
  await startListening(page);
  await expect(orb(page)).toHaveAttribute('data-state', 'listening', { timeout: ANSWER_PATIENCE_MS });
  const first = await picture(page);
  await framesPass(page, FRAMES_APART);
  expect((await picture(page)).image).not.toBe(first.image);
});
