/**
 * A bot that wakes you, through the page: Sage's file says it may give a good-morning look at the
 * day on weekdays at eight (`hears:`). A bare cookie is not asked; a person who keeps Confab on their
 * devices is asked once on the page, allows it, and finds it in the settings to stop.
 */
import { expect, openVoice, test } from './fixtures';
import { keepOnDevices } from './keepOnDevices';

test('asks a person once, on the page, whether Sage may speak first; allowed, it is stopped in the settings', async ({ page }) => {
  await openVoice(page);
  await expect(page.getByTestId('wakes')).toBeHidden();
  await keepOnDevices(page);
  await page.reload();
  const offer = page.getByTestId('wakes');
  await expect(offer).toContainText('Sage can speak first every weekday at 8 am — allow?');
  await offer.getByTestId('wake-allow').click();
  await expect(offer).toBeHidden();

  await page.reload();
  await expect(page.getByTestId('mic')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('wakes')).toBeHidden();
  await page.getByTestId('open-settings').click();
  const listed = page.getByTestId('settings').getByTestId('wakes');
  await expect(listed).toContainText('Sage speaks first every weekday at 8 am.');
  await listed.getByTestId('wake-stop').click();
  await expect(listed.getByTestId('wake-allow')).toBeVisible();
});
