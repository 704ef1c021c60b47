// `npm start`: builds what is missing or older than its sources — the page (vite) and the server
// (scripts/build-server.mjs) — then runs the compiled server with `node`, in this process's place
// as far as signals go (they are passed on, and its exit code is ours).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time under `paths` (files and folders, recursively), in ms. */
function newest(paths) {
  let latest = 0;
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
    else latest = Math.max(latest, stat.mtimeMs);
  };
  for (const path of paths) visit(path);
  return latest;
}

function stale(output, sources) {
  return !existsSync(output) || statSync(output).mtimeMs < newest(sources);
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const page = process.env.CONFAB_DIST ?? 'dist';
if (stale(join(page, 'index.html'), ['src', 'index.html', 'public', 'vite.config.ts', 'workers', 'models/manifest.json'])) run('npx', ['vite', 'build']);
if (stale('build/server/index.js', ['server', 'common', 'package.json', 'scripts/build-server.mjs'])) run(process.execPath, ['scripts/build-server.mjs']);

const server = spawn(process.execPath, ['--enable-source-maps', 'build/server/index.js', ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 143)));
