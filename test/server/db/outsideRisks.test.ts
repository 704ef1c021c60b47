/**
 * The outside tools' kept risks (migration 023, `db/outsideRisks.ts`): the site's, one row per app
 * and tool, only ever raised — by `holdRisk`, and by the table itself whoever writes — read by no
 * person, and the same for two instances over one Postgres (two `Database`s over pglite-socket).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/db/database';
import type { Database } from '../../../server/db/database';
import { RefusedError } from '../../../server/db/errors';
import { holdRisk, keptRisk } from '../../../server/db/outsideRisks';
import { keptRisksIn } from '../../../server/outside/keptRisks';
import { DB_TEST_MS, OPENING_MS, somebody, startSocketPostgres } from './fixtures';
import type { SocketPostgres } from './fixtures';

const T0 = Date.UTC(2026, 2, 2, 12);

describe('outside tools’ kept risks', { timeout: DB_TEST_MS }, () => {
  let postgres: SocketPostgres;
  let one: Database;
  let two: Database;

  beforeAll(async () => {
    postgres = await startSocketPostgres();
    [one, two] = await Promise.all([openDatabase({ url: postgres.url }), openDatabase({ url: postgres.url })]);
  }, OPENING_MS);

  afterAll(async () => {
    await one.close();
    await two.close();
    await postgres.stop();
  });

  it('keeps the first claim, raises it for a riskier one, and keeps it for a safer one', async () => {
    const app = somebody('shop');
    const hold = (claimed: 'read' | 'write' | 'destructive', at: number) => one.asServer((tx) => holdRisk(tx, { app, tool: 'delete_item' }, claimed, at));
    expect(await hold('write', T0)).toEqual({ kept: undefined, held: 'write' });
    expect(await hold('read', T0 + 1)).toEqual({ kept: 'write', held: 'write' });
    expect(await hold('destructive', T0 + 2)).toEqual({ kept: 'write', held: 'destructive' });
    expect(await hold('read', T0 + 3)).toEqual({ kept: 'destructive', held: 'destructive' });
    const { rows } = await one.asServer((tx) => tx.query<{ first_seen_at: Date; raised_at: Date }>('select first_seen_at, raised_at from outside_risks where app = $1', [app]));
    expect(rows.map((row) => [new Date(row.first_seen_at).getTime(), new Date(row.raised_at).getTime()])).toEqual([[T0, T0 + 2]]);
  });

  it('holds a tool to what another instance over the same database first saw', async () => {
    const app = somebody('turncoat');
    // Instance one connects first: its server says remove_all destroys.
    const first = await keptRisksIn(one, () => T0).hold(app, new Map([['remove_all', 'destructive'], ['count', 'read']]));
    expect(Object.fromEntries(first)).toEqual({ remove_all: { kept: undefined, held: 'destructive' }, count: { kept: undefined, held: 'read' } });
    // Instance two connects later to a server that now claims it only reads.
    const second = await keptRisksIn(two, () => T0 + 60_000).hold(app, new Map([['remove_all', 'read'], ['count', 'read']]));
    expect(Object.fromEntries(second)).toEqual({ remove_all: { kept: 'destructive', held: 'destructive' }, count: { kept: 'read', held: 'read' } });
  });

  it('refuses to lower a kept risk whoever writes, and lets no person read or write the table', async () => {
    const app = somebody('guarded');
    await one.asServer((tx) => holdRisk(tx, { app, tool: 'wipe' }, 'destructive', T0));
    await expect(one.asServer((tx) => tx.query("update outside_risks set risk = 'read' where app = $1", [app]))).rejects.toThrow(/only ever raised/);
    expect(await one.asServer((tx) => keptRisk(tx, app, 'wipe'))).toBe('destructive');
    const ana = somebody('ana');
    await expect(one.asPerson(ana, (tx) => tx.query('select risk from outside_risks'))).rejects.toBeInstanceOf(RefusedError);
    await expect(one.asPerson(ana, (tx) => holdRisk(tx, { app: somebody('mine'), tool: 'wipe' }, 'read', T0))).rejects.toBeInstanceOf(RefusedError);
  });
});
