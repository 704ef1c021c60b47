// Compiles the server for `node`: one ES module bundle per entry (the server, the MCP stdio bridge,
// and each app in server/apps/, which the registry finds as folders), shared code split into common
// chunks so a class is one class everywhere (instanceof holds across apps and the executor), every
// npm package left external (installed with `npm ci --omit=dev`), and the SQL migrations copied
// beside the bundle, as are the apps' words files and everything in server/apps/ that is not
// TypeScript (the one-file apps, `<app>.md`, and the specs they name), so the compiled server finds
// the apps the source does. Output: build/server/. tsx stays for development.
import { cpSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

// `--out <dir>` builds elsewhere (inside the project, so its node_modules still resolve).
const at = process.argv.indexOf('--out');
const out = at === -1 ? 'build/server' : process.argv[at + 1];
const apps = readdirSync('server/apps', { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join('server/apps', entry.name, 'index.ts')))
  .map((entry) => join('server/apps', entry.name, 'index.ts'));

rmSync(out, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: ['server/index.ts', 'server/mcp/stdio.ts', ...apps],
  outbase: 'server',
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  // A CommonJS package imported from an ES module bundle needs `require`.
  banner: { js: "import { createRequire as __confabRequire } from 'node:module'; const require = __confabRequire(import.meta.url);" },
  metafile: true,
});
// An app's index must stay in its own bundle: one that other server code imports is moved into a
// shared chunk, where `import.meta.url` is chunks/ and its words are not found at start.
for (const entry of apps) {
  const own = Object.values(metafile.outputs).find((output) => output.entryPoint === entry);
  if (own?.inputs[entry] === undefined) {
    const importers = Object.entries(metafile.inputs).filter(([, input]) => input.imports.some((imported) => imported.path === entry)).map(([path]) => path);
    console.error(`${entry} is imported by ${importers.join(', ')}, so its bundle cannot find its words; import what is shared from a module of its own instead.`);
    // No build is left behind to be taken for a good one.
    rmSync(out, { recursive: true, force: true });
    process.exit(1);
  }
}
cpSync('server/db/migrations', join(out, 'db', 'migrations'), { recursive: true });
// An app's words (`words/<lang>.md`), read beside its bundle as beside its source.
for (const entry of apps) {
  const words = join(entry, '..', 'words');
  if (existsSync(words)) cpSync(words, join(out, 'apps', words.split('/').at(-2), 'words'), { recursive: true });
}
// One-file apps and what they name (a spec beside them, a folder of specs), as they are.
const copied = readdirSync('server/apps', { withFileTypes: true }).filter((entry) =>
  entry.isDirectory() ? !existsSync(join('server/apps', entry.name, 'index.ts')) : !entry.name.endsWith('.ts'),
);
for (const entry of copied) cpSync(join('server/apps', entry.name), join(out, 'apps', entry.name), { recursive: true });
console.error(JSON.stringify({ event: 'server.built', out, apps: apps.length, copied: copied.length }));
