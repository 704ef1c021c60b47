/**
 * One interface over the two engines Confab stores in: PGlite (Postgres in WebAssembly, with pgvector)
 * inside the server process by default, or a real Postgres through `pg` when `DATABASE_URL` is set.
 * Every query runs in a transaction, either as the server or as one person — or, for the server's
 * reads that need not agree with one another, as a statement of its own (`readAsServer`); the same
 * migrations run on both at open.
 *
 * Do not nest: calling `asServer`/`asPerson`/`readAsServer` inside a transaction or read waits for
 * a connection (PGlite: for the queue) that the outer one holds, and never returns.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { resolveOptions } from '../../common/options';
import type { Limits } from '../../common/options';
import { DatabaseError, DeafListenError, toDatabaseError } from './errors';
import { migrate, readMigrations } from './migrate';
import { pgliteStatements } from './pgliteStatements';
import type { Engine, Session } from './migrate';
import type { Queryable } from './queryable';
import type { PGlite } from '@electric-sql/pglite';
import type { Client as PgClient, PoolClient } from 'pg';

export interface Database {
  /**
   * A transaction as the server itself: the tables' owner, which row level security does not
   * restrict. For what no person may write — memories, usage, reservations — and for migrations.
   * Every query in it names its person explicitly.
   */
  asServer<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * A transaction as one person: `app.person` is set for the transaction and the role is
   * `confab_person`, so the policies confine every read and write to that person's rows. The person
   * is whoever the server authenticated — never a value taken from a request body.
   */
  asPerson<T>(person: string, fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Reads as the server with no transaction around them: each statement is its own, sees the
   * database as it stands when it runs, and may run beside the others (`pg`: each on a pooled
   * connection, side by side, one round trip for all; PGlite: one after another, queued as a
   * transaction is). What a transaction costs — its BEGIN and COMMIT, two more round trips, a
   * connection held — is not spent on reads that need not agree with one another. For reads only:
   * `set local` has no transaction to last for here, and a write would commit at once.
   */
  readAsServer<T>(fn: (reader: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `handlers.payload` with each notification on `channel` (Postgres `LISTEN`/`NOTIFY`, sent
   * with `pg_notify` in any transaction, delivered when it commits): PGlite's own, in process; on
   * Postgres a connection of its own, opened again when it drops — `handlers.gap` then says that
   * notifications may have been missed meanwhile. Resolves once listening; what it answers stops.
   * Optional so that a wrapper may leave it out: without it an instance hears only itself.
   */
  listen?: (channel: string, handlers: ListenHandlers) => Promise<() => Promise<void>>;
  /** Waits for transactions in progress, then closes the engine; later calls reject. */
  close(): Promise<void>;
}

export interface ListenHandlers {
  payload: (payload: string) => void;
  /** Listening resumed after a break in which notifications may have been lost. */
  gap?: () => void;
}

type Listen = NonNullable<Database['listen']>;

/** An engine as the stores use it: transactions (all migrations need), and reads outside one. */
interface StoreEngine extends Engine {
  read<T>(fn: (reader: Session) => Promise<T>): Promise<T>;
}

/** A channel name as LISTEN takes it unquoted: lower-case letters, digits and underscores. */
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

function checkChannel(channel: string): void {
  if (!CHANNEL.test(channel)) throw new TypeError(`"${channel}" is not a channel to listen on: use lower-case letters, digits and underscores.`);
}

export interface DatabaseOptions {
  /** A Postgres connection string (`DATABASE_URL`). When set, `pg` is used and `dataDir` is ignored. */
  url?: string;
  /**
   * PGlite's data folder, created when missing; `memory://` keeps nothing. Default `.data/pglite`.
   * One process per folder: PGlite is a single session, so several servers share a `url` instead.
   */
  dataDir?: string;
  /** Folder of `NNN_name.sql` migrations. Default: `migrations/` beside this file. */
  migrationsDir?: string;
  /**
   * A session connection to the same Postgres (`DATABASE_DIRECT_URL`) for LISTEN, when `url` names a
   * transaction pooler (pgbouncer in transaction mode, Supabase's port 6543), through which a
   * notification never reaches a listener. Default: `url`.
   */
  directUrl?: string;
  /** Most connections the `pg` pool opens to the server. Default 10. */
  poolSize?: number;
}

/** The options with a default, each explained on its field in `DatabaseOptions`. */
type DatabaseSettings = Required<Pick<DatabaseOptions, 'dataDir' | 'migrationsDir' | 'poolSize'>>;

export const DATABASE_DEFAULTS: Readonly<DatabaseSettings> = Object.freeze({
  dataDir: '.data/pglite',
  migrationsDir: fileURLToPath(new URL('./migrations', import.meta.url)),
  poolSize: 10,
});

const LIMITS: Limits<DatabaseSettings> = { poolSize: { min: 1, whole: true } };

/** The role every person's transaction runs as; created by the first migration. */
const PERSON_ROLE = 'confab_person';

/** Opens the engine the options name and brings its schema up to date before anything else runs. */
export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  const settings = resolveOptions('database', DATABASE_DEFAULTS, options, LIMITS);
  const migrations = await readMigrations(settings.migrationsDir);
  const { engine, listen } =
    options.url !== undefined && options.url !== '' ? await openPostgres(options.url, options.directUrl || options.url, settings.poolSize) : await openPglite(settings.dataDir);
  try {
    await migrate(engine, migrations);
  } catch (error) {
    await engine.close();
    throw error;
  }
  return overEngine(engine, listen);
}

function overEngine(engine: StoreEngine, listen: Listen): Database {
  // Callers get a view with `query` only: multi-statement `exec` is for migrations.
  const view = (tx: Session): Queryable => ({ query: (sql, params) => tx.query(sql, params) });
  return {
    asServer: (fn) => engine.transaction((tx) => fn(view(tx))),
    readAsServer: (fn) => engine.read((reader) => fn(view(reader))),
    asPerson: (person, fn) => {
      if (typeof person !== 'string' || person === '') {
        // An empty person would match every row whose person is '' — and `app.person` reads '' once a
        // transaction-local setting has ended — so it is refused before any query.
        return Promise.reject(new TypeError('asPerson needs the authenticated person, a non-empty string.'));
      }
      return engine.transaction(async (tx) => {
        // The person and the role in one statement (`role` is a setting: `set_config` is `set local role`).
        await tx.query("select set_config('app.person', $1, true), set_config('role', $2, true)", [person, PERSON_ROLE]);
        return fn(view(tx));
      });
    },
    listen,
    close: () => engine.close(),
  };
}

/** The SQL's first words, for an error message: the statement, never its parameters. */
function statement(sql: string): string {
  const words = sql.replace(/\s+/g, ' ').trim();
  return `Query "${words.length > 60 ? `${words.slice(0, 60)}…` : words}"`;
}

async function openPglite(dataDir: string): Promise<{ engine: StoreEngine; listen: Listen }> {
  // Loaded only here, so a deployment on Postgres never loads the WebAssembly engine.
  const [{ PGlite }, { vector }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-pgvector')]);
  if (!dataDir.includes('://')) await mkdir(dataDir, { recursive: true });
  let db: PGlite;
  try {
    db = await PGlite.create({ dataDir, extensions: { vector } });
  } catch (error) {
    throw toDatabaseError(error, `Opening PGlite in ${dataDir}`);
  }
  // Each statement is parsed once for the session and sent as one call after that
  // (pgliteStatements.ts) — `begin` and `commit` too; `exec` (migrations) runs its text as it is.
  const statements = pgliteStatements(db);
  const query = (async (sql: string, params?: unknown[]) => {
    try {
      return await statements.query(sql, params);
    } catch (error) {
      throw toDatabaseError(error, statement(sql));
    }
  }) as Session['query'];
  const session: Session = {
    query,
    async exec(sql: string) {
      try {
        await db.exec(sql);
      } catch (error) {
        throw toDatabaseError(error, 'A migration');
      }
    },
  };
  // PGlite is one Postgres session. Two transactions must never interleave their statements on it,
  // so they run one after another, in the order they were asked for — and so does anything else
  // sent on the session (LISTEN), which would otherwise land inside whichever transaction is open.
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;
  const queued = <T>(work: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new DatabaseError('The database is closed.'));
    const run = tail.then(() => work());
    tail = run.catch(() => undefined);
    return run;
  };
  const engine: StoreEngine = {
    transaction<T>(fn: (tx: Session) => Promise<T>): Promise<T> {
      return queued(async () => {
        await query('begin');
        let result: T;
        try {
          result = await fn(session);
        } catch (error) {
          await query('rollback');
          throw error;
        }
        // A commit that fails has rolled the transaction back.
        await query('commit');
        return result;
      });
    },
    read<T>(fn: (reader: Session) => Promise<T>): Promise<T> {
      // Each statement outside a transaction commits on its own (PGlite's sync ends it); queued, so
      // none lands inside another caller's transaction.
      return queued(() => fn(session));
    },
    async close() {
      if (closed) return;
      closed = true;
      await tail;
      await db.close();
    },
  };
  // PGlite is one session: it hears its own NOTIFY as each notifying transaction commits.
  const listen: Listen = async (channel, handlers) => {
    checkChannel(channel);
    const stop = await queued(() => db.listen(channel, handlers.payload));
    return async () => {
      if (!closed) await queued(() => stop());
    };
  };
  return { engine, listen };
}

async function openPostgres(url: string, listenUrl: string, poolSize: number): Promise<{ engine: StoreEngine; listen: Listen }> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle connection the server dropped is discarded by the pool, and the next checkout opens a
  // new one; without a listener the event would end the process instead.
  pool.on('error', () => undefined);
  /** Statements on one checked-out connection, or (a read) on whichever the pool hands each. */
  const session = (client: PoolClient | InstanceType<typeof pg.Pool>): Session => ({
    query: (async (sql: string, params?: unknown[]) => {
      try {
        const result = await client.query<Record<string, unknown>>(sql, params);
        return { rows: result.rows };
      } catch (error) {
        throw toDatabaseError(error, statement(sql));
      }
    }) as Session['query'],
    async exec(sql: string) {
      try {
        // No parameters: the simple protocol, which runs a file of several statements.
        await client.query(sql);
      } catch (error) {
        throw toDatabaseError(error, 'A migration');
      }
    },
  });
  let closed = false;
  const engine: StoreEngine = {
    async transaction<T>(fn: (tx: Session) => Promise<T>): Promise<T> {
      if (closed) throw new DatabaseError('The database is closed.');
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw toDatabaseError(error, 'Connecting to Postgres');
      }
      const tx = session(client);
      let broken: Error | undefined;
      try {
        await tx.query('begin');
        const result = await fn(tx);
        await tx.query('commit');
        return result;
      } catch (error) {
        try {
          await client.query('rollback');
        } catch (rollbackError) {
          // A connection that cannot roll back is not handed to the next request.
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    read<T>(fn: (reader: Session) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new DatabaseError('The database is closed.'));
      // Each statement checks a connection out of the pool and returns it: side by side when the
      // caller runs them so.
      const reader = session(pool);
      return fn(reader);
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...listeners].map((stop) => stop()));
      await pool.end();
    },
  };
  const listeners = new Set<() => Promise<void>>();
  const listen: Listen = async (channel, handlers) => {
    checkChannel(channel);
    if (closed) throw new DatabaseError('The database is closed.');
    // A probe sent through the pool must come back to the listener: through a transaction pooler
    // LISTEN is taken without a word and nothing is ever heard, which is said here, not found out later.
    const probe = `confab-probe:${randomUUID()}`;
    let heard = (): void => undefined;
    const probeHeard = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const stop = await listenOnPostgres(() => new pg.Client({ connectionString: listenUrl }), channel, {
      ...handlers,
      payload: (payload) => {
        if (payload === probe) heard();
        else handlers.payload(payload);
      },
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = await Promise.race([
      probeHeard.then(() => true),
      pool.query('select pg_notify($1, $2)', [channel, probe]).then(
        () => new Promise<boolean>((resolve) => (timer = setTimeout(() => { resolve(false); }, LISTEN_PROBE_MS))),
        (error: unknown) => Promise.reject(toDatabaseError(error, `Notifying ${channel}`)),
      ),
    ]).finally(() => { clearTimeout(timer); });
    if (!waited) {
      await stop();
      throw new DeafListenError(channel, LISTEN_PROBE_MS);
    }
    const stopping = async () => {
      listeners.delete(stopping);
      await stop();
    };
    listeners.add(stopping);
    return stopping;
  };
  return { engine, listen };
}

/** How long a notification sent through the pool may take to reach a new listener before it is taken for deaf, in ms. */
const LISTEN_PROBE_MS = 2_000;

/** How long a dropped LISTEN connection waits before it is opened again, in ms, doubling to the last. */
const RELISTEN_MS = [100, 200, 500, 1_000, 2_000, 5_000] as const;

/**
 * LISTEN on a connection of its own (a pooled one would be handed to somebody else). When it
 * drops, it is opened again after `RELISTEN_MS`, and `gap` is called once it listens again.
 */
export async function listenOnPostgres(connect: () => PgClient, channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
  checkChannel(channel);
  let stopped = false;
  let client: PgClient | null = null;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;

  async function open(): Promise<void> {
    const next = connect();
    // A dropped connection is reopened; without a listener the error would end the process.
    next.on('error', () => undefined);
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.payload(message.payload ?? '');
    });
    next.on('end', () => {
      // Only a connection that was listening is replaced; a failed attempt is retried by `again`.
      if (client !== next) return;
      client = null;
      if (!stopped) again();
    });
    await next.connect();
    await next.query(`listen ${channel}`);
    if (stopped) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
  }

  function again(): void {
    const waitMs = RELISTEN_MS[Math.min(attempt, RELISTEN_MS.length - 1)] ?? 5_000;
    attempt += 1;
    retry = setTimeout(() => {
      open().then(
        () => {
          attempt = 0;
          if (!stopped) handlers.gap?.();
        },
        () => {
          if (!stopped) again();
        },
      );
    }, waitMs);
  }

  try {
    await open();
  } catch (error) {
    throw toDatabaseError(error, `Listening on ${channel}`);
  }
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const last = client;
    client = null;
    await last?.end().catch(() => undefined);
  };
}
