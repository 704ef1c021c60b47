/**
 * `npm run bench -- <name>` runs test/bench/<name>.ts, writes its result to bench-results/<name>.json
 * and prints it as the final line. `npm run bench` alone runs every benchmark in turn.
 * Benchmarks, not tests, hold the speed and memory targets: these machines are shared and noisy.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface BenchResult {
  bench: string;
  [figure: string]: unknown;
}

interface BenchModule {
  run: () => Promise<BenchResult> | BenchResult;
}

const here = dirname(fileURLToPath(import.meta.url));

async function available(): Promise<string[]> {
  const files = await readdir(here);
  return files.filter((f) => f.endsWith('.ts') && f !== 'run.ts').map((f) => f.slice(0, -3)).sort();
}

async function runOne(name: string): Promise<BenchResult> {
  const mod = (await import(pathToFileURL(join(here, `${name}.ts`)).href)) as BenchModule;
  const result = await mod.run();
  const out = join(here, '..', '..', 'bench-results');
  await mkdir(out, { recursive: true });
  await writeFile(join(out, `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}

const names = await available();
const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = asked.filter((a) => !names.includes(a));
if (unknown.length > 0) {
  console.error(`No benchmark named ${unknown.join(', ')}. Available: ${names.join(', ')}.`);
  process.exit(2);
}
for (const name of asked.length > 0 ? asked : names) {
  const result = await runOne(name);
  console.log(JSON.stringify(result));
}
