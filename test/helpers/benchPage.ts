/**
 * What the browser benchmarks and the README's screenshots stand on: a build of the page of their own, the real server composed
 * in-process (createBackend + createApp over an in-memory PGlite, as server/index.ts composes it)
 * serving that build and a model mirror, and Debian's Chromium launched as the browser tests launch
 * it, with a silent fake microphone. Everything lives in a folder of the benchmark's own outside
 * test-results and e2e-build, which a Playwright run elsewhere empties or rebuilds.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from '@playwright/test';
import type { Browser } from '@playwright/test';
import config from '../../playwright.config';
import type { Bot } from '../../server/bots';
import type { PriceTable } from '../../server/chat/prices';
import type { Provider } from '../../server/chat/upstream';
import { readConfig } from '../../server/config';
import type { Database } from '../../server/db/database';
import { openDatabase } from '../../server/db/database';
import { readPersonMode } from '../../server/person';
import { createRegistry, loadApps } from '../../server/verbs/registry';
import { writeSilence } from '../e2e/page/micFiles';
import { layTinyModels } from '../e2e/tinyModels';
import { serveApp } from '../server/chat/localServers';
import { testBackend } from './testBackend';

export const ROOT = resolve(import.meta.dirname, '..', '..');

/** A folder of the benchmark's own, removed by `dispose`. */
export interface BenchFolder {
  path: string;
  dispose: () => void;
}

export function benchFolder(name: string): BenchFolder {
  const path = mkdtempSync(join(tmpdir(), `confab-${name}-`));
  return {
    path,
    dispose: () => {
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/**
 * Builds the page into `outDir`: `product` is exactly `vite build` (what `npm start` serves);
 * `e2e` is the browser tests' build (`vite build --mode e2e`: the product page, the harness pages,
 * and a worker that accepts the tiny stand-in graphs).
 */
export function buildPage(outDir: string, kind: 'product' | 'e2e'): void {
  const args = kind === 'e2e' ? ['vite', 'build', '--mode', 'e2e', '--logLevel', 'error'] : ['vite', 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'];
  execFileSync('npx', args, { cwd: ROOT, env: { ...process.env, E2E_DIST: outDir }, stdio: ['ignore', 'ignore', 'inherit'] });
}

export interface BenchServerOptions {
  /** The built page to serve. */
  dist: string;
  bots: ReadonlyMap<string, Bot>;
  /** Language models behind the door; none: the stand-in answers. */
  providers?: readonly Provider[];
  prices?: PriceTable;
  /** Where the tiny voice is laid out; none: no model files (the voice cannot start). */
  models?: string;
  /** Supabase mode against this project (the tests' stand-in for Supabase Auth); none: local mode. */
  supabase?: { url: string; anonKey: string; jwtSecret: string };
  /**
   * Runs this instance's run worker and schedules, as `npm start` does, the stand-in pacing a
   * scripted run's model step by `scriptedStepMs` (default: the server's own). Default: not run.
   */
  runs?: boolean | { scriptedStepMs: number };
}

export interface BenchServer {
  url: string;
  /** The server's database, for a benchmark that reads what happened. */
  db: Database;
  close: () => Promise<void>;
}

/** The real server over an in-memory database, on an ephemeral port. */
export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  const env = {
    CONFAB_DIST: options.dist,
    CONFAB_MODEL_BASE: '/models',
    ...(options.models === undefined ? {} : { CONFAB_MODELS_DIR: options.models }),
    ...(options.supabase === undefined ? {} : { SUPABASE_URL: options.supabase.url, SUPABASE_ANON_KEY: options.supabase.anonKey }),
  };
  const providers = options.providers ?? [];
  const db = await openDatabase({ dataDir: 'memory://' });
  const { api, app } = testBackend(db, {
    config: readConfig(env, ROOT),
    bots: options.bots,
    ...(options.supabase === undefined ? {} : { personMode: readPersonMode({ SUPABASE_URL: options.supabase.url, SUPABASE_JWT_SECRET: options.supabase.jwtSecret }) }),
    providers,
    live: providers.length > 0,
    ...(options.prices === undefined ? {} : { prices: options.prices }),
    registry: createRegistry(await loadApps()),
    ...(typeof options.runs === 'object' ? { runs: options.runs } : {}),
  });
  await api.presence.start();
  if (options.runs !== undefined && options.runs !== false) api.runs.start();
  const server = await serveApp(app);
  return {
    url: server.url,
    db,
    close: async () => {
      await api.runs.stop();
      await api.presence.close();
      await server.close();
      await db.close();
    },
  };
}

/** The tiny stand-in voice graphs under Supertonic 3's names, laid out in `dir` (see test/e2e/tinyModels.ts). */
export function tinyVoice(dir: string): string {
  layTinyModels(dir);
  return dir;
}

/** Chromium as the browser tests launch it, its microphone a silent WAV in `folder`. */
export async function launchChromium(folder: string): Promise<Browser> {
  const launch = config.use?.launchOptions;
  mkdirSync(folder, { recursive: true });
  return chromium.launch({
    executablePath: launch?.executablePath ?? '/usr/bin/chromium',
    args: [...(launch?.args ?? []), `--use-file-for-fake-audio-capture=${writeSilence(join(folder, 'silence.wav'))}`],
  });
}

/**
 * The benchmarks run under tsx, whose esbuild names functions with a `__name` helper; a function
 * serialised into the page (the fake recogniser) would call it there. The page gets one.
 */
export const NAME_HELPER = 'globalThis.__name = (target) => target;';
