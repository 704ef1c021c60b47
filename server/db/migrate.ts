/**
 * Versioned migrations: `NNN_name.sql` files applied in order at open, each in its own transaction,
 * each recorded in `schema_migrations` with a checksum of its text. Opening again applies nothing
 * twice; several servers starting at once over one Postgres take turns under an advisory lock, so
 * each file is applied exactly once. A file that changed after it was applied stops the start: the
 * database already holds the old text's effect, so the change belongs in a new file.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Queryable } from './queryable';
import { MigrationError } from './errors';

/** A transaction's connection as the engines hand it out, plus multi-statement `exec` for migration files. */
export interface Session extends Queryable {
  /** Runs a whole file of statements; takes no parameters. */
  exec(sql: string): Promise<void>;
}

/** What `openDatabase` builds a `Database` over: serialised or pooled transactions. */
export interface Engine {
  transaction<T>(fn: (tx: Session) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface Migration {
  /** The file's `NNN`. */
  version: number;
  /** The file's name after `NNN_`, without `.sql`. */
  name: string;
  sql: string;
  /** SHA-256 of the text with line endings normalised, hex. */
  checksum: string;
}

/** Key of the advisory lock migrations hold; any constant no other lock in Confab uses. */
const MIGRATION_LOCK = 7_301_940_217;

const FILE = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/** Reads and orders the folder's migrations; a stray `.sql` file or a repeated number is refused. */
export async function readMigrations(dir: string): Promise<Migration[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new MigrationError(`Cannot read the migrations folder ${dir}.`, { cause: error });
  }
  const migrations: Migration[] = [];
  for (const file of names.filter((n) => n.endsWith('.sql')).sort()) {
    const match = FILE.exec(file);
    if (match === null) {
      throw new MigrationError(`Migration file ${file} is not named NNN_name.sql (three digits, then lower-case letters, digits and underscores).`);
    }
    const [, digits = '', name = ''] = match;
    const version = Number(digits);
    if (migrations.some((m) => m.version === version)) {
      throw new MigrationError(`Two migration files are numbered ${digits}; give ${file} the next free number.`);
    }
    const sql = (await readFile(join(dir, file), 'utf8')).replace(/\r\n/g, '\n');
    migrations.push({ version, name, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

/**
 * The role every person's transaction runs as, and the connecting role's membership of it, made
 * before any migration (migration 001 then finds them). A role is the whole Postgres's while the
 * migrations' lock is one database's: two Confab databases on one server migrating at the same moment
 * both tried to create it, and one start failed. Here the one that loses the race takes the other's.
 */
const PERSON_ROLE_SQL = `
  do $$
  begin
    if not exists (select 1 from pg_roles where rolname = 'confab_person') then
      create role confab_person nologin;
    end if;
  exception when duplicate_object or unique_violation then
    null;
  end
  $$;
  do $$
  begin
    -- Granted, not merely had: a superuser has every role, and migration 001 grants it all the same.
    if not exists (select 1 from pg_auth_members where roleid = 'confab_person'::regrole and member = current_user::regrole) then
      execute format('grant confab_person to %I', current_user);
    end if;
  exception when duplicate_object or unique_violation then
    null;
  end
  $$;
`;

/** Applies what is not yet applied, in order; answers the versions it applied. */
export async function migrate(engine: Engine, migrations: readonly Migration[]): Promise<number[]> {
  await engine.transaction((tx) => tx.exec(PERSON_ROLE_SQL));
  await engine.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    // Row level security with no policy: on a hosted Postgres that exposes `public` to API roles,
    // the ledger stays the owner's.
    await tx.exec(`
      create table if not exists schema_migrations (
        version integer primary key,
        name text not null,
        checksum text not null,
        applied_at timestamptz not null default now()
      );
      alter table schema_migrations enable row level security;
    `);
  });
  const applied: number[] = [];
  for (const migration of migrations) {
    const didApply = await engine.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const { rows } = await tx.query<{ checksum: string }>('select checksum from schema_migrations where version = $1', [migration.version]);
      const recorded = rows[0];
      if (recorded !== undefined) {
        if (recorded.checksum !== migration.checksum) {
          throw new MigrationError(
            `Migration ${String(migration.version).padStart(3, '0')}_${migration.name} changed after it was applied; restore it and put the change in a new migration.`,
          );
        }
        return false;
      }
      try {
        await tx.exec(migration.sql);
      } catch (error) {
        throw new MigrationError(`Migration ${String(migration.version).padStart(3, '0')}_${migration.name} failed and was rolled back.`, { cause: error });
      }
      await tx.query('insert into schema_migrations (version, name, checksum) values ($1, $2, $3)', [migration.version, migration.name, migration.checksum]);
      return true;
    });
    if (didApply) applied.push(migration.version);
  }
  return applied;
}
