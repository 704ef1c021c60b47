import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The database tests again, on a real Postgres (`npm run test:postgres`, with
 * `CONFAB_TEST_DATABASE_URL`): each opens a database of its own there (test/helpers/testDatabase.ts),
 * copied from one migrated once (test/postgres/template.ts).
 */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: ['test/server/**/*.test.ts'],
      globalSetup: ['test/postgres/template.ts'],
      env: { CONFAB_TEST_ENGINE: 'postgres' },
      coverage: { enabled: false },
    },
  }),
);
