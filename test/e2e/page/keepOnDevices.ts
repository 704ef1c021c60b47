/**
 * A person who keeps Confab on their devices, as the page makes one: Chromium's virtual
 * authenticator (CDP `WebAuthn`) on the page's context, and the drawer's "Keep this on your devices".
 * For the tests of what only people may have (long work, schedules: a bot's `work:`), not bare cookies.
 */
import type { Page } from '@playwright/test';
import { expect } from './fixtures';

export async function keepOnDevices(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  await page.getByTestId('open-drawer').click();
  await page.getByTestId('show-you').click();
  await page.getByTestId('keep-passkey').click();
  await expect(page.getByTestId('kept')).toBeVisible();
  await page.getByTestId('drawer').getByRole('button', { name: 'Close', exact: true }).click();
  await expect(page.getByTestId('drawer')).toBeHidden();
}
