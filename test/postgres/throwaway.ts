/**
 * A throwaway Postgres (Debian's, with pgvector installed) and a pgbouncer in transaction mode in
 * front of it, for the Postgres run of the tests and `npm run bench -- scale-out`: a cluster made
 * in a folder of its own, on a spare port, as an unprivileged user (Postgres refuses to run as
 * root), and removed when stopped.
 *
 * As a command, for .ci/run: `tsx test/postgres/throwaway.ts start DIR` prints the cluster's URL;
 * `… stop DIR` stops it.
 */
import { spawn, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { sparePort } from '../helpers/sparePort';

export interface Running {
  url: string;
  stop(): Promise<void>;
}

/** Debian keeps each major version's programs apart; the newest installed is used. */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions[0] === undefined) throw new Error('No Postgres here: install Debian\'s postgresql-15 and build pgvector (see .ci/run).');
  return join(root, versions[0], 'bin');
}

const asRoot = process.getuid?.() === 0;

/** `command` as the unprivileged `postgres` user when this is root, as it is in CI. */
function unprivileged(command: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function run(command: string, args: string[]): void {
  const [file, argv] = unprivileged(command, args);
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
}

function ownFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
}

/** Starts a cluster in `dir` (made if missing); its URL names the `postgres` database as the trusted user `confab`. */
export async function startPostgres(dir: string): Promise<Running> {
  const bin = postgresBin();
  ownFolder(dir);
  const data = join(dir, 'data');
  run(join(bin, 'initdb'), ['-D', data, '-U', 'confab', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const port = await sparePort();
  run(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'postgres.log'), '-w', '-o', `-p ${String(port)} -k ${dir} -c listen_addresses=127.0.0.1`, 'start']);
  return { url: `postgres://confab@127.0.0.1:${String(port)}/postgres`, stop: () => {
      stopPostgres(dir);
      return Promise.resolve();
    } };
}

export function stopPostgres(dir: string): void {
  if (existsSync(join(dir, 'data', 'postmaster.pid'))) run(join(postgresBin(), 'pg_ctl'), ['-D', join(dir, 'data'), '-m', 'fast', '-w', 'stop']);
  rmSync(dir, { recursive: true, force: true });
}

/** pgbouncer in transaction mode (as Supabase's port 6543 is) in front of `target`, for every database on it. */
export async function startPooler(dir: string, target: string): Promise<Running> {
  ownFolder(dir);
  const to = new URL(target);
  const port = await sparePort();
  const user = decodeURIComponent(to.username);
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${to.hostname} port=${to.port}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${String(port)}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 500',
      'default_pool_size = 20',
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  const [file, argv] = unprivileged('pgbouncer', [join(dir, 'pgbouncer.ini')]);
  const child = spawn(file, argv, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let said = '';
  child.stderr.on('data', (chunk: Buffer) => {
    said += chunk.toString();
  });
  const exited = new Promise<never>((_, reject) => child.on('exit', (code) => { reject(new Error(`pgbouncer exited (${String(code)}): ${said.trim()}`)); }));
  await Promise.race([untilAccepting(port), exited]);
  const url = new URL(target);
  url.port = String(port);
  return {
    url: url.toString(),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) { resolve(); return; }
        child.removeAllListeners('exit');
        child.on('exit', () => { resolve(); });
        process.kill(-(child.pid ?? 0), 'SIGTERM');
      }),
  };
}

async function untilAccepting(port: number): Promise<void> {
  for (let tries = 0; tries < 100; tries++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => { resolve(false); });
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Nothing answered on port ${String(port)}.`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [what, dir] = process.argv.slice(2);
  if (dir === undefined || (what !== 'start' && what !== 'stop')) {
    console.error('usage: tsx test/postgres/throwaway.ts start|stop DIR');
    process.exit(2);
  }
  if (what === 'start') console.log((await startPostgres(dir)).url);
  else stopPostgres(dir);
}
