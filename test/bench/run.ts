/**
 * `npm run bench -- <name> [--clips DIR] [--load N] [--leaks a,b,c]` runs test/bench/<name>.ts,
 * writes its result to bench-results/<name>.json and prints it as the final line; `--help` lists the
 * benchmarks and options. `npm run bench` alone runs every benchmark in turn, and writes
 * bench-results/summary.md: each headline figure beside its target (test/helpers/benchSummary.ts;
 * a benchmark declares its own by exporting `targets`). One that fails is noted there and the rest
 * still run; the command then exits non-zero.
 * Options (test/helpers/benchOptions.ts) go to every benchmark's `run`; `--clips DIR` plays the
 * recordings in DIR instead of the kept clips, in the benchmarks that play recordings; `--leaks`
 * sets the leak levels of those that play a leak. `--load N` is the runner's own: N busy processes
 * beside each benchmark (test/helpers/benchLoad.ts), and every result records `load` and the
 * 1-minute load average seen while it ran (`loadAverage1m`).
 * Benchmarks, not tests, hold the speed and memory targets: these machines are shared and noisy.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchHelp } from '../helpers/benchHelp';
import { underLoad } from '../helpers/benchLoad';
import { BenchArgsError, parseBenchArgs } from '../helpers/benchOptions';
import type { BenchArgs, BenchOptions } from '../helpers/benchOptions';
import { DECLARED_TARGETS, summaryTable } from '../helpers/benchSummary';
import type { BenchOutcome, BenchTarget } from '../helpers/benchSummary';

export type { BenchTarget } from '../helpers/benchSummary';
export type { BenchOptions } from '../helpers/benchOptions';

export interface BenchResult {
  bench: string;
  [figure: string]: unknown;
}

interface BenchModule {
  run: (options: BenchOptions) => Promise<BenchResult> | BenchResult;
  /** The benchmark's targets, for the summary. */
  targets?: readonly BenchTarget[];
}

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '..', '..', 'bench-results');
/** Targets the benchmarks run so far exported, by name. */
const exported = new Map<string, readonly BenchTarget[]>();

async function available(): Promise<string[]> {
  const files = await readdir(here);
  return files.filter((f) => f.endsWith('.ts') && f !== 'run.ts').map((f) => f.slice(0, -3)).sort();
}

/**
 * Runs `name`'s module with `run`: imported as it is, or — when it drives the page's own modules,
 * which read the words files as Vite serves them (`?raw`, `import.meta.glob`; src/platform/words.ts),
 * so Node cannot import it — through Vite's module loader while it runs, as vitest loads the tests
 * that drive the same modules. Which is which is found by trying, so no list is kept.
 */
async function withBench<T>(name: string, run: (mod: BenchModule) => Promise<T>): Promise<T> {
  const file = join(here, `${name}.ts`);
  let imported: BenchModule | undefined;
  try {
    imported = (await import(pathToFileURL(file).href)) as BenchModule;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw error;
  }
  if (imported !== undefined) return run(imported);
  const { createServer } = await import('vite');
  const vite = await createServer({ configFile: false, root: join(here, '..', '..'), logLevel: 'error', appType: 'custom', server: { middlewareMode: true, hmr: false }, optimizeDeps: { noDiscovery: true } });
  try {
    return await run((await vite.ssrLoadModule(file)) as BenchModule);
  } finally {
    await vite.close();
  }
}

async function runOne(name: string, options: BenchOptions): Promise<BenchResult> {
  const load = options.load ?? 0;
  const { value, loadAverage1m } = await withBench(name, (mod) => {
    if (mod.targets !== undefined) exported.set(name, mod.targets);
    return underLoad(load, () => mod.run(options));
  });
  const result: BenchResult = { ...value, load, loadAverage1m };
  await mkdir(out, { recursive: true });
  await writeFile(join(out, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

function argsOrExit(argv: readonly string[]): BenchArgs {
  try {
    return parseBenchArgs(argv);
  } catch (error) {
    if (!(error instanceof BenchArgsError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}

const names = await available();
const { names: asked, options, help } = argsOrExit(process.argv.slice(2));
if (help) {
  const benches = await Promise.all(names.map(async (name) => ({ name, source: await readFile(join(here, `${name}.ts`), 'utf8') })));
  console.log(benchHelp(benches));
  process.exit(0);
}
const unknown = asked.filter((a) => !names.includes(a));
if (unknown.length > 0) {
  console.error(`No benchmark named ${unknown.join(', ')}. Available: ${names.join(', ')}.`);
  process.exit(2);
}
if (asked.length > 0) {
  for (const name of asked) {
    const result = await runOne(name, options);
    console.log(JSON.stringify(result));
  }
} else {
  const outcomes: BenchOutcome[] = [];
  for (const name of names) {
    try {
      const result = await runOne(name, options);
      console.log(JSON.stringify(result));
      outcomes.push({ name, result });
    } catch (error) {
      console.error(`Benchmark ${name} failed:`, error);
      outcomes.push({ name, error: error instanceof Error ? error.message.split('\n')[0] ?? error.name : String(error) });
    }
  }
  await mkdir(out, { recursive: true });
  await writeFile(join(out, 'summary.md'), summaryTable(outcomes, (name) => exported.get(name) ?? DECLARED_TARGETS[name], new Date()));
  console.error(`Summary: ${join(out, 'summary.md')}`);
  if (outcomes.some((outcome) => 'error' in outcome)) process.exitCode = 1;
}
