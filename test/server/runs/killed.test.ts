/**
 * A worker in another process, killed with SIGKILL between steps, and its run finished by a worker
 * in this one: over one database reached by URL (PGlite served by pglite-socket, or the real
 * Postgres of CONFAB_TEST_DATABASE_URL), as two server instances share one Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import { runStatus } from '../../../server/runs/runsApi';
import type { RunEvent } from '../../../server/runs/worker';
import { startWorkerProcess } from '../../helpers/runWorkerProcess';
import { ownDatabaseOn } from '../../helpers/testDatabase';
import { OPENING_MS, somebody, startSocketPostgres } from '../db/fixtures';
import type { SocketPostgres } from '../db/fixtures';
import { TEST_LEASE_MS, ended, executorOver, listItems, start, workerOver, writesOf } from './runFixtures';

const THREE_THINGS = 'add milk to my shopping list, then add eggs to my shopping list, then add bread to my shopping list';

describe('a run whose worker process is killed', { timeout: 90_000 }, () => {
  let served: SocketPostgres;
  let db: Database;
  beforeAll(async () => {
    const server = process.env.CONFAB_TEST_DATABASE_URL;
    if (server === undefined || server === '') served = await startSocketPostgres();
    else {
      const own = await ownDatabaseOn(server);
      served = { url: own.url, stop: own.drop };
    }
    db = await openDatabase({ url: served.url, poolSize: 2 });
  }, OPENING_MS);
  afterAll(async () => {
    await db.close();
    await served.stop();
  });

  it('is finished by a worker in another process from its last written step, each write done once', async () => {
    const ana = somebody();
    const id = await start(db, ana, THREE_THINGS);
    const { url } = served;
    const childEvents: RunEvent[] = [];
    let killed: Promise<void> | undefined;
    let gone: () => void = () => undefined;
    const killedBetweenSteps = new Promise<void>((resolve) => {
      gone = resolve;
    });
    const child = startWorkerProcess({
      url,
      owner: 'child-killed',
      leaseMs: TEST_LEASE_MS,
      concurrency: 1,
      onEvent: (event) => {
        childEvents.push(event);
        // Its second tool call written: kill it before it asks for the third.
        if (event.event === 'run.step' && event.seq === 4) killed ??= child.kill().then(gone);
      },
    });
    await killedBetweenSteps;
    const before = (await runStatus(db, ana, id))?.steps.length ?? 0;
    expect(before).toBeGreaterThanOrEqual(4);
    expect(before).toBeLessThan(8);

    const executor = executorOver(db);
    const events: RunEvent[] = [];
    const here = workerOver(db, executor, 'w-here', events);
    here.start();
    const run = await ended(db, id, 30_000);
    await here.stop();
    expect(run.state).toBe('finished');
    expect(childEvents[0]).toMatchObject({ event: 'run.claimed', runId: id, owner: 'child-killed' });
    expect(events[0]).toMatchObject({ event: 'run.claimed', runId: id, owner: 'w-here' });
    expect(events.find((e) => e.event === 'run.step-begun')).toMatchObject({ seq: before + 1 });
    expect(await listItems(executor, ana)).toEqual(['milk', 'eggs', 'bread']);
    expect(await writesOf(db, ana, 'lists.add')).toBe(3);
  });
});
