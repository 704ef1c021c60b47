/**
 * Downloads the model's files in the worker, verifies them, and keeps them in Cache Storage so the
 * next visit needs no network.
 *
 * Contract:
 * - A pinned file (see `common/voice/manifest.ts`) is always verified — size, then the SHA-256 of
 *   the whole bytes — whether it comes from the network or the cache, and never used or cached on a
 *   mismatch.
 * - An unpinned file downloads and is cached, but comes back `verified: false` with an `unverified`
 *   warning every time it is loaded: there is nothing to check it against. If the server declares a
 *   length (and no content encoding), a body that does not match it is refused as truncated.
 * - Cache entries are keyed by URL and pin (`modelCacheKey`), so a new pin never reuses an old file.
 *   A cached file is re-verified on every read by digesting it again: one SHA-256 pass, measured at
 *   1.7–2.3 s for 400 MB with Node 20's WebCrypto on a shared two-core server, paid in the worker,
 *   off the page's thread, with the files digesting concurrently. Checking only the size and a
 *   stored digest header would be near free but would pass bytes damaged on disk as "verified",
 *   which is the one thing a pin promises never to do. Unpinned entries are checked against the
 *   size and digest recorded when they were stored.
 * - A cached file that fails is deleted and downloaded again. A download that is wrong (size,
 *   digest, or a stream that broke off) is fetched once more; a second wrong one rejects with
 *   `ModelFileError`. Unreachable hosts and HTTP errors reject at once with `ModelDownloadError`.
 * - Aborting `signal` rejects with the signal's reason and stops every download of the call.
 */
import { compareFile, isPinned, ModelDownloadError, ModelFileError, ModelManifestError, toHex } from '../common/voice/manifest';
import type { Measured, Mismatch, ModelFile } from '../common/voice/manifest';

/** The Cache Storage name: `await caches.open(MODEL_CACHE_NAME)`. Bump the suffix to drop every cached file. */
export const MODEL_CACHE_NAME = 'confab-models-v1';

/** Response headers under which a cached entry records the size and SHA-256 it was stored with. */
const SIZE_HEADER = 'x-confab-size';
const DIGEST_HEADER = 'x-confab-sha256';

/** One file's download, in bytes. `bytesTotal` is null while an unpinned file's length is unknown. */
export interface FileProgress {
  path: string;
  bytesDone: number;
  bytesTotal: number | null;
}

/**
 * All files of one `fetchModelFiles` call, in bytes. `bytesTotal` counts pinned sizes from the
 * start and each unpinned file's length once known (its bytes so far until then), so it may grow
 * while an unpinned file arrives; both only ever rise, and they are equal at the end.
 */
export interface OverallProgress {
  bytesDone: number;
  bytesTotal: number;
}

/**
 * Something the page should tell a person about, although the file was delivered:
 * - `unverified`: an unpinned file was used as it came, with the size and digest it had.
 * - `cache-discarded`: a cached copy failed its check and was deleted before downloading again.
 * - `not-cached`: a verified file could not be stored (usually storage quota), so the next visit
 *   downloads it again.
 */
export type ModelWarning =
  | { kind: 'unverified'; path: string; url: string; size: number; sha256: string }
  | { kind: 'cache-discarded'; path: string; url: string; mismatch: Mismatch }
  | { kind: 'not-cached'; path: string; url: string; cause: unknown };

export interface WeightsDeps {
  /** Where verified files live between visits; in the worker `await caches.open(MODEL_CACHE_NAME)`. */
  cache: Pick<Cache, 'match' | 'put' | 'delete'>;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Cancels every download of the call; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Each file's bytes as they arrive; never goes backwards, even across a retry. */
  onFileProgress?: (progress: FileProgress) => void;
  /** The whole call's bytes (`fetchModelFiles` only). */
  onProgress?: (progress: OverallProgress) => void;
  onWarning?: (warning: ModelWarning) => void;
}

export interface LoadedModelFile {
  path: string;
  url: string;
  bytes: Uint8Array<ArrayBuffer>;
  /** Bytes and SHA-256 as measured here. */
  size: number;
  sha256: string;
  /** True only for a pinned file whose size and digest matched the pin. */
  verified: boolean;
  /** True when no network was used. */
  fromCache: boolean;
}

/**
 * The Cache Storage key of a file: its URL plus its pin as a query parameter (a `#fragment` would
 * be ignored by Cache matching). Unpinned files share one `unpinned` key per URL.
 */
export function modelCacheKey(url: string, file: ModelFile): string {
  return `${url}${url.includes('?') ? '&' : '?'}confab-sha256=${file.sha256 ?? 'unpinned'}`;
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', bytes));
}

/**
 * Checks a cached entry: a pinned file against its pin, an unpinned one against the size and digest
 * recorded when it was stored. Returns the bytes, or how they differ.
 */
async function readCached(response: Response, file: ModelFile): Promise<{ bytes: Uint8Array<ArrayBuffer>; measured: Measured } | Mismatch> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const measured = { size: bytes.byteLength, sha256: await sha256Hex(bytes) };
  const pin = isPinned(file)
    ? file
    : { path: file.path, size: Number(response.headers.get(SIZE_HEADER)), sha256: response.headers.get(DIGEST_HEADER) ?? '' };
  return compareFile(pin, measured) ?? { bytes, measured };
}

/** The length a response promises for its decoded body, or null when it does not say. */
function declaredLength(response: Response): number | null {
  const encoding = response.headers.get('content-encoding');
  if (encoding !== null && encoding !== 'identity') return null;
  const header = response.headers.get('content-length');
  const length = header === null ? Number.NaN : Number(header);
  return Number.isSafeInteger(length) && length >= 0 ? length : null;
}

interface Body {
  bytes: Uint8Array<ArrayBuffer>;
  received: number;
  /** Why the body is wrong before any digest: it broke off, or ran past its pinned size. */
  broken?: { note: string; cause?: unknown };
}

/**
 * Streams a body, counting bytes as they arrive. A pinned size is preallocated (one copy of a
 * 130 MB graph, not chunks plus a copy) and the read stops as soon as the body runs past it.
 */
async function readBody(response: Response, expected: number | null, report: (received: number) => void): Promise<Body> {
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  const target = expected === null ? null : new Uint8Array(expected);
  let received = 0;
  const collected = (): Uint8Array<ArrayBuffer> => {
    if (target !== null) return received === target.byteLength ? target : target.slice(0, received);
    const whole = new Uint8Array(received);
    let offset = 0;
    for (const chunk of chunks) {
      whole.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return whole;
  };
  if (reader === undefined) return { bytes: collected(), received };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (target !== null && received + value.byteLength > target.byteLength) {
        await reader.cancel();
        received += value.byteLength;
        return { bytes: new Uint8Array(0), received, broken: { note: 'the download ran past the pinned size and was stopped' } };
      }
      if (target === null) chunks.push(value);
      else target.set(value, received);
      received += value.byteLength;
      report(received);
    }
  } catch (error) {
    return { bytes: collected(), received, broken: { note: 'the connection broke off', cause: error } };
  }
  return { bytes: collected(), received };
}

/** One download attempt: the bytes and their measure, or how they were wrong. */
type Attempt =
  | { ok: true; bytes: Uint8Array<ArrayBuffer>; measured: Measured }
  | { ok: false; mismatch: Mismatch; cause?: unknown };

async function download(file: ModelFile, url: string, deps: WeightsDeps, report: (received: number, total: number | null) => void): Promise<Attempt> {
  const fetchImpl = deps.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    // no-store: Cache Storage keeps the one copy; the HTTP cache would hold a second, and could
    // hand a retry the same wrong bytes.
    response = await fetchImpl(url, { signal: deps.signal, cache: 'no-store' });
  } catch (error) {
    deps.signal?.throwIfAborted();
    throw new ModelDownloadError(
      url,
      null,
      'Check the connection. If this network cannot reach the model hub, the operator can self-host the model (`npm run models`) and point Confab at that mirror.',
      { cause: error },
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new ModelDownloadError(url, { status: response.status, statusText: response.statusText });
  }
  const declared = declaredLength(response);
  const total = file.size ?? declared;
  report(0, total);
  const body = await readBody(response, file.size, (received) => {
    report(received, total);
  });
  deps.signal?.throwIfAborted();
  if (body.broken !== undefined) {
    return { ok: false, mismatch: { field: 'size', expected: total, got: body.received, note: body.broken.note }, cause: body.broken.cause };
  }
  if (!isPinned(file) && declared !== null && body.received !== declared) {
    return { ok: false, mismatch: { field: 'size', expected: declared, got: body.received, note: 'the body is not the length the server declared' } };
  }
  const measured = { size: body.received, sha256: await sha256Hex(body.bytes) };
  const mismatch = isPinned(file) ? compareFile(file, measured) : null;
  return mismatch === null ? { ok: true, bytes: body.bytes, measured } : { ok: false, mismatch };
}

/**
 * One model file from the cache or the network, verified as the module comment says. Rejects with
 * `ModelFileError` (wrong twice), `ModelDownloadError` (unreachable, HTTP error) or the abort reason.
 */
export async function fetchModelFile(file: ModelFile, url: string, deps: WeightsDeps): Promise<LoadedModelFile> {
  deps.signal?.throwIfAborted();
  const key = modelCacheKey(url, file);
  const verified = isPinned(file);
  const loaded = (bytes: Uint8Array<ArrayBuffer>, measured: Measured, fromCache: boolean): LoadedModelFile => {
    if (!verified) deps.onWarning?.({ kind: 'unverified', path: file.path, url, size: measured.size, sha256: measured.sha256 });
    return { path: file.path, url, bytes, size: measured.size, sha256: measured.sha256, verified, fromCache };
  };

  const cached = await deps.cache.match(key);
  deps.signal?.throwIfAborted();
  if (cached !== undefined) {
    const read = await readCached(cached, file);
    deps.signal?.throwIfAborted();
    if ('bytes' in read) {
      deps.onFileProgress?.({ path: file.path, bytesDone: read.measured.size, bytesTotal: read.measured.size });
      return loaded(read.bytes, read.measured, true);
    }
    await deps.cache.delete(key);
    deps.onWarning?.({ kind: 'cache-discarded', path: file.path, url, mismatch: read });
  }

  // A retry restarts from byte 0; holding the report until it passes the first attempt's mark keeps
  // the bar from going back.
  let shown = -1;
  const report = (received: number, total: number | null) => {
    if (received <= shown) return;
    shown = received;
    deps.onFileProgress?.({ path: file.path, bytesDone: received, bytesTotal: total });
  };
  let attempt = await download(file, url, deps, report);
  if (!attempt.ok) attempt = await download(file, url, deps, report);
  if (!attempt.ok) {
    throw new ModelFileError(
      file.path,
      url,
      attempt.mismatch,
      'It was downloaded twice and came out wrong both times, so it was not used or kept. If the files come from a mirror, run `npm run models` there again; if the hub changed the file, the manifest needs a new pin (`npm run models -- --pin`); otherwise the connection may be cutting downloads short, so try again later.',
      { cause: attempt.cause },
    );
  }
  if (attempt.measured.size >= shown) {
    deps.onFileProgress?.({ path: file.path, bytesDone: attempt.measured.size, bytesTotal: attempt.measured.size });
  }

  const stored = new Response(attempt.bytes, {
    headers: {
      'content-type': 'application/octet-stream',
      [SIZE_HEADER]: String(attempt.measured.size),
      [DIGEST_HEADER]: attempt.measured.sha256,
    },
  });
  try {
    await deps.cache.put(key, stored);
  } catch (error) {
    deps.signal?.throwIfAborted();
    // The file is verified and usable now; failing the voice over storage would be worse than
    // downloading again next visit, so the caller is told instead.
    deps.onWarning?.({ kind: 'not-cached', path: file.path, url, cause: error });
  }
  return loaded(attempt.bytes, attempt.measured, false);
}

/**
 * Several files at once, each once even if listed twice, with one overall progress. Returns them
 * by path. On the first failure the other downloads are aborted and, once they have stopped, the
 * call rejects with that failure. Throws `ModelManifestError` for one path listed with two pins.
 */
export async function fetchModelFiles(
  files: readonly ModelFile[],
  urlOf: (file: ModelFile) => string,
  deps: WeightsDeps,
): Promise<ReadonlyMap<string, LoadedModelFile>> {
  const unique = new Map<string, ModelFile>();
  for (const file of files) {
    const seen = unique.get(file.path);
    if (seen === undefined) unique.set(file.path, file);
    else if (seen.sha256 !== file.sha256 || seen.size !== file.size) {
      throw new ModelManifestError(`${file.path} is listed twice with different sizes or digests; list it once.`);
    }
  }
  deps.signal?.throwIfAborted();

  const stop = new AbortController();
  const outer = deps.signal;
  const onOuterAbort = () => {
    stop.abort(outer?.reason);
  };
  outer?.addEventListener('abort', onOuterAbort, { once: true });

  const done = new Map<string, number>();
  const totals = new Map<string, number | null>();
  for (const file of unique.values()) totals.set(file.path, file.size);
  let shownDone = 0;
  let shownTotal = 0;
  const onFileProgress = (progress: FileProgress) => {
    deps.onFileProgress?.(progress);
    done.set(progress.path, progress.bytesDone);
    totals.set(progress.path, progress.bytesTotal);
    let bytesDone = 0;
    let bytesTotal = 0;
    for (const path of unique.keys()) {
      const fileDone = done.get(path) ?? 0;
      bytesDone += fileDone;
      bytesTotal += Math.max(totals.get(path) ?? fileDone, fileDone);
    }
    shownDone = Math.max(shownDone, bytesDone);
    shownTotal = Math.max(shownTotal, bytesTotal, shownDone);
    deps.onProgress?.({ bytesDone: shownDone, bytesTotal: shownTotal });
  };

  const inner: WeightsDeps = { ...deps, signal: stop.signal, onFileProgress };
  const failures: unknown[] = [];
  const results = await Promise.all(
    [...unique.values()].map((file) =>
      fetchModelFile(file, urlOf(file), inner).catch((error: unknown) => {
        failures.push(error);
        stop.abort(error);
        return undefined;
      }),
    ),
  );
  outer?.removeEventListener('abort', onOuterAbort);
  if (failures.length > 0) {
    outer?.throwIfAborted();
    throw failures[0];
  }
  const byPath = new Map<string, LoadedModelFile>();
  for (const result of results) if (result !== undefined) byPath.set(result.path, result);
  return byPath;
}
