import { defineConfig } from '@playwright/test';
import { E2E_MODELS_DIR } from './test/e2e/tinyModels';

/**
 * Browser tests run in Debian's Chromium (never a downloaded browser) against the real server
 * serving the built page, exactly as `npm start` does, on a port of their own. The build is the
 * product's plus the harness pages of test/e2e/harness (`vite build --mode e2e`).
 */
/** Where `vite build --mode e2e` writes the page and the harness pages (see vite.config.ts). */
const E2E_DIST_DIR = process.env.E2E_DIST ?? 'e2e-build/dist';
const port = Number(process.env.E2E_PORT ?? 8797);
/**
 * The test server's database and grant secret: one folder per port, never the developer's `.data`,
 * so runs side by side (each on its own port) never open one embedded database twice.
 */
const E2E_DATA_DIR = process.env.E2E_DATA ?? `.data/e2e-${String(port)}`;
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'test/e2e',
  // Emptied at the start of every run; `E2E_OUTPUT` moves it so two runs can go side by side.
  outputDir: process.env.E2E_OUTPUT ?? 'test-results',
  globalSetup: './test/e2e/tinyModels.ts',
  fullyParallel: false,
  workers: 1,
  forbidOnly: process.env.CI === 'true',
  retries: 0,
  reporter: [['list']],
  timeout: 60_000,
  use: {
    // The page's own name, as people open it: a page visit to 127.0.0.1 is sent here, since WebAuthn
    // takes no address for a site (the server still listens on 127.0.0.1 alone).
    baseURL: `http://localhost:${port}`,
    browserName: 'chromium',
    launchOptions: {
      executablePath: chromium,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        '--autoplay-policy=no-user-gesture-required',
      ],
    },
  },
  webServer: {
    command: 'tsx server/index.ts',
    url: `http://127.0.0.1:${port}/api/health`,
    // Every test's browser is a new person from 127.0.0.1: the suite makes more in an hour than a
    // visitor's address may (CONFAB_NEW_PERSONS_PER_HOUR, default 30).
    env: { PORT: String(port), HOST: '127.0.0.1', CONFAB_DATA_DIR: E2E_DATA_DIR, CONFAB_DIST: E2E_DIST_DIR, CONFAB_MODELS_DIR: E2E_MODELS_DIR, CONFAB_MODEL_BASE: '/models', CONFAB_NEW_PERSONS_PER_HOUR: '100000' },
    reuseExistingServer: false,
    timeout: 60_000,
  },
});
