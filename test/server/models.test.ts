import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MODEL_VERSIONS, parseManifest, REQUIRED_PATHS, serializeManifest } from '../../common/voice/manifest';
import type { Manifest, ModelFile } from '../../common/voice/manifest';
import type { ModelVersion } from '../../common/voice/text';
import { main } from '../../server/models';
import { listen, unreachableUrl } from './chat/localServers';
import type { Listening } from './chat/localServers';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

/** The "upstream" bytes of every file, by `<version>/<path>`; the v3 vector estimator is large enough to print progress. */
const upstream = new Map<string, Uint8Array>();
for (const version of MODEL_VERSIONS) {
  for (const path of REQUIRED_PATHS) {
    const size = version === 'supertonic-3' && path === 'onnx/vector_estimator.onnx' ? 9_000_000 : 1000 + upstream.size;
    upstream.set(`${version}/${path}`, new Uint8Array(randomBytes(size)));
  }
}

/** Keys served with wrong bytes, keys cut off halfway, keys answered 404, and the commit HEAD reports (none when null). */
const corrupt = new Set<string>();
const truncated = new Set<string>();
const missing = new Set<string>();
let reportedCommit: string | null = COMMIT;
/** Every request as `<METHOD> <url>`. */
const requests: string[] = [];

let server: Listening;
let origin = '';
let closedOrigin = '';
let dir = '';
let manifestPath = '';
let outDir = '';

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `<version>/<path>` of a hub (`/<owner>/<version>/resolve/<rev>/<path>`) or mirror (`/mirror/<version>/<path>`) URL. */
function keyOf(url: string): string | undefined {
  const hub = /^\/Supertone\/([^/]+)\/resolve\/[^/]+\/(.+)$/.exec(url);
  if (hub) return `${hub[1] ?? ''}/${decodeURIComponent(hub[2] ?? '')}`;
  const mirror = /^\/mirror\/([^/]+)\/(.+)$/.exec(url);
  return mirror ? `${mirror[1] ?? ''}/${decodeURIComponent(mirror[2] ?? '')}` : undefined;
}

beforeAll(async () => {
  server = await listen((req, res) => {
    const url = req.url ?? '/';
    requests.push(`${req.method ?? 'GET'} ${url}`);
    const key = keyOf(url);
    const bytes = key === undefined || missing.has(key) ? undefined : upstream.get(key);
    if (bytes === undefined) {
      res.writeHead(404, 'Not Found').end();
      return;
    }
    const body = key !== undefined && corrupt.has(key) ? new Uint8Array(randomBytes(bytes.byteLength)) : bytes;
    res.writeHead(200, {
      'content-length': String(body.byteLength),
      ...(reportedCommit === null ? {} : { 'x-repo-commit': reportedCommit }),
    });
    if (req.method === 'HEAD') res.end();
    else if (key !== undefined && truncated.has(key)) {
      res.write(body.subarray(0, body.byteLength >> 1));
      setTimeout(() => res.destroy(), 30);
    } else res.end(body);
  });
  origin = server.url;
  closedOrigin = await unreachableUrl();
});

afterAll(async () => {
  await server.close();
});

/** A manifest like the real one: everything pinned to the upstream bytes but the v3 weights; revisions on `main`. */
function testManifest(): Manifest {
  const source = (version: ModelVersion) => ({
    version,
    repo: `Supertone/${version}`,
    revision: 'main',
    files: REQUIRED_PATHS.map((path): ModelFile => {
      const bytes = upstream.get(`${version}/${path}`) ?? new Uint8Array();
      return version === 'supertonic-3' && path.endsWith('.onnx')
        ? { path, size: null, sha256: null }
        : { path, size: bytes.byteLength, sha256: sha256(bytes) };
    }),
  });
  return { comment: 'test', default: 'supertonic-3', versions: { 'supertonic-3': source('supertonic-3'), 'supertonic-2': source('supertonic-2') } };
}

beforeEach(async () => {
  corrupt.clear();
  truncated.clear();
  missing.clear();
  reportedCommit = COMMIT;
  requests.length = 0;
  dir = await mkdtemp(join(tmpdir(), 'confab-models-'));
  manifestPath = join(dir, 'manifest.json');
  outDir = join(dir, 'out');
  await writeFile(manifestPath, serializeManifest(testManifest()));
  return () => rm(dir, { recursive: true, force: true });
});

async function run(args: string[], env: Record<string, string | undefined> = {}, hubOrigin = origin) {
  const out: string[] = [];
  const err: string[] = [];
  const status = await main(['--manifest', manifestPath, '--out', outDir, ...args], env, {
    hubOrigin,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

/** Every file under `root`, relative, `/`-separated. */
async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(root.length + 1).split('\\').join('/')).sort();
}

async function expectSameBytes(path: string, expected: Uint8Array | undefined): Promise<void> {
  const got = await readFile(path);
  expect(expected !== undefined && got.equals(expected), path).toBe(true);
}

const gets = () => requests.filter((r) => r.startsWith('GET')).length;

describe('npm run models', () => {
  it('downloads every file of every version into <out>/<version>/<path>, verifying the pinned ones', async () => {
    const { status, out, err } = await run([]);
    expect(err).toBe('');
    expect(status).toBe(0);
    const expected = [...upstream.keys()].sort();
    expect(await listFiles(outDir)).toEqual(expected);
    for (const key of expected) await expectSameBytes(join(outDir, key), upstream.get(key));
    expect(out).toContain('supertonic-3 from Supertone/supertonic-3 at main (a moving branch, not pinned)');
    expect(out).toContain('  onnx/tts.json  0.0 MB, verified');
    expect(out).toContain(`  onnx/vector_estimator.onnx  9.0 MB, NOT verified (unpinned): sha256 ${sha256(upstream.get('supertonic-3/onnx/vector_estimator.onnx') ?? new Uint8Array())}`);
    expect(out).toContain('  onnx/vector_estimator.onnx  10% of 9.0 MB');
    expect(out).toContain('  onnx/vector_estimator.onnx  90% of 9.0 MB');
    expect(out).toContain('supertonic-2: 16 downloaded, 0 already there.');
    expect(out).toContain('4 unpinned file(s) were not verified: supertonic-3/onnx/duration_predictor.onnx');
    expect(out).toContain('run `npm run models -- --pin` to pin them');
    expect(requests.every((r) => r.includes('/resolve/main/'))).toBe(true);
    expect(requests).toHaveLength(32);
  });

  it('skips files already present and valid, and replaces one that is not', async () => {
    await run(['--version', 'supertonic-2']);
    const before = gets();
    const again = await run(['--version', 'supertonic-2']);
    expect(again.status).toBe(0);
    expect(gets()).toBe(before);
    expect(again.out).toContain('supertonic-2: 0 downloaded, 16 already there.');
    expect(again.out).toContain('  voice_styles/F1.json  present and valid');

    const damaged = join(outDir, 'supertonic-2', 'voice_styles', 'F1.json');
    await writeFile(damaged, 'not a voice');
    const repaired = await run(['--version', 'supertonic-2']);
    expect(repaired.out).toContain('  voice_styles/F1.json  present but not the pinned file; downloading again');
    expect(repaired.out).toContain('supertonic-2: 1 downloaded, 15 already there.');
    await expectSameBytes(damaged, upstream.get('supertonic-2/voice_styles/F1.json'));
  });

  it('keeps unpinned files it already has, saying they are not verified', async () => {
    await run(['--version', 'supertonic-3']);
    const again = await run(['--version', 'supertonic-3']);
    expect(again.out).toContain('  onnx/vocoder.onnx  present; not verified (unpinned)');
    expect(again.out).toContain('supertonic-3: 0 downloaded, 16 already there.');
  });

  it('fetches only the versions asked for', async () => {
    const { status } = await run(['--version=supertonic-2']);
    expect(status).toBe(0);
    expect(await readdir(outDir)).toEqual(['supertonic-2']);
    const wrong = await run(['--version', 'supertonic-1']);
    expect(wrong.status).toBe(2);
    expect(wrong.err).toBe('--version is "supertonic-1"; it must be one of supertonic-3, supertonic-2.');
  });

  it('refuses a pinned file the source serves wrong twice, and leaves nothing under its name', async () => {
    corrupt.add('supertonic-2/onnx/vocoder.onnx');
    const { status, err } = await run(['--version', 'supertonic-2']);
    expect(status).toBe(1);
    const pinned = sha256(upstream.get('supertonic-2/onnx/vocoder.onnx') ?? new Uint8Array());
    expect(err).toContain(`Model file onnx/vocoder.onnx from ${origin}/Supertone/supertonic-2/resolve/main/onnx/vocoder.onnx is damaged or not the pinned file: expected sha256 ${pinned}, got `);
    expect(err).toContain('so nothing was written');
    expect(requests.filter((r) => r.endsWith('/onnx/vocoder.onnx'))).toHaveLength(2);
    const files = await listFiles(outDir);
    expect(files).not.toContain('supertonic-2/onnx/vocoder.onnx');
    expect(files.some((f) => f.endsWith('.part'))).toBe(false);
  });

  it('refuses a file whose connection breaks off twice, naming the bytes it got', async () => {
    truncated.add('supertonic-2/onnx/unicode_indexer.json');
    const size = upstream.get('supertonic-2/onnx/unicode_indexer.json')?.byteLength ?? 0;
    const { status, err } = await run(['--version', 'supertonic-2']);
    expect(status).toBe(1);
    expect(err).toContain(`expected ${size.toLocaleString('en-US')} bytes, got ${(size >> 1).toLocaleString('en-US')} bytes (the connection broke off)`);
    expect((await listFiles(outDir)).filter((f) => f.includes('unicode_indexer'))).toEqual([]);
  });

  it('tells the terminal what to do when the hub or the mirror cannot be reached', async () => {
    const closed = await unreachableUrl();
    const hub = await run(['--version', 'supertonic-2'], {}, closed);
    expect(hub.status).toBe(1);
    expect(hub.err).toContain(`Could not reach ${closed.slice('http://'.length)}: `);
    expect(hub.err).toContain('This machine may have no route to the model hub; download on a machine that has one, or point CONFAB_MODEL_BASE (or --base) at a mirror.');
    const mirror = await run(['--version', 'supertonic-2', '--base', `${closed}/mirror/`]);
    expect(mirror.status).toBe(1);
    expect(mirror.err).toContain('Check that the mirror is up and that --base or CONFAB_MODEL_BASE names it.');
  });

  it('downloads from a mirror named by --base or CONFAB_MODEL_BASE', async () => {
    const byFlag = await run(['--version', 'supertonic-2', '--base', `${origin}/mirror/`]);
    expect(byFlag.status).toBe(0);
    expect(byFlag.out).toContain(`supertonic-2 from ${origin}/mirror into`);
    expect(requests.every((r) => r.startsWith('GET /mirror/supertonic-2/'))).toBe(true);

    await rm(outDir, { recursive: true });
    requests.length = 0;
    const byEnv = await run(['--version', 'supertonic-2'], { CONFAB_MODEL_BASE: `${origin}/mirror` });
    expect(byEnv.status).toBe(0);
    expect(requests).toHaveLength(16);
    expect(requests.every((r) => r.startsWith('GET /mirror/'))).toBe(true);
  });

  it('pins unpinned files and the revision from a real download at the commit the hub reports', async () => {
    const { status, out } = await run(['--pin']);
    expect(status).toBe(0);
    expect(out).toContain(`supertonic-3: "main" is commit ${COMMIT} on the hub.`);
    expect(out).toContain(`Wrote the pins to ${manifestPath}.`);
    expect(requests.filter((r) => r.startsWith('HEAD'))).toHaveLength(2);
    expect(requests.filter((r) => r.startsWith('GET')).every((r) => r.includes(`/resolve/${COMMIT}/`))).toBe(true);

    const pinned = parseManifest(JSON.parse(await readFile(manifestPath, 'utf8')));
    expect(pinned.comment).toBe('test');
    for (const version of MODEL_VERSIONS) {
      expect(pinned.versions[version].revision).toBe(COMMIT);
      for (const file of pinned.versions[version].files) {
        const bytes = upstream.get(`${version}/${file.path}`) ?? new Uint8Array();
        expect(file).toEqual({ path: file.path, size: bytes.byteLength, sha256: sha256(bytes) });
      }
    }

    const again = await run(['--pin']);
    expect(again.out).toContain('was already pinned; unchanged.');
    expect(again.out).toContain('supertonic-3: 0 downloaded, 16 already there.');
  });

  it('pins the files but keeps a moving revision, and says so, when the hub reports no commit', async () => {
    reportedCommit = null;
    const { status, out } = await run(['--pin', '--version', 'supertonic-3']);
    expect(status).toBe(0);
    expect(out).toContain('supertonic-3: the hub did not report which commit "main" is; the revision stays "main" (not pinned).');
    const pinned = parseManifest(JSON.parse(await readFile(manifestPath, 'utf8')));
    expect(pinned.versions['supertonic-3'].revision).toBe('main');
    expect(pinned.versions['supertonic-3'].files.every((f) => f.sha256 !== null)).toBe(true);
    expect(pinned.versions['supertonic-2']).toEqual(testManifest().versions['supertonic-2']);
  });

  it('does not pin when a pinned file differs at the resolved commit, and says how to re-pin it', async () => {
    corrupt.add('supertonic-2/onnx/tts.json');
    const before = await readFile(manifestPath, 'utf8');
    const { status, err } = await run(['--pin']);
    expect(status).toBe(1);
    expect(err).toContain('Model file onnx/tts.json');
    expect(err).toContain('set its size and sha256 to null in the manifest and run `npm run models -- --pin`');
    expect(await readFile(manifestPath, 'utf8')).toBe(before);
  });

  it('pins only from the hub', async () => {
    const { status, err } = await run(['--pin', '--base', `${origin}/mirror`]);
    expect(status).toBe(2);
    expect(err).toContain('--pin measures files from the hub');
    expect(requests).toEqual([]);
  });

  it('says plainly when the hub cannot be reached, and fails', async () => {
    const { status, err, out } = await run(['--version', 'supertonic-3'], {}, closedOrigin);
    expect(status).toBe(1);
    expect(err).toMatch(new RegExp(`^Could not reach ${closedOrigin.slice('http://'.length)}: fetch failed \\(.*ECONNREFUSED`));
    expect(err).toContain(
      'This machine may have no route to the model hub; download on a machine that has one, or point CONFAB_MODEL_BASE (or --base) at a mirror.',
    );
    expect(out).not.toContain('downloaded');
    const pin = await run(['--pin'], {}, closedOrigin);
    expect(pin.status).toBe(1);
    expect(pin.err).toContain('no route to the model hub');
  });

  it('says when a mirror cannot be reached, or lacks a file', async () => {
    const down = await run(['--base', `${closedOrigin}/models`]);
    expect(down.status).toBe(1);
    expect(down.err).toContain('Check that the mirror is up and that --base or CONFAB_MODEL_BASE names it.');

    missing.add('supertonic-2/voice_styles/M3.json');
    const gap = await run(['--version', 'supertonic-2', '--base', `${origin}/mirror`]);
    expect(gap.status).toBe(1);
    expect(gap.err).toBe(
      `Could not download ${origin}/mirror/supertonic-2/voice_styles/M3.json: HTTP 404 Not Found. The file is not at that address: a mirror may not hold this version yet (run \`npm run models\` where it is served), or the manifest names the wrong repo or revision.`,
    );
  });

  it('refuses a bad command line, setting or manifest with what to fix', async () => {
    expect((await run(['--base', '/models'])).err).toContain('--base is "/models"; set it to an http(s) URL where');
    expect((await run([], { CONFAB_MODEL_BASE: 'models' })).status).toBe(2);
    expect((await run(['--frobnicate'])).err).toContain('Unknown argument "--frobnicate".\nUsage: npm run models');
    expect((await run(['--base'])).err).toContain('--base needs a value.');
    const help = await run(['--help']);
    expect(help.status).toBe(0);
    expect(help.out).toContain('--pin ');

    await writeFile(manifestPath, '{ "default": ');
    const broken = await run([]);
    expect(broken.status).toBe(1);
    expect(broken.err).toContain(`${manifestPath} is not valid JSON`);
    await writeFile(manifestPath, '{}');
    expect((await run([])).err).toContain(`${manifestPath}: default must be one of supertonic-3, supertonic-2; it is missing.`);
    await rm(manifestPath);
    expect((await run([])).err).toContain(`Could not read the manifest ${manifestPath}`);
  });
});
