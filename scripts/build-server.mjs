// Compiles the server for `node`: one ES module bundle per entry (the server, the MCP stdio bridge,
// and each app in server/apps/, which the registry finds as folders), shared code split into common
// chunks so a class is one class everywhere (instanceof holds across apps and the executor), every
// npm package left external (installed with `npm ci --omit=dev`), and the SQL migrations copied
// beside the bundle, as are the apps' words files. Output: build/server/. tsx stays for development.
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
await build({
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
});
cpSync('server/db/migrations', join(out, 'db', 'migrations'), { recursive: true });
// An app's words (`words/<lang>.md`), read beside its bundle as beside its source.
for (const entry of apps) {
  const words = join(entry, '..', 'words');
  if (existsSync(words)) cpSync(words, join(out, 'apps', words.split('/').at(-2), 'words'), { recursive: true });
}
console.error(JSON.stringify({ event: 'server.built', out, apps: apps.length }));
