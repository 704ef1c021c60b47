/**
 * `models/manifest.json`: which files make each Supertonic version, where they come from, and how
 * to tell the right bytes from wrong ones. The worker (browser cache) and `npm run models` (a
 * self-hosted copy) both download by it; this module holds the parts they share: the types, the
 * validation, the URLs, the comparison of what arrived against what was pinned, and the errors a
 * person reads when a download goes wrong.
 *
 * The file, one object:
 *
 * ```json
 * {
 *   "$comment": "free text for the reader",
 *   "default": "supertonic-3",
 *   "versions": {
 *     "supertonic-2": {
 *       "repo": "Supertone/supertonic-2",
 *       "revision": "main",
 *       "files": [
 *         { "path": "onnx/vocoder.onnx", "size": 101405066, "sha256": "19bd51f4…" },
 *         { "path": "onnx/tts.json", "size": null, "sha256": null }
 *       ]
 *     }
 *   }
 * }
 * ```
 *
 * Pinning, the contract:
 * - A file with a `size` (bytes) and a `sha256` (64 lower-case hex digits) is **pinned**. A pinned
 *   file is always verified — size, then the digest of the whole bytes — wherever it comes from,
 *   fresh or cached, and refused on any mismatch. Nothing unverified is ever served as pinned.
 * - A file with `"size": null, "sha256": null` is **unpinned**: nobody has measured the real file
 *   yet. It may be downloaded, but it is reported as unverified (`verified: false`, and a warning),
 *   never passed off as checked. `npm run models -- --pin` measures it from a real download and
 *   writes its size and digest here, once, on a machine that can reach the hub.
 * - The `revision` is pinned when it is a 40-hex-digit commit id; any other ref (`"main"`) is a
 *   moving branch, so the bytes behind it may change. There is no separate flag that could disagree
 *   with the value itself: `isRevisionPinned` reads it off. A pinned file fetched from a moving
 *   revision is still verified, and refused if upstream has changed it.
 */
import { GRAPHS } from './contract';
import { VOICES } from './style';
import type { ModelVersion } from './text';
import { isRecord } from '../isRecord';

/** One entry per `ModelVersion`, so adding a version without listing it here cannot typecheck. */
const VERSION_SET: Record<ModelVersion, true> = { 'supertonic-3': true, 'supertonic-2': true };

/** Every model version Confab can speak with, the default first. */
export const MODEL_VERSIONS = Object.keys(VERSION_SET) as readonly ModelVersion[];

/** The Hugging Face hub, the default origin of the model's files. */
const HUB_ORIGIN = 'https://huggingface.co';

/** A file whose real size and digest are recorded: always verified, refused on mismatch. */
export interface PinnedFile {
  /** Path inside the repo, `/`-separated, e.g. `onnx/vocoder.onnx`. */
  readonly path: string;
  /** Bytes. */
  readonly size: number;
  /** SHA-256 of the whole file, 64 lower-case hex digits. */
  readonly sha256: string;
}

/** A file nobody has measured yet: downloadable, but only ever reported as unverified. */
export interface UnpinnedFile {
  readonly path: string;
  readonly size: null;
  readonly sha256: null;
}

export type ModelFile = PinnedFile | UnpinnedFile;

/** One model version: its upstream repo, the revision to fetch, and every file it needs. */
export interface ModelSource {
  readonly version: ModelVersion;
  /** Hugging Face repo, `owner/name`. */
  readonly repo: string;
  /** A 40-hex commit id (pinned) or a branch or tag such as `main` (moving). */
  readonly revision: string;
  readonly files: readonly ModelFile[];
}

export interface Manifest {
  /** The `$comment` string, kept so a rewrite (`--pin`) does not drop it. */
  readonly comment?: string;
  /** The version used when nothing else is chosen. */
  readonly default: ModelVersion;
  readonly versions: Readonly<Record<ModelVersion, ModelSource>>;
}

/**
 * Where the model's files are downloaded from:
 * - `{ kind: 'hub' }`: the manifest's Hugging Face repo at its revision,
 *   `<origin>/<repo>/resolve/<revision>/<path>`. `origin` defaults to `HUB_ORIGIN`; another origin
 *   must lay files out the same way (an HF-compatible mirror, or a test server).
 * - `{ kind: 'mirror', url }`: a self-hosted copy laid out as `npm run models` writes it,
 *   `<url>/<version>/<path>` (no revision in the URL: the mirror holds one copy per version, and
 *   the pins say which bytes it must be). `url` is absolute http(s), or a path on the page's own
 *   origin such as `/models` (Confab's server); it has no trailing slash.
 */
export type ModelBase = { readonly kind: 'hub'; readonly origin?: string } | { readonly kind: 'mirror'; readonly url: string };

/** `models/manifest.json` is malformed; the message names the file and the field. */
export class ModelManifestError extends Error {
  override readonly name = 'ModelManifestError';
}

/** A model base setting (`CONFAB_MODEL_BASE`, `--base`) a person must fix. */
export class ModelBaseError extends Error {
  override readonly name = 'ModelBaseError';
}

export function isPinned(file: ModelFile): file is PinnedFile {
  return file.sha256 !== null;
}

/** True for a 40-hex-digit commit id: the only revision whose bytes cannot move. */
export function isRevisionPinned(revision: string): boolean {
  return /^[0-9a-f]{40}$/.test(revision);
}

/** The files every version must list: the four graphs, the config, the character table, the ten voices. */
export const REQUIRED_PATHS: readonly string[] = [
  ...GRAPHS.map((graph) => `onnx/${graph}.onnx`),
  'onnx/tts.json',
  'onnx/unicode_indexer.json',
  ...VOICES.map((voice) => `voice_styles/${voice}.json`),
];

const MANIFEST_KEYS = ['$comment', 'default', 'versions'];
const SOURCE_KEYS = ['repo', 'revision', 'files'];
const FILE_KEYS = ['path', 'size', 'sha256'];
const REPO = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;
/** Branch, tag or commit; `/` allowed (`refs/pr/1`), `..` and leading dots are not. */
const REVISION = /^[A-Za-z0-9_][\w.-]*(\/[A-Za-z0-9_][\w.-]*)*$/;
/**
 * Relative, `/`-separated, no segment starting with a dot: the path becomes part of a URL and of a
 * file name under `models/<version>/`, so `..`, absolute paths and backslashes are refused.
 */
const PATH = /^[A-Za-z0-9_][\w.-]*(\/[A-Za-z0-9_][\w.-]*)*$/;
const SHA256 = /^[0-9a-f]{64}$/;

function show(value: unknown): string {
  return value === undefined ? 'missing' : JSON.stringify(value);
}

function fail(source: string, field: string, rule: string, value: unknown): never {
  throw new ModelManifestError(`${source}: ${field} ${rule}; it is ${show(value)}.`);
}

function checkKeys(source: string, where: string, object: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) {
      const field = where === '' ? key : `${where}.${key}`;
      throw new ModelManifestError(`${source}: ${field} is not a manifest field; the fields there are ${allowed.join(', ')}.`);
    }
  }
}

/**
 * Validates a parsed `models/manifest.json`. Throws `ModelManifestError` naming the file (`source`),
 * the field and what it must be. Unknown keys are refused so a misspelt `sha265` cannot silently
 * leave a file unpinned.
 */
export function parseManifest(json: unknown, source = 'models/manifest.json'): Manifest {
  if (!isRecord(json)) fail(source, 'the top level', 'must be an object', json);
  checkKeys(source, '', json, MANIFEST_KEYS);
  const comment = json.$comment;
  if (comment !== undefined && typeof comment !== 'string') fail(source, '$comment', 'must be a string', comment);
  const chosen = json.default;
  if (!isModelVersion(chosen)) fail(source, 'default', `must be one of ${MODEL_VERSIONS.join(', ')}`, chosen);
  const versionsJson = json.versions;
  if (!isRecord(versionsJson)) fail(source, 'versions', 'must be an object with one entry per model version', versionsJson);
  checkKeys(source, 'versions', versionsJson, MODEL_VERSIONS);

  const versions = {} as Record<ModelVersion, ModelSource>;
  for (const version of MODEL_VERSIONS) {
    versions[version] = parseSource(versionsJson[version], version, source);
  }
  return { ...(comment === undefined ? {} : { comment }), default: chosen, versions };
}

/** True for a version Confab knows. */
export function isModelVersion(value: unknown): value is ModelVersion {
  return typeof value === 'string' && (MODEL_VERSIONS as readonly string[]).includes(value);
}

function parseSource(json: unknown, version: ModelVersion, source: string): ModelSource {
  const at = `versions.${version}`;
  if (!isRecord(json)) fail(source, at, 'must be an object with repo, revision and files', json);
  checkKeys(source, at, json, SOURCE_KEYS);
  const { repo, revision, files: filesJson } = json;
  if (typeof repo !== 'string' || !REPO.test(repo)) fail(source, `${at}.repo`, 'must be a Hugging Face repo, "owner/name"', repo);
  if (typeof revision !== 'string' || !REVISION.test(revision)) {
    fail(source, `${at}.revision`, 'must be a 40-hex commit id or a branch such as "main"', revision);
  }
  if (!Array.isArray(filesJson)) fail(source, `${at}.files`, 'must be an array of files', filesJson);
  const files = (filesJson as unknown[]).map((file, index) => parseFile(file, `${at}.files[${index}]`, source));
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file.path)) throw new ModelManifestError(`${source}: ${at}.files lists ${file.path} twice; list each file once.`);
    seen.add(file.path);
  }
  const missing = REQUIRED_PATHS.filter((path) => !seen.has(path));
  if (missing.length > 0) {
    throw new ModelManifestError(`${source}: ${at}.files lacks ${missing.join(', ')}; every version needs ${REQUIRED_PATHS.join(', ')}.`);
  }
  return { version, repo, revision, files };
}

function parseFile(json: unknown, at: string, source: string): ModelFile {
  if (!isRecord(json)) fail(source, at, 'must be an object with path, size and sha256', json);
  checkKeys(source, at, json, FILE_KEYS);
  const { path, size, sha256 } = json;
  if (typeof path !== 'string' || !PATH.test(path)) {
    fail(source, `${at}.path`, 'must be a relative path such as "onnx/tts.json" (no leading "/", no "..", no "\\")', path);
  }
  if (size !== null && (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)) {
    fail(source, `${at}.size`, 'must be a whole number of bytes, or null while the file is unpinned', size);
  }
  if (sha256 !== null && (typeof sha256 !== 'string' || !SHA256.test(sha256))) {
    fail(source, `${at}.sha256`, 'must be 64 lower-case hex digits, or null while the file is unpinned', sha256);
  }
  if (size === null && sha256 === null) return { path, size: null, sha256: null };
  if (size === null || sha256 === null) {
    fail(source, at, `(${path}) must have both size and sha256, or both null while unpinned`, json);
  }
  return { path, size, sha256 };
}

/**
 * Writes a manifest back in the format `parseManifest` reads, one file per line so a re-pin shows
 * as a readable diff. Ends with a newline.
 */
export function serializeManifest(manifest: Manifest): string {
  const lines = ['{'];
  if (manifest.comment !== undefined) lines.push(`  "$comment": ${JSON.stringify(manifest.comment)},`);
  lines.push(`  "default": ${JSON.stringify(manifest.default)},`, '  "versions": {');
  MODEL_VERSIONS.forEach((version, v) => {
    const source = manifest.versions[version];
    lines.push(
      `    ${JSON.stringify(version)}: {`,
      `      "repo": ${JSON.stringify(source.repo)},`,
      `      "revision": ${JSON.stringify(source.revision)},`,
      '      "files": [',
      ...source.files.map(
        (file, f) =>
          `        { "path": ${JSON.stringify(file.path)}, "size": ${JSON.stringify(file.size)}, "sha256": ${JSON.stringify(file.sha256)} }${f < source.files.length - 1 ? ',' : ''}`,
      ),
      '      ]',
      `    }${v < MODEL_VERSIONS.length - 1 ? ',' : ''}`,
    );
  });
  lines.push('  }', '}', '');
  return lines.join('\n');
}

/**
 * Reads a model base setting: empty or absent is the hub; otherwise an absolute http(s) URL or a
 * path on the page's own origin (`/models`). Trailing slashes are dropped. `allowRelative: false`
 * (the command line, which has no page origin) refuses paths.
 */
export function parseModelBase(setting: string | undefined, options: { name?: string; allowRelative?: boolean } = {}): ModelBase {
  const name = options.name ?? 'CONFAB_MODEL_BASE';
  const value = setting?.trim() ?? '';
  if (value === '') return { kind: 'hub' };
  const url = value.replace(/\/+$/, '');
  const absolute = /^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/i.test(url);
  const relative = options.allowRelative !== false && /^\/[^/?#\s][^?#\s]*$/.test(url);
  if (!absolute && !relative) {
    const forms = options.allowRelative === false ? 'an http(s) URL' : 'an http(s) URL or a path on this site such as /models';
    throw new ModelBaseError(
      `${name} is "${value}"; set it to ${forms} where the model files are laid out as <base>/<version>/<path>, or leave it unset to download from ${HUB_ORIGIN}.`,
    );
  }
  return { kind: 'mirror', url };
}

function encodePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The URL of one file of one version from `base`; see `ModelBase` for the two layouts. */
export function fileUrl(base: ModelBase, source: ModelSource, file: Pick<ModelFile, 'path'>): string {
  if (base.kind === 'mirror') return `${base.url}/${source.version}/${encodePath(file.path)}`;
  const origin = (base.origin ?? HUB_ORIGIN).replace(/\/+$/, '');
  return `${origin}/${source.repo}/resolve/${encodeURIComponent(source.revision)}/${encodePath(file.path)}`;
}

/** What arrived, measured: bytes and the SHA-256 of all of them. */
export interface Measured {
  readonly size: number;
  readonly sha256: string;
}

/**
 * How a file differs from what was expected. `expected` is null when nothing was known (an
 * unpinned file whose download broke off with no length given); `note` says how it went wrong when
 * the numbers alone do not (the connection broke off; the download ran past the size and was stopped).
 */
export type Mismatch =
  | { readonly field: 'size'; readonly expected: number | null; readonly got: number; readonly note?: string }
  | { readonly field: 'sha256'; readonly expected: string; readonly got: string };

/** Compares a measured file with its pin: size first (cheap, and names truncation), then digest. */
export function compareFile(file: PinnedFile, got: Measured): Mismatch | null {
  if (got.size !== file.size) return { field: 'size', expected: file.size, got: got.size };
  if (got.sha256 !== file.sha256) return { field: 'sha256', expected: file.sha256, got: got.sha256 };
  return null;
}

/** Lower-case hex of a digest, as the manifest writes it. */
export function toHex(digest: ArrayBuffer | Uint8Array): string {
  const bytes = digest instanceof Uint8Array ? digest : new Uint8Array(digest);
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** `1521526` → `1,521,526 bytes`. */
function bytes(count: number): string {
  return `${count.toLocaleString('en-US')} bytes`;
}

export function describeMismatch(mismatch: Mismatch): string {
  if (mismatch.field === 'sha256') return `expected sha256 ${mismatch.expected}, got ${mismatch.got}`;
  const expected = mismatch.expected === null ? 'the whole file' : bytes(mismatch.expected);
  return `expected ${expected}, got ${bytes(mismatch.got)}${mismatch.note === undefined ? '' : ` (${mismatch.note})`}`;
}

/**
 * A model file that came out wrong (size or digest) even after a fresh download: it is not used and
 * not kept. The message names the file, the URL, expected against got, and what to do (`advice`).
 */
export class ModelFileError extends Error {
  override readonly name = 'ModelFileError';
  constructor(
    readonly path: string,
    readonly url: string,
    readonly mismatch: Mismatch,
    advice: string,
    options?: ErrorOptions,
  ) {
    super(`Model file ${path} from ${url} is damaged or not the pinned file: ${describeMismatch(mismatch)}. ${advice}`, options);
  }
}

/**
 * A download that did not happen: the host could not be reached (`answer` null; `options.cause` says
 * why) or answered with an HTTP error. The message is for whoever runs the download — the terminal
 * of `npm run models`, the worker's console — and names the host or URL, the status, and what to do:
 * `advice`, or for an HTTP error without it, its status's own.
 */
export class ModelDownloadError extends Error {
  override readonly name = 'ModelDownloadError';
  /** The HTTP status the host answered; null when it could not be reached. */
  readonly status: number | null;
  constructor(
    readonly url: string,
    answer: { status: number; statusText: string } | null,
    advice?: string,
    options?: ErrorOptions,
  ) {
    const what =
      answer === null
        ? `Could not reach ${hostOf(url)}: ${describeCause(options?.cause)}`
        : `Could not download ${url}: HTTP ${String(answer.status)}${answer.statusText === '' ? '' : ` ${answer.statusText}`}`;
    super(`${what}. ${advice ?? ModelDownloadError.adviceFor(answer?.status ?? null)}`, options);
    this.status = answer?.status ?? null;
  }

  /** What the operator can do about an HTTP error from a model host. */
  private static adviceFor(status: number | null): string {
    if (status === 404) {
      return 'The file is not at that address: a mirror may not hold this version yet (run `npm run models` where it is served), or the manifest names the wrong repo or revision.';
    }
    if (status === 401 || status === 403) return 'The server refused access; check that the repo or mirror is public.';
    if (status !== null && (status === 429 || status >= 500)) return 'The server is busy or failing; try again in a few minutes.';
    return 'Check that the model base points at the model files.';
  }
}

/** The host (and port) of an absolute URL, or the URL itself when it has none. */
export function hostOf(url: string): string {
  return /^[a-z][\w+.-]*:\/\/([^/?#]+)/i.exec(url)?.[1] ?? url;
}

/** The messages down an error's `cause` chain, e.g. `fetch failed (getaddrinfo ENOTFOUND huggingface.co)`. */
export function describeCause(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    const message =
      current instanceof Error
        ? current.message
        : typeof current === 'string' || typeof current === 'number' || typeof current === 'boolean'
          ? String(current)
          : 'a failure that is not an Error';
    if (message !== '' && !messages.includes(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  const [first, ...rest] = messages;
  if (first === undefined) return 'unknown error';
  return rest.length === 0 ? first : `${first} (${rest.join('; ')})`;
}
