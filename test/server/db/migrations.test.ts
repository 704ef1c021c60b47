import { PGlite } from '@electric-sql/pglite';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_DEFAULTS, openDatabase } from '../../../server/db/database';
import { MigrationError } from '../../../server/db/errors';
import type { PersonLimits } from '../../../server/db/limits';
import { reserveAnswer } from '../../../server/db/reservations';
import { migrate, readMigrations } from '../../../server/db/migrate';
import type { Engine, Session } from '../../../server/db/migrate';
import { createThread } from '../../../server/db/threads';
import { OPENING_MS } from './fixtures';

describe('migrations', { timeout: 2 * OPENING_MS }, () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'confab-db-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('applies each shipped file once, and opening the same data again applies nothing twice', async () => {
    const shipped = await readMigrations(DATABASE_DEFAULTS.migrationsDir);
    const data = join(dir, 'data');
    const first = await openDatabase({ dataDir: data });
    const applied = (await first.asServer((tx) => tx.query<{ version: number; name: string }>('select version, name from schema_migrations order by version'))).rows;
    await first.asPerson('ana', (tx) => createThread(tx, { person: 'ana', bot: 'demo' }));
    await first.close();
    expect(applied).toEqual(shipped.map((m) => ({ version: m.version, name: m.name })));
    expect(applied[0]).toEqual({ version: 1, name: 'schema' });

    // Applying 001 a second time would fail on `create table threads`; the open succeeds and keeps the data.
    const again = await openDatabase({ dataDir: data });
    const ledgerAgain = (await again.asServer((tx) => tx.query('select version, name from schema_migrations order by version'))).rows;
    const threads = (await again.asServer((tx) => tx.query('select id from threads'))).rows;
    await again.close();
    expect(ledgerAgain).toEqual(applied);
    expect(threads).toHaveLength(1);
  });

  it('totals the answers and costs recorded before running totals existed, so admission counts them (009)', async () => {
    const shipped = await readMigrations(DATABASE_DEFAULTS.migrationsDir);
    const before = join(dir, 'before');
    await mkdir(before);
    for (const m of shipped.filter((m) => m.version < 9)) {
      const file = `${String(m.version).padStart(3, '0')}_${m.name}.sql`;
      await copyFile(join(DATABASE_DEFAULTS.migrationsDir, file), join(before, file));
    }
    const data = join(dir, 'data');
    const old = await openDatabase({ dataDir: data, migrationsDir: before });
    const now = new Date('2026-03-02T10:00:00Z');
    const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);
    // Three answers this hour, two of them settled at 20 cents each, and one from yesterday.
    await old.asServer(async (tx) => {
      for (const [at, cost] of [[minutesAgo(50), 0.2], [minutesAgo(30), 0.2], [minutesAgo(10), null], [minutesAgo(26 * 60), 0.5]] as const) {
        const { rows } = await tx.query<{ id: string }>('insert into reservations (person, bot, reserved_at, hold) values ($1, $2, $3, $4) returning id', ['ana', 'demo', at, cost === null ? 0.1 : 0]);
        if (cost !== null) {
          await tx.query("insert into usage (reservation_id, person, bot, provider, model, prompt_tokens, completion_tokens, cost, started_at) values ($1, 'ana', 'demo', 'p', 'm', 1, 1, $2, $3)", [rows[0]?.id, cost, at]);
        }
      }
    });
    await old.close();
    const upgraded = await openDatabase({ dataDir: data });
    const reserve = (limits: PersonLimits) => upgraded.asServer((tx) => reserveAnswer(tx, { person: 'ana', bot: 'demo', limits, spendHoldUsd: 0.05, now }));
    const refused = await reserve({ perHour: { answers: 3 } });
    const admitted = await reserve({ perHour: { answers: 5, spend: 1 }, perDay: { spend: 2 } });
    await upgraded.close();
    expect(refused).toMatchObject({ ok: false, window: 'perHour', kind: 'answers' });
    // This hour: 0.40 spent and 0.10 held, and this answer's 0.05; the day adds yesterday's 0.50 only after 24 hours.
    expect(admitted).toMatchObject({ ok: true, room: { answers: 1, spendUsd: 0.45 } });
  });

  describe('the runner', () => {
    // One in-memory PGlite for the runner's own tests; each test uses its own versions and tables.
    let pglite: PGlite;
    let engine: Engine;
    beforeAll(async () => {
      pglite = await PGlite.create({ dataDir: 'memory://' });
      const session = (tx: Pick<PGlite, 'query' | 'exec'>): Session => ({
        query: (async (sql: string, params?: unknown[]) => ({ rows: (await tx.query(sql, params)).rows })) as Session['query'],
        exec: async (sql: string) => {
          await tx.exec(sql);
        },
      });
      engine = { transaction: (fn) => pglite.transaction((tx) => fn(session(tx))), close: () => pglite.close() };
    }, OPENING_MS);
    afterAll(() => pglite.close());

    const write = (file: string, sql: string) => writeFile(join(dir, file), sql);
    const tableExists = async (name: string) => (await pglite.query('select 1 from pg_tables where tablename = $1', [name])).rows.length > 0;

    it('applies a new file on the next run, after the ones already applied, and nothing on the run after', async () => {
      await write('101_first.sql', 'create table runner_first (id int);');
      expect(await migrate(engine, await readMigrations(dir))).toEqual([101]);
      await write('102_second.sql', 'create table runner_second (id int);');
      expect(await migrate(engine, await readMigrations(dir))).toEqual([102]);
      expect(await migrate(engine, await readMigrations(dir))).toEqual([]);
    });

    it('stops when an applied file has changed since, naming it', async () => {
      await write('201_extra.sql', 'create table runner_extra (id int);');
      await migrate(engine, await readMigrations(dir));
      await write('201_extra.sql', 'create table runner_extra (id bigint);');
      await expect(migrate(engine, await readMigrations(dir))).rejects.toThrow(
        'Migration 201_extra changed after it was applied; restore it and put the change in a new migration.',
      );
    });

    it('treats a file checked out with Windows line endings as the same file', async () => {
      await write('301_lines.sql', 'create table runner_lines (id int);\nselect 1;\n');
      await migrate(engine, await readMigrations(dir));
      await write('301_lines.sql', 'create table runner_lines (id int);\r\nselect 1;\r\n');
      expect(await migrate(engine, await readMigrations(dir))).toEqual([]);
    });

    it('rolls back a file that fails, records nothing for it, and keeps the ones before it', async () => {
      await write('401_fine.sql', 'create table runner_fine (id int);');
      await write('402_half.sql', 'create table runner_half (id int);\nselect * from no_such_table;\n');
      const failed = migrate(engine, await readMigrations(dir));
      await expect(failed).rejects.toBeInstanceOf(MigrationError);
      await expect(failed).rejects.toThrow('Migration 402_half failed and was rolled back.');
      expect(await tableExists('runner_fine')).toBe(true);
      expect(await tableExists('runner_half')).toBe(false);
      const versions = (await pglite.query<{ version: number }>('select version from schema_migrations where version between 401 and 402')).rows;
      expect(versions.map((r) => r.version)).toEqual([401]);
    });
  });

  it('refuses a folder with a misnamed or doubly numbered file, naming it', async () => {
    await writeFile(join(dir, '001_a.sql'), 'select 1;');
    await writeFile(join(dir, '1_b.sql'), 'select 1;');
    await expect(readMigrations(dir)).rejects.toThrow('Migration file 1_b.sql is not named NNN_name.sql');
    await rm(join(dir, '1_b.sql'));
    await writeFile(join(dir, '001_b.sql'), 'select 1;');
    await expect(openDatabase({ dataDir: 'memory://', migrationsDir: dir })).rejects.toThrow('Two migration files are numbered 001');
  });
});
