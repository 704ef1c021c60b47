/**
 * The real server as the browser tests' shared one is started (playwright.config.ts's webServer:
 * `tsx server/index.ts` with its env), serving the e2e build and a tiny model mirror, on a port of
 * its own so it never meets the Playwright run's server.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import config from '../../playwright.config';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** How long the server may take to answer its health check on a busy 2-core machine, in ms. */
const START_PATIENCE_MS = 60_000;
const POLL_MS = 250;

/** The shared webServer's environment: where the e2e build is, the person limit, the model base. */
function sharedServerEnv(): Record<string, string> {
  const server = config.webServer;
  const one = Array.isArray(server) ? server[0] : server;
  if (one?.env === undefined) throw new Error('playwright.config.ts has no webServer env to copy the build and model folders from.');
  return one.env;
}

export interface ConfabProcess {
  origin: string;
  /** Stops the server and waits until it has exited. */
  close: () => Promise<void>;
}

export interface ConfabProcessOptions {
  port: number;
  /** The tiny model mirror the server serves at /models. */
  modelsDir: string;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => {
      done();
    });
  });
}

async function healthy(origin: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_PATIENCE_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The server exited with code ${String(child.exitCode)} before it listened at ${origin}; its output is above.`);
    try {
      if ((await fetch(`${origin}/api/health`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((wait) => setTimeout(wait, POLL_MS));
  }
  throw new Error(`The server did not answer ${origin}/api/health within ${String(START_PATIENCE_MS / 1000)} s.`);
}

/** Starts `tsx server/index.ts` over the e2e build (made by `vite build --mode e2e`) and waits until it is healthy. */
export async function startConfabProcess({ port, modelsDir }: ConfabProcessOptions): Promise<ConfabProcess> {
  const env = sharedServerEnv();
  const dist = resolve(ROOT, env.CONFAB_DIST ?? 'e2e-build/dist');
  if (!existsSync(join(dist, 'index.html'))) {
    throw new Error(`There is no e2e build at ${dist}: run \`npx vite build --mode e2e\` first (\`npm run test:e2e\` does).`);
  }
  const origin = `http://127.0.0.1:${String(port)}`;
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['server/index.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      // One folder per port, as the shared server has: never the developer's `.data`, nor the Playwright run's.
      CONFAB_DATA_DIR: `.data/e2e-${String(port)}`,
      CONFAB_MODELS_DIR: modelsDir,
      // Nothing is left under way when the test ends.
      CONFAB_STOP_GRACE_S: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const close = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  try {
    await healthy(origin, child);
  } catch (error) {
    await close();
    throw error;
  }
  return { origin, close };
}
