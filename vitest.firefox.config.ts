import { defineConfig } from 'vitest/config';

/**
 * The one test in a real browser with no recogniser (test/firefox/): Debian's Firefox ESR against
 * the real server serving the e2e build, after the Playwright run in `npm run test:e2e`.
 */
export default defineConfig({
  test: {
    include: ['test/firefox/**/*.test.ts'],
    environment: 'node',
    // Laying the tiny models, starting the server and a browser on a busy 2-core machine.
    hookTimeout: 90_000,
    fileParallelism: false,
  },
});
