import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';

export default defineConfig({
  plugins: [vue()],
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/firefox/**', 'node_modules/**'],
    environment: 'node',
    // Opening an embedded Postgres (PGlite, WebAssembly) and migrating it takes seconds on a busy
    // 2-core machine; a generous hook timeout keeps a slow start from reading as a failure.
    hookTimeout: 60_000,
    testTimeout: 30_000,
    coverage: {
      provider: 'v8',
      include: ['src/core/**/*.ts', 'common/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { lines: 95 },
    },
  },
});
