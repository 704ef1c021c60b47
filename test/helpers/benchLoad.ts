/**
 * A busy machine for `npm run bench -- NAME --load N`: N processes that each spin one core, beside
 * whatever the benchmark runs, and what the machine's 1-minute load average was meanwhile.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';

/** How often the load average is read while the load runs, in ms (the kernel updates it every 5 s). */
const SAMPLE_EVERY_MS = 5000;

/**
 * One busy process: spins forever, and ends itself once its parent is gone (its parent id
 * changes), so a runner killed outright leaves no core spinning. The check is rare enough to cost
 * nothing against the spinning.
 */
const SPIN = 'const parent = process.ppid; for (let i = 1; ; i++) if (i % 50_000_000 === 0 && process.ppid !== parent) process.exit(0);';

/** The 1-minute load average read while the load ran: its mean and its highest, two decimals. */
export interface LoadSeen {
  mean: number;
  max: number;
}

const twoPlaces = (value: number) => Number(value.toFixed(2));

/**
 * Runs `work` with `processes` busy processes (none for 0) beside it, started before it and ended
 * after it whether it succeeds or throws; answers its value and the load average seen meanwhile.
 */
export async function underLoad<T>(processes: number, work: () => Promise<T> | T): Promise<{ value: T; loadAverage1m: LoadSeen }> {
  const load = startLoad(processes);
  try {
    const value = await work();
    return { value, loadAverage1m: load.stop() };
  } finally {
    load.stop();
  }
}

function startLoad(processes: number): { stop(): LoadSeen } {
  const children: ChildProcess[] = Array.from({ length: processes }, () => spawn(process.execPath, ['-e', SPIN], { stdio: 'ignore' }));
  const samples = [loadavg()[0] ?? 0];
  const timer = setInterval(() => samples.push(loadavg()[0] ?? 0), SAMPLE_EVERY_MS);
  timer.unref();
  // Ends them even when the runner exits without reaching `stop` (an uncaught error, process.exit).
  const killAll = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killAll);
  let seen: LoadSeen | null = null;
  return {
    stop() {
      if (seen !== null) return seen;
      clearInterval(timer);
      samples.push(loadavg()[0] ?? 0);
      killAll();
      process.off('exit', killAll);
      seen = { mean: twoPlaces(samples.reduce((a, b) => a + b, 0) / samples.length), max: twoPlaces(Math.max(...samples)) };
      return seen;
    },
  };
}
