/**
 * A run worker in a process of its own, over a database it reaches by URL (a real Postgres, or
 * PGlite served by pglite-socket), so a test or a bench can kill it with SIGKILL — no `finally`,
 * no last write — and watch another process's worker take its runs over.
 *
 * The child (`test/helpers/runWorkerChild.ts`) prints each of its worker's events as one JSON line.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { RunEvent } from '../../server/runs/worker';

const CHILD = fileURLToPath(new URL('./runWorkerChild.ts', import.meta.url));

export interface WorkerProcessOptions {
  /** The database the child opens. */
  url: string;
  /** Its worker's name on the leases it holds. */
  owner: string;
  leaseMs: number;
  concurrency: number;
  /** Each event, as the child wrote it (its `atMs` from the child's clock, one machine). */
  onEvent: (event: RunEvent) => void;
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** As if the machine lost power: SIGKILL, resolved once the process is gone. */
  kill(): Promise<void>;
  /** Asks it to stop between steps (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

export function startWorkerProcess(options: WorkerProcessOptions): WorkerProcess {
  // Node itself with tsx's loader, not the tsx command: that one is a parent of its own, and a
  // SIGKILL to it would leave its child working.
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, RUNS_URL: options.url, RUNS_OWNER: options.owner, RUNS_LEASE_MS: String(options.leaseMs), RUNS_CONCURRENCY: String(options.concurrency) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve(); }));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    if (line.startsWith('{')) options.onEvent(JSON.parse(line) as RunEvent);
  });
  return {
    child,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
