/**
 * How much JavaScript a person's browser fetches before the voice engine starts, and how much the
 * page has in all, gzipped (as a server or CDN sends it).
 *
 * The product build (`vite build`, exactly what `npm start` serves) served by the real server
 * (test/helpers/benchPage.ts); Chromium opens `/voice/demo` (Sage, whose voice is made on the
 * device, so the page starts its engine as soon as it has the bot). The engine starting is the
 * worker being made (`new Worker`, marked on the page's clock); `initialJsGzipKB` is every script
 * the page had asked for by then (its resource timings), each gzipped at level 9 from the build on
 * disk. The service worker's own scripts are fetched by the service worker, not the page, and are
 * not counted. `totalJsGzipKB` is every `.js` file in the build: the page, the voice worker and its
 * onnxruntime builds, the AudioWorklet, the service worker. Target: at most 150 KB before the voice
 * engine starts.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadBots } from '../../server/bots';
import { NAME_HELPER, ROOT, benchFolder, buildPage, launchChromium, startBenchServer } from '../helpers/benchPage';
import type { BenchTarget } from '../helpers/benchSummary';

const TARGET_INITIAL_KB = 150;
const PATIENCE_MS = 60_000;

export const targets: BenchTarget[] = [{ figure: 'initialJsGzipKB', atMost: TARGET_INITIAL_KB, what: 'JavaScript fetched before the voice engine starts, gzipped' }];

/** Marks when the page makes its first worker, on its own clock. A plain string: nothing of tsx's reaches the page. */
const MARK_WORKER = `(() => {
  const PageWorker = window.Worker;
  window.engineStartedAt = null;
  window.Worker = class extends PageWorker {
    constructor(...args) {
      if (window.engineStartedAt === null) window.engineStartedAt = performance.now();
      super(...args);
    }
  };
})();`;

function gzipKB(bytes: Buffer): number {
  return gzipSync(bytes, { level: 9 }).length / 1024;
}

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

const round = (kb: number) => Number(kb.toFixed(1));

export async function run(): Promise<{ bench: 'bundle'; initialJsGzipKB: number; totalJsGzipKB: number; [figure: string]: unknown }> {
  const work = benchFolder('bundle');
  try {
    const dist = join(work.path, 'dist');
    buildPage(dist, 'product');
    const server = await startBenchServer({ dist, bots: await loadBots(join(ROOT, 'bots')) });
    const browser = await launchChromium(join(work.path, 'mic'));
    try {
      const page = await browser.newPage();
      await page.addInitScript(NAME_HELPER);
      await page.addInitScript(MARK_WORKER);
      await page.goto(new URL('/voice/demo', server.url).href);
      await page.waitForFunction(() => (window as unknown as { engineStartedAt: number | null }).engineStartedAt !== null, undefined, { timeout: PATIENCE_MS });
      const fetched = await page.evaluate(() => {
        const startedAt = (window as unknown as { engineStartedAt: number }).engineStartedAt;
        return performance
          .getEntriesByType('resource')
          .filter((entry) => entry.startTime <= startedAt && new URL(entry.name).pathname.endsWith('.js'))
          .map((entry) => new URL(entry.name).pathname);
      });
      const initial = [...new Set(fetched)].map((path) => {
        const kb = gzipKB(readFileSync(join(dist, path)));
        return { path, gzipKB: round(kb), exactKB: kb };
      });
      const everyScript = allFiles(dist)
        .filter((file) => file.endsWith('.js'))
        .map((file) => {
          const kb = gzipKB(readFileSync(file));
          return { path: `/${relative(dist, file)}`, gzipKB: round(kb), exactKB: kb };
        })
        .sort((a, b) => b.exactKB - a.exactKB);
      const sum = (files: readonly { exactKB: number }[]) => round(files.reduce((total, file) => total + file.exactKB, 0));
      return {
        bench: 'bundle',
        initialJsGzipKB: sum(initial),
        totalJsGzipKB: sum(everyScript),
        targetInitialJsGzipKB: TARGET_INITIAL_KB,
        initial: initial.map(({ path, gzipKB }) => ({ path, gzipKB })),
        files: everyScript.map(({ path, gzipKB }) => ({ path, gzipKB })),
      };
    } finally {
      await browser.close();
      await server.close();
    }
  } finally {
    work.dispose();
  }
}
