/**
 * `npm run --silent admin -- runs | schedules | cancel <id>`: the operator's view of work nobody is
 * waiting for. `runs` and `schedules` list everybody's (those not over first, newest first, at most
 * 100), one a line, tab-separated; `cancel <id>` stops a run or a schedule, whoever's it is — a
 * worker holding the run stops before its next step, as at the person's own "stop that".
 *
 * It reads the same settings as the server (`DATABASE_URL`, `CONFAB_DATA_DIR`) and opens the same
 * database, bringing its schema up to date as the server would. PGlite is one process's: while a
 * server holds the folder, the command says so and exits 69 rather than open it beside the server.
 * Lines hold ids, states, persons, bots and times — never what was asked.
 *
 * Exit codes: 0 done · 1 no such run or schedule still going · 64 usage · 69 the database is held
 * by a running server · 78 configuration.
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readBackendConfig } from './backendConfig';
import { ConfigError } from './config';
import { DataFolderBusy, lockDataFolder } from './dataLock';
import { openDatabase } from './db/database';
import type { Database } from './db/database';
import { isUuid } from './db/rows';
import { cancelRun, listAllRuns } from './runs/runs';
import { cancelScheduleById, listAllSchedules } from './runs/schedules';

export const ADMIN_EXIT = { ok: 0, notFound: 1, usage: 64, busy: 69, config: 78 } as const;

export const ADMIN_USAGE = 'Usage: npm run --silent admin -- runs | schedules | cancel <id>';

export interface AdminIo {
  /** One line of what was asked for (stdout). */
  out: (line: string) => void;
  /** One sentence of why not (stderr). */
  err: (line: string) => void;
  /** Now, in ms since the epoch. */
  clock: () => number;
}

const when = (atMs: number | null): string => (atMs === null ? '-' : new Date(atMs).toISOString());

/** The command over an open database; answers its exit code. */
export async function runAdmin(args: readonly string[], db: Database, io: AdminIo): Promise<number> {
  const [command, id, ...rest] = args;
  if (command === 'runs' && id === undefined) {
    const runs = await db.asServer((tx) => listAllRuns(tx));
    if (runs.length === 0) io.out('No runs.');
    for (const run of runs) io.out([run.id, run.state, run.person, run.bot, `created ${when(run.createdAtMs)}`, `lease ${run.leaseOwner ?? '-'} until ${when(run.leaseUntilMs)}`].join('\t'));
    return ADMIN_EXIT.ok;
  }
  if (command === 'schedules' && id === undefined) {
    const schedules = await db.asServer((tx) => listAllSchedules(tx));
    if (schedules.length === 0) io.out('No schedules.');
    for (const schedule of schedules) io.out([schedule.id, schedule.state, schedule.person, schedule.bot, schedule.said, `next ${when(schedule.nextAtMs)}`].join('\t'));
    return ADMIN_EXIT.ok;
  }
  if (command === 'cancel' && id !== undefined && rest.length === 0) {
    if (!isUuid(id)) {
      io.err(`"${id}" is not a run's or a schedule's id; list them with "runs" or "schedules".`);
      return ADMIN_EXIT.usage;
    }
    const nowMs = io.clock();
    const what = await db.asServer(async (tx) => ((await cancelRun(tx, id, nowMs)) ? 'run' : (await cancelScheduleById(tx, id)) ? 'schedule' : undefined));
    if (what === undefined) {
      io.err(`There is no run or schedule ${id} that is still going.`);
      return ADMIN_EXIT.notFound;
    }
    io.out(what === 'run' ? `Run ${id} is cancelled; a worker holding it stops before its next step.` : `Schedule ${id} is cancelled; it starts nothing more.`);
    return ADMIN_EXIT.ok;
  }
  io.err(ADMIN_USAGE);
  return ADMIN_EXIT.usage;
}

async function main(): Promise<number> {
  const io: AdminIo = { out: (line) => process.stdout.write(`${line}\n`), err: (line) => process.stderr.write(`${line}\n`), clock: Date.now };
  const args = process.argv.slice(2);
  if (!['runs', 'schedules', 'cancel'].includes(args[0] ?? '')) {
    io.err(ADMIN_USAGE);
    return ADMIN_EXIT.usage;
  }
  let backend;
  try {
    backend = readBackendConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(error.message);
    return ADMIN_EXIT.config;
  }
  let unlock: (() => Promise<void>) | undefined;
  try {
    unlock = backend.databaseUrl ? undefined : await lockDataFolder(backend.dataDir);
  } catch (error) {
    if (!(error instanceof DataFolderBusy)) throw error;
    io.err(error.message);
    return ADMIN_EXIT.busy;
  }
  try {
    const migrationsDir = fileURLToPath(new URL('./db/migrations', import.meta.url));
    const db = await openDatabase(backend.databaseUrl ? { url: backend.databaseUrl, migrationsDir } : { dataDir: join(backend.dataDir, 'pglite'), migrationsDir });
    try {
      return await runAdmin(args, db, io);
    } finally {
      await db.close();
    }
  } finally {
    await unlock?.();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(70);
    },
  );
}
