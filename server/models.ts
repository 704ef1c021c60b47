/**
 * `npm run models`: downloads the voice model for self-hosting, into `models/<version>/<path>` —
 * the layout a mirror base (`CONFAB_MODEL_BASE`) serves.
 *
 *   npm run models                              every version in models/manifest.json, from the hub
 *   npm run models -- --version supertonic-3    one version (repeatable)
 *   npm run models -- --base <url>              from a mirror instead (or env CONFAB_MODEL_BASE)
 *   npm run models -- --pin                     measure unpinned files and write their pins
 *   options: --manifest <file> (default models/manifest.json), --out <dir> (default models)
 *
 * Every pinned file is verified (size, then SHA-256) and refused on a mismatch after one retry; a
 * file already present and valid is skipped; each file is written to a temporary name and renamed
 * into place, so an interrupted run never leaves a half file under the real name. Unpinned files
 * are downloaded and reported as not verified.
 *
 * `--pin` (hub only: the hub is the source of truth) first asks the hub which commit the manifest's
 * revision points at — best effort, from the `x-repo-commit` header the hub sends on a file, with
 * redirects not followed — then downloads every file of the version from that commit, verifies the
 * pinned ones, and writes the measured size and SHA-256 of the unpinned ones, and the commit, into
 * the manifest. When the hub reports no commit the revision stays a moving branch and says so.
 *
 * Exit status: 0 done, 1 a download or file failed (the message says what to do), 2 a bad
 * command line or setting.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  compareFile,
  fileUrl,
  isModelVersion,
  isPinned,
  isRevisionPinned,
  MODEL_VERSIONS,
  ModelBaseError,
  ModelDownloadError,
  ModelFileError,
  ModelManifestError,
  parseManifest,
  parseModelBase,
  serializeManifest,
} from '../common/voice/manifest';
import type { Manifest, Measured, Mismatch, ModelBase, ModelFile, ModelSource } from '../common/voice/manifest';
import type { ModelVersion } from '../common/voice/text';

export interface ModelsDeps {
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Progress and results, one line each. Default stdout. */
  out?: (line: string) => void;
  /** Failures, one line each. Default stderr. */
  err?: (line: string) => void;
  /** Origin of the hub when no mirror is chosen. Default `https://huggingface.co`. */
  hubOrigin?: string;
  /** Where relative `--manifest` and `--out` resolve. Default the working directory. */
  cwd?: string;
}

interface Options {
  versions: readonly ModelVersion[] | null;
  base: string | undefined;
  baseName: string;
  pin: boolean;
  manifestPath: string;
  outDir: string;
  help: boolean;
}

/** A command line a person must fix; exit status 2. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

const USAGE = [
  'Usage: npm run models -- [--version <name>]… [--base <url>] [--pin] [--manifest <file>] [--out <dir>]',
  '  --version  a model version to fetch (repeatable); default: all of them',
  '  --base     a mirror laid out as <url>/<version>/<path>; default: env CONFAB_MODEL_BASE, else the hub',
  '  --pin      measure unpinned files from the hub and write their size, sha256 and commit to the manifest',
  '  --manifest the manifest to read (and, with --pin, rewrite); default models/manifest.json',
  '  --out      where files go, as <out>/<version>/<path>; default models',
].join('\n');

function parseArgs(argv: readonly string[], env: Record<string, string | undefined>, cwd: string): Options {
  const versions: ModelVersion[] = [];
  let base: string | undefined;
  let pin = false;
  let help = false;
  let manifestPath = 'models/manifest.json';
  let outDir = 'models';
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    const [flag = '', inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${flag} needs a value.\n${USAGE}`);
      i += 1;
      return next;
    };
    if (flag === '--version') {
      const version = value();
      if (!isModelVersion(version)) throw new UsageError(`--version is "${version}"; it must be one of ${MODEL_VERSIONS.join(', ')}.`);
      if (!versions.includes(version)) versions.push(version);
    } else if (flag === '--base') base = value();
    else if (flag === '--manifest') manifestPath = value();
    else if (flag === '--out') outDir = value();
    else if (flag === '--pin' && inline === undefined) pin = true;
    else if ((flag === '--help' || flag === '-h') && inline === undefined) help = true;
    else throw new UsageError(`Unknown argument "${arg}".\n${USAGE}`);
  }
  return {
    versions: versions.length > 0 ? versions : null,
    base: base ?? env.CONFAB_MODEL_BASE,
    baseName: base === undefined ? 'CONFAB_MODEL_BASE' : '--base',
    pin,
    manifestPath: resolve(cwd, manifestPath),
    outDir: resolve(cwd, outDir),
    help,
  };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** The source could not be reached at all: what the operator can do depends on where it is. */
function unreachable(url: string, cause: unknown, base: ModelBase): ModelDownloadError {
  return new ModelDownloadError(
    url,
    null,
    base.kind === 'hub'
      ? 'This machine may have no route to the model hub; download on a machine that has one, or point CONFAB_MODEL_BASE (or --base) at a mirror.'
      : 'Check that the mirror is up and that --base or CONFAB_MODEL_BASE names it.',
    { cause },
  );
}

async function measureFile(path: string): Promise<Measured> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.byteLength;
  }
  return { size, sha256: hash.digest('hex') };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Writes `data` to `target` through a temporary file in the same folder and a rename. */
async function writeAtomically(target: string, data: string): Promise<void> {
  const temporary = `${target}.${randomBytes(6).toString('hex')}.part`;
  try {
    await writeFile(temporary, data);
    await rename(temporary, target);
  } finally {
    await rm(temporary, { force: true });
  }
}

type Attempt = { ok: true; measured: Measured } | { ok: false; mismatch: Mismatch; cause?: unknown };

interface Downloader {
  fetch: typeof fetch;
  base: ModelBase;
  out: (line: string) => void;
}

/**
 * One download into `temporary`, hashing and counting as the bytes arrive. Stops a pinned file as
 * soon as it runs past its size. Prints a line at each tenth of a file of 8 MB or more.
 */
async function downloadOnce(file: ModelFile, url: string, temporary: string, d: Downloader): Promise<Attempt> {
  let response: Response;
  try {
    response = await d.fetch(url);
  } catch (error) {
    throw unreachable(url, error, d.base);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ModelDownloadError(url, { status: response.status, statusText: response.statusText });
  }
  // An unpinned file's progress goes by the length the server declares, when it declares one for
  // the bytes as they arrive (no content encoding).
  const encoding = response.headers.get('content-encoding');
  const declared = encoding === null || encoding === 'identity' ? Number(response.headers.get('content-length') ?? Number.NaN) : Number.NaN;
  const total = file.size ?? (Number.isSafeInteger(declared) ? declared : null);
  const handle = await open(temporary, 'w');
  const hash = createHash('sha256');
  let size = 0;
  let tenth = 0;
  try {
    if (response.body !== null) {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (file.size !== null && size > file.size) {
          await response.body.cancel();
          return { ok: false, mismatch: { field: 'size', expected: file.size, got: size, note: 'the download ran past the pinned size and was stopped' } };
        }
        hash.update(chunk);
        await handle.write(chunk);
        if (total !== null && total >= 8e6 && size < total && Math.floor((10 * size) / total) > tenth) {
          tenth = Math.floor((10 * size) / total);
          d.out(`  ${file.path}  ${tenth * 10}% of ${megabytes(total)}`);
        }
      }
    }
  } catch (error) {
    return { ok: false, mismatch: { field: 'size', expected: file.size, got: size, note: 'the connection broke off' }, cause: error };
  } finally {
    await handle.close();
  }
  const measured = { size, sha256: hash.digest('hex') };
  const mismatch = isPinned(file) ? compareFile(file, measured) : null;
  return mismatch === null ? { ok: true, measured } : { ok: false, mismatch };
}

/** Downloads, verifies and renames one file into place, retrying once; returns what it measured. */
async function fetchInto(file: ModelFile, url: string, target: string, d: Downloader): Promise<Measured> {
  await mkdir(dirname(target), { recursive: true });
  const temporary = `${target}.${randomBytes(6).toString('hex')}.part`;
  try {
    let attempt = await downloadOnce(file, url, temporary, d);
    if (!attempt.ok) attempt = await downloadOnce(file, url, temporary, d);
    if (!attempt.ok) {
      throw new ModelFileError(
        file.path,
        url,
        attempt.mismatch,
        'It was downloaded twice and came out wrong both times, so nothing was written. If it comes from a mirror, refresh the mirror; if the hub changed the file on purpose, set its size and sha256 to null in the manifest and run `npm run models -- --pin`.',
        { cause: attempt.cause },
      );
    }
    await rename(temporary, target);
    return attempt.measured;
  } finally {
    await rm(temporary, { force: true });
  }
}

/**
 * The commit the hub's `revision` points at, from the `x-repo-commit` header of a HEAD on one of its
 * files with redirects not followed (large files redirect to a CDN that does not send it). Null when
 * the hub does not say; best effort.
 */
async function resolveCommit(source: ModelSource, d: Downloader): Promise<string | null> {
  const first = source.files[0];
  if (first === undefined) return null;
  const url = fileUrl(d.base, source, first);
  let response: Response;
  try {
    response = await d.fetch(url, { method: 'HEAD', redirect: 'manual' });
  } catch (error) {
    throw unreachable(url, error, d.base);
  }
  if (response.status >= 400) throw new ModelDownloadError(url, { status: response.status, statusText: response.statusText });
  const commit = response.headers.get('x-repo-commit')?.trim().toLowerCase() ?? '';
  return isRevisionPinned(commit) ? commit : null;
}

interface VersionResult {
  source: ModelSource;
  downloaded: number;
  skipped: number;
  unverified: string[];
}

async function fetchVersion(initial: ModelSource, outDir: string, pin: boolean, d: Downloader): Promise<VersionResult> {
  let source = initial;
  if (pin && !isRevisionPinned(source.revision)) {
    const commit = await resolveCommit(source, d);
    if (commit === null) {
      d.out(`${source.version}: the hub did not report which commit "${source.revision}" is; the revision stays "${source.revision}" (not pinned).`);
    } else {
      d.out(`${source.version}: "${source.revision}" is commit ${commit} on the hub.`);
      source = { ...source, revision: commit };
    }
  }
  const where = d.base.kind === 'hub' ? `${source.repo} at ${source.revision}${isRevisionPinned(source.revision) ? '' : ' (a moving branch, not pinned)'}` : d.base.url;
  d.out(`${source.version} from ${where} into ${join(outDir, source.version)}`);
  // A file present locally says nothing about which commit it came from, so pinning a moving
  // revision fetches every file from the commit it resolved to.
  const refetchAll = pin && source.revision !== initial.revision;
  const files: ModelFile[] = [];
  const result: VersionResult = { source, downloaded: 0, skipped: 0, unverified: [] };
  for (const file of source.files) {
    const target = join(outDir, source.version, ...file.path.split('/'));
    const url = fileUrl(d.base, source, file);
    if (!refetchAll && !(pin && !isPinned(file)) && (await exists(target))) {
      if (!isPinned(file)) {
        d.out(`  ${file.path}  present; not verified (unpinned)`);
        result.skipped += 1;
        result.unverified.push(file.path);
        files.push(file);
        continue;
      }
      if (compareFile(file, await measureFile(target)) === null) {
        d.out(`  ${file.path}  present and valid`);
        result.skipped += 1;
        files.push(file);
        continue;
      }
      d.out(`  ${file.path}  present but not the pinned file; downloading again`);
    }
    const measured = await fetchInto(file, url, target, d);
    result.downloaded += 1;
    if (isPinned(file)) {
      d.out(`  ${file.path}  ${megabytes(measured.size)}, verified`);
      files.push(file);
    } else if (pin) {
      d.out(`  ${file.path}  ${megabytes(measured.size)}, pinned: sha256 ${measured.sha256}`);
      files.push({ path: file.path, size: measured.size, sha256: measured.sha256 });
    } else {
      d.out(`  ${file.path}  ${megabytes(measured.size)}, NOT verified (unpinned): sha256 ${measured.sha256}`);
      result.unverified.push(file.path);
      files.push(file);
    }
  }
  result.source = { ...source, files };
  return result;
}

async function readManifest(path: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ModelManifestError(`Could not read the manifest ${path}: ${(error as Error).message}. Pass --manifest <file> if it lives elsewhere.`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ModelManifestError(`${path} is not valid JSON: ${(error as Error).message}.`, { cause: error });
  }
  return parseManifest(json, path);
}

/**
 * The command. Returns the exit status rather than exiting, so tests can call it; only the entry
 * below touches `process.exitCode`. Errors it does not know (bugs) propagate.
 */
export async function main(argv: readonly string[], env: Record<string, string | undefined> = process.env, deps: ModelsDeps = {}): Promise<number> {
  const out = deps.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = deps.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  try {
    const options = parseArgs(argv, env, deps.cwd ?? process.cwd());
    if (options.help) {
      out(USAGE);
      return 0;
    }
    const chosen = parseModelBase(options.base, { name: options.baseName, allowRelative: false });
    const base: ModelBase = chosen.kind === 'hub' && deps.hubOrigin !== undefined ? { kind: 'hub', origin: deps.hubOrigin } : chosen;
    if (options.pin && base.kind === 'mirror') {
      throw new UsageError('--pin measures files from the hub, the source of truth; run it without --base or CONFAB_MODEL_BASE, on a machine that reaches the hub.');
    }
    const manifest = await readManifest(options.manifestPath);
    const d: Downloader = { fetch: deps.fetch ?? globalThis.fetch, base, out };
    const versions = options.versions ?? MODEL_VERSIONS;
    const updated: Record<ModelVersion, ModelSource> = { ...manifest.versions };
    const unverified: string[] = [];
    for (const version of versions) {
      const result = await fetchVersion(manifest.versions[version], options.outDir, options.pin, d);
      updated[version] = result.source;
      unverified.push(...result.unverified.map((path) => `${version}/${path}`));
      out(`${version}: ${result.downloaded} downloaded, ${result.skipped} already there.`);
    }
    if (options.pin) {
      const next: Manifest = { ...manifest, versions: updated };
      const text = serializeManifest(next);
      if (text === serializeManifest(manifest)) out(`${options.manifestPath} was already pinned; unchanged.`);
      else {
        await writeAtomically(options.manifestPath, text);
        out(`Wrote the pins to ${options.manifestPath}.`);
      }
    }
    if (unverified.length > 0) {
      out(
        `${unverified.length} unpinned file(s) were not verified: ${unverified.join(', ')}. On a machine that reaches the hub, run \`npm run models -- --pin\` to pin them.`,
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ModelBaseError) {
      err(error.message);
      return 2;
    }
    if (error instanceof ModelDownloadError || error instanceof ModelFileError || error instanceof ModelManifestError) {
      err(error.message);
      return 1;
    }
    throw error;
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  process.exitCode = await main(process.argv.slice(2));
}
