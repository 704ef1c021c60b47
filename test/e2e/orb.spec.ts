import { expect, test } from '@playwright/test';
import type { Page } from '@playwright/test';
import type { OrbHarness } from './harness/orb';
import { ORB_SHAPES } from '../../common/orb/orbShapes';
import { englishSay } from '../helpers/pageWords';

/** A shape drawn on a 240 px canvas lights many thousands of pixels; a blank one, none. */
const DRAWN = 2000;

type HarnessCall = 'framesRead' | 'litPixels' | 'picture';

function read<K extends HarnessCall>(page: Page, call: K): Promise<ReturnType<OrbHarness[K]>> {
  return page.evaluate((name) => (window as unknown as { harness: OrbHarness }).harness[name]() as ReturnType<OrbHarness[K]>, call);
}

async function openOrb(page: Page, query: string): Promise<void> {
  await page.goto(`/test/e2e/harness/orb.html?${query}`);
  await page.waitForFunction(() => 'harness' in window);
}

test.describe('the moving orb', () => {
  for (const shape of ORB_SHAPES) {
    test(`draws the ${shape.id} and keeps it moving with a voice`, async ({ page }) => {
      await openOrb(page, `shape=${shape.id}&state=speaking&level=0.6`);
      await page.waitForFunction((least) => (window as unknown as { harness: OrbHarness }).harness.litPixels() > least, DRAWN);
      await expect(page.locator('.orb')).toHaveAttribute('data-motion', 'moving');
      const before = await read(page, 'picture');
      const framesBefore = await read(page, 'framesRead');
      await page.waitForFunction((seen) => (window as unknown as { harness: OrbHarness }).harness.framesRead() >= seen + 3, framesBefore);
      expect(await read(page, 'picture')).not.toBe(before);
    });
  }
});

test.describe('under reduced motion', () => {
  test.beforeEach(async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
  });

  for (const shape of ORB_SHAPES) {
    test(`paints the ${shape.id} once and leaves it still, running no frames`, async ({ page }) => {
      await openOrb(page, `shape=${shape.id}&state=speaking&level=0.6`);
      await expect(page.locator('.orb')).toHaveAttribute('data-motion', 'still');
      expect(await read(page, 'litPixels')).toBeGreaterThan(DRAWN);
      const first = await read(page, 'picture');
      // Long enough for a moving orb to have drawn a dozen frames.
      await page.waitForTimeout(400);
      expect(await read(page, 'picture')).toBe(first);
      expect(await read(page, 'framesRead')).toBe(0);
      await expect(page.getByRole('status')).toHaveText('Speaking');
    });
  }

  test('shows a new state by repainting once, distinct to the eye, and announces it', async ({ page }) => {
    await openOrb(page, 'shape=halo&state=connecting&level=0');
    await expect(page.getByRole('status')).toHaveText('Getting ready');
    const connecting = await read(page, 'picture');
    await page.evaluate(() => {
      (window as unknown as { harness: OrbHarness }).harness.setState('thinking');
    });
    await expect(page.getByRole('status')).toHaveText('Thinking');
    const thinking = await read(page, 'picture');
    expect(thinking).not.toBe(connecting);
    expect(await read(page, 'litPixels')).toBeGreaterThan(DRAWN);
    await page.waitForTimeout(300);
    expect(await read(page, 'picture')).toBe(thinking);
    expect(await read(page, 'framesRead')).toBe(0);
  });
});

test('offers the five shapes as five named little drawings', async ({ page }) => {
  await openOrb(page, 'shape=halo&state=listening&level=0');
  for (const shape of ORB_SHAPES) {
    const drawing = page.getByRole('img', { name: englishSay(shape.name), exact: true });
    await expect(drawing).toBeVisible();
    expect(await drawing.locator('path').count()).toBeGreaterThan(0);
  }
  await expect(page.locator('canvas')).toHaveAttribute('aria-hidden', 'true');
});
