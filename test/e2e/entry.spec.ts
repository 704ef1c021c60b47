import { expect, test } from '@playwright/test';

test('serves the entry page with its manifest and an installable service worker', async ({ page }) => {
  const response = await page.goto('/');
  expect(response?.status()).toBe(200);
  await expect(page.getByRole('heading', { name: 'Confab' })).toBeVisible();
  const manifest = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(manifest).toBeTruthy();
  const body = (await (await page.request.get(manifest ?? '')).json()) as { name: string; icons: { sizes: string }[] };
  expect(body.name).toBe('Confab');
  expect(body.icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
  const registered = await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return registration.active?.scriptURL ?? '';
  });
  expect(registered).toMatch(/\/sw\.js$/);
});

test('answers a deep link to a bot with the page, which names the bot', async ({ page }) => {
  const response = await page.goto('/voice/demo');
  expect(response?.status()).toBe(200);
  await expect(page.getByTestId('bot-name')).toHaveText('Sage');
});

test('says plainly when a bot is not here, and lists the ones that are', async ({ page }) => {
  await page.goto('/voice/nobody');
  await expect(page.getByTestId('page-problem')).toContainText('There is no bot called “nobody” here.');
  await page.goto('/');
  await expect(page.getByRole('link', { name: 'Talk to Sage' })).toHaveAttribute('href', '/voice/demo');
});

test('says plainly when a path is no page', async ({ page }) => {
  const response = await page.goto('/nowhere/at/all');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('alert')).toContainText('/nowhere/at/all');
});

test('runs cross-origin isolated so the voice engine may use threads', async ({ page }) => {
  await page.goto('/');
  expect(await page.evaluate(() => window.crossOriginIsolated)).toBe(true);
});

test('works offline as an installed app: the shell loads from the service worker and says the server is unreachable', async ({ page, context }) => {
  await page.goto('/voice/demo');
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  // The voice engine's WebAssembly is in the service worker's precache; model files are not (the
  // engine keeps those in a cache of its own, as they download).
  const precached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of (await caches.keys()).filter((key) => key.startsWith('workbox-precache'))) {
      for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
    }
    return urls;
  });
  expect(precached.some((path) => /\/assets\/ort-wasm-simd-threaded-[\w-]+\.wasm$/.test(path))).toBe(true);
  expect(precached.some((path) => path.startsWith('/models/'))).toBe(false);
  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId('page-problem')).toContainText('could not be reached');
  await context.setOffline(false);
});
