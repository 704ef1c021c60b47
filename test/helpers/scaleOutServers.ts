/**
 * What `npm run bench -- scale-out` stands on: one Postgres (CONFAB_TEST_DATABASE_URL's, or a
 * throwaway one) with pgbouncer in transaction mode in front of it, a database of the run's own for
 * each part of the scenario, and Confab servers as `npm start` runs them — `node build/server/index.js`,
 * each a process of its own on a port of its own with a data folder of its own — told apart only by
 * their environment. Every server's JSON log lines (stderr) are kept, so the benchmark can read what
 * each one said of itself (`server.listening`, `presence.polling`).
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ensureWordVectors, WORD_VECTORS_FILE } from '../../server/memory/wordVectors';
import { adminQuery, urlFor } from '../postgres/template';
import { startPooler, startPostgres, stopPostgres } from '../postgres/throwaway';
import { sparePort } from './sparePort';
import type { Running } from '../postgres/throwaway';

export const ROOT = resolve(import.meta.dirname, '..', '..');

/** How long a server may take from its spawn to `server.listening`, in ms: migrations on a fresh database included. */
const START_PATIENCE_MS = 60_000;
/** How long a server may take to stop after SIGTERM before it is killed, in ms (its grace is set to 0). */
const STOP_PATIENCE_MS = 20_000;

/** Compiles the server as `npm run build:server` does, into build/server/; throws with its output when it fails. */
export function buildServer(): void {
  const built = spawnSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build:server failed (${String(built.status)}): ${built.stderr.trim()}`);
}

/** A Postgres, the pooler in front of it, and the databases made for this run. */
export interface Cluster {
  /** The pooler's URL of `database` (transaction mode): what a server's DATABASE_URL is. */
  pooled(database: string): string;
  /** The direct URL of `database` (a session connection, for LISTEN). */
  direct(database: string): string;
  /** Whether `url` names the pooler. */
  isPooled(url: string): boolean;
  /** Whether the Postgres was made for this run rather than given. */
  throwaway: boolean;
  /** Drops the run's databases, stops the pooler and a throwaway Postgres, removes their folders. */
  stop(): Promise<void>;
}

/** `databases`, made afresh (each name prefixed with the run's own tag) on the given Postgres or a throwaway one, behind pgbouncer. */
export async function startCluster(databases: readonly string[]): Promise<Cluster> {
  const folder = mkdtempSync(join(tmpdir(), 'confab-scale-out-pg-'));
  // Postgres and pgbouncer run as their own user (throwaway.ts), which must reach their folders in it.
  chmodSync(folder, 0o755);
  const given = process.env.CONFAB_TEST_DATABASE_URL ?? '';
  const owned =
    given === ''
      ? await startPostgres(join(folder, 'postgres')).catch((error: unknown) => {
          stopPostgres(join(folder, 'postgres'));
          rmSync(folder, { recursive: true, force: true });
          throw error;
        })
      : undefined;
  const server = owned?.url ?? given;
  const tag = `scale_out_${String(process.pid)}`;
  const made: string[] = [];
  let pooler: Running | undefined;
  const stop = async () => {
    await pooler?.stop();
    for (const name of made) await adminQuery(server, `drop database if exists ${name} with (force)`);
    await owned?.stop();
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    for (const database of databases) {
      const name = `${tag}_${database}`;
      await adminQuery(server, `drop database if exists ${name} with (force)`);
      await adminQuery(server, `create database ${name}`);
      made.push(name);
    }
    pooler = await startPooler(join(folder, 'pooler'), server);
  } catch (error) {
    await stop();
    throw error;
  }
  const poolerUrl = pooler.url;
  return {
    pooled: (database) => urlFor(poolerUrl, `${tag}_${database}`),
    direct: (database) => urlFor(server, `${tag}_${database}`),
    isPooled: (url) => URL.canParse(url) && new URL(url).host === new URL(poolerUrl).host,
    throwaway: owned !== undefined,
    stop,
  };
}

/** One JSON line a server wrote to stderr. */
type LogLine = { event?: unknown } & Record<string, unknown>;

/** A running `node build/server/index.js`. */
export interface Instance {
  name: string;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The id the server keeps in its data folder (`instance`): the start of every lease its worker holds. */
  instanceId: string;
  /** Every JSON line it has logged so far. */
  log: LogLine[];
  /** Ends it with `signal`; resolves once it has exited. SIGKILL is a crash: nothing is let go. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** The variables every server gets: a PATH, and nothing of this shell's Confab or provider settings. */
function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? tmpdir() };
}

/**
 * The `words` embedder's vectors, converted once into `folder` for every server to start with, as a
 * server finds them after its first start (each would otherwise convert its own, some seconds each).
 */
export async function wordVectorsIn(folder: string): Promise<string> {
  const found = await ensureWordVectors(folder, () => undefined);
  if ('why' in found) throw new Error(`The word vectors could not be made: ${found.why}`);
  return join(folder, WORD_VECTORS_FILE);
}

/**
 * Starts a server with `env` over the base, on a spare port of 127.0.0.1, with a data folder of its
 * own (holding `wordVectors` when given); resolves once it listens.
 */
export async function startInstance(name: string, env: Record<string, string>, wordVectors?: string): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), `confab-scale-out-${name}-`));
  if (wordVectors !== undefined) {
    mkdirSync(dirname(join(dataDir, WORD_VECTORS_FILE)), { recursive: true });
    copyFileSync(wordVectors, join(dataDir, WORD_VECTORS_FILE));
  }
  const port = await sparePort();
  const child: ChildProcess = spawn(process.execPath, ['build/server/index.js'], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env, HOST: '127.0.0.1', PORT: String(port), CONFAB_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log: LogLine[] = [];
  const said: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error(`Server ${name} did not listen within ${String(START_PATIENCE_MS)} ms: ${said.join('\n')}`)); }, START_PATIENCE_MS);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`Server ${name} exited before it listened: ${said.join('\n')}`));
    });
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (text) => {
      said.push(text);
      if (said.length > 50) said.shift();
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        return;
      }
      log.push(line);
      if (line.event === 'server.listening') {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const late = setTimeout(() => {
      console.error(JSON.stringify({ event: 'scale-out.stop-late', server: name, signal, waitedMs: STOP_PATIENCE_MS }));
      child.kill('SIGKILL');
    }, STOP_PATIENCE_MS);
    await exited;
    clearTimeout(late);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await listening;
  } catch (error) {
    await stop('SIGKILL');
    throw error;
  }
  return { name, url: `http://127.0.0.1:${String(port)}`, instanceId: readFileSync(join(dataDir, 'instance'), 'utf8').trim(), log, stop };
}
