import { defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The server tests again, on a real Postgres (`npm run test:postgres`, with
 * `CONFAB_TEST_DATABASE_URL`): each opens a database of its own there (test/helpers/testDatabase.ts),
 * copied from one migrated once (test/postgres/template.ts). The base's settings with its own files:
 * `mergeConfig` would add this `include` to the base's, running everything.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/server/**/*.test.ts'],
    globalSetup: ['test/postgres/template.ts'],
    env: { CONFAB_TEST_ENGINE: 'postgres' },
    coverage: { enabled: false },
  },
});
