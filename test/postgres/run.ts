/**
 * `npm run test:postgres`, a step of `npm test`: with `CONFAB_TEST_DATABASE_URL` (a Postgres with
 * pgvector, as .ci/run starts), every server test again on it, then the scale-out scenario in its
 * short form (two instances behind pgbouncer: `npm run bench -- scale-out --short`). Without it, one
 * line says that the database tests ran on PGlite only.
 */
import { spawnSync } from 'node:child_process';

const url = process.env.CONFAB_TEST_DATABASE_URL;
if (url === undefined || url === '') {
  console.log('Database tests ran on PGlite only: set CONFAB_TEST_DATABASE_URL to a Postgres with pgvector (see docs/operating.md) to run them on it too.');
  process.exit(0);
}
const steps: [string, string[]][] = [
  ['npx', ['vitest', 'run', '--config', 'vitest.postgres.config.ts']],
  ['npm', ['run', '--silent', 'bench', '--', 'scale-out', '--short']],
];
for (const [command, args] of steps) {
  const { status } = spawnSync(command, args, { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}
