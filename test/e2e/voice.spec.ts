import { expect, test } from '@playwright/test';

test('downloads the voice from the mirror, then speaks a sample from the worker as PCM pieces', async ({ page }) => {
  const modelRequests: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/models/')) modelRequests.push(request.url());
  });
  await page.goto('/');
  await expect(page.getByTestId('voice-status')).toHaveText(/not been downloaded/);
  await page.getByRole('button', { name: 'Download the voice' }).click();
  await expect(page.getByTestId('voice-status')).toHaveText(/The voice is ready, running on the processor/, { timeout: 30_000 });
  expect(modelRequests.some((url) => url.endsWith('/supertonic-3/onnx/vector_estimator.onnx'))).toBe(true);

  await page.getByRole('button', { name: 'Hear it' }).click();
  const spoken = page.getByTestId('voice-spoken');
  await expect(spoken).toBeVisible({ timeout: 30_000 });
  expect(await spoken.getAttribute('data-rate')).toBe('44100');
  expect(Number(await spoken.getAttribute('data-pieces'))).toBeGreaterThanOrEqual(2);
  expect(Number(await spoken.getAttribute('data-samples'))).toBeGreaterThan(44_100);
});

test('loads the voice from the browser cache on the next visit, with no model download', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Download the voice' }).click();
  await expect(page.getByTestId('voice-status')).toHaveText(/ready/, { timeout: 30_000 });

  const modelRequests: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/models/')) modelRequests.push(request.url());
  });
  await page.reload();
  await page.getByRole('button', { name: 'Download the voice' }).click();
  await expect(page.getByTestId('voice-status')).toHaveText(/ready/, { timeout: 30_000 });
  expect(modelRequests).toEqual([]);
});
