import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ModelDownloadError, ModelFileError, ModelManifestError } from '../../common/voice/manifest';
import type { ModelFile, PinnedFile, UnpinnedFile } from '../../common/voice/manifest';
import { fetchModelFile, fetchModelFiles, modelCacheKey } from '../../workers/weights';
import type { FileProgress, ModelWarning, OverallProgress, WeightsDeps } from '../../workers/weights';
import { MemoryCache } from '../helpers/memoryCache';
import { listen, unreachableUrl } from '../server/chat/localServers';
import type { Listening } from '../server/chat/localServers';

/** How the test server answers one request for a path. */
interface Reply {
  body: Uint8Array;
  status?: number;
  /** Send this many bytes with the full Content-Length, then drop the connection. */
  truncateAt?: number;
  /** Send this many bytes and then nothing more, holding the connection open. */
  stallAt?: number;
}

/** Replies by path; an array answers its first request with [0], the next with [1], and so on, the last repeating. */
const routes = new Map<string, Reply | Reply[]>();
const hits = new Map<string, number>();
let server: Listening;
let origin = '';
let closedOrigin = '';

beforeAll(async () => {
  server = await listen((req, res) => {
    const path = req.url ?? '/';
    const count = hits.get(path) ?? 0;
    hits.set(path, count + 1);
    const route = routes.get(path);
    const reply = Array.isArray(route) ? route[Math.min(count, route.length - 1)] : route;
    if (reply === undefined) {
      res.writeHead(404, 'Not Found').end('no such file');
      return;
    }
    const status = reply.status ?? 200;
    res.writeHead(status, { 'content-type': 'application/octet-stream', 'content-length': String(reply.body.byteLength) });
    const sendUpTo = reply.truncateAt ?? reply.stallAt ?? reply.body.byteLength;
    // Several chunks, so progress is reported more than once.
    for (let offset = 0; offset < sendUpTo; offset += 16_384) res.write(reply.body.subarray(offset, Math.min(offset + 16_384, sendUpTo)));
    if (reply.truncateAt !== undefined) setTimeout(() => res.destroy(), 30);
    else if (reply.stallAt === undefined) res.end();
  });
  origin = server.url;
  closedOrigin = await unreachableUrl();
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  routes.clear();
  hits.clear();
});

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A pinned file of `size` random bytes, served at `/<path>`. */
function servePinned(path: string, size = 100_000): { file: PinnedFile; bytes: Uint8Array; url: string } {
  const bytes = new Uint8Array(randomBytes(size));
  routes.set(`/${path}`, { body: bytes });
  return { file: { path, size, sha256: sha256(bytes) }, bytes, url: `${origin}/${path}` };
}

function deps(cache: MemoryCache, extra: Partial<WeightsDeps> = {}) {
  const fileProgress: FileProgress[] = [];
  const progress: OverallProgress[] = [];
  const warnings: ModelWarning[] = [];
  const d: WeightsDeps = {
    cache,
    onFileProgress: (p) => fileProgress.push(p),
    onProgress: (p) => progress.push(p),
    onWarning: (w) => warnings.push(w),
    ...extra,
  };
  return { d, fileProgress, progress, warnings };
}

/** Byte equality without vitest's element-by-element diff, which is slow on 100 kB. */
function expectSameBytes(got: Uint8Array | undefined, expected: Uint8Array): void {
  expect(got !== undefined && Buffer.from(got).equals(expected)).toBe(true);
}

function expectRising(values: readonly number[]): void {
  for (let i = 1; i < values.length; i += 1) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1] ?? 0);
}

describe('fetchModelFile', () => {
  it('downloads a pinned file, verifies its sha256 and reports progress that only rises, up to its size', async () => {
    const { file, bytes, url } = servePinned('onnx/vocoder.onnx');
    const cache = new MemoryCache();
    const { d, fileProgress, warnings } = deps(cache);
    const loaded = await fetchModelFile(file, url, d);
    expect(loaded).toMatchObject({ path: file.path, size: file.size, sha256: file.sha256, verified: true, fromCache: false });
    expectSameBytes(loaded.bytes, bytes);
    expect(fileProgress.length).toBeGreaterThan(2);
    expectRising(fileProgress.map((p) => p.bytesDone));
    expect(fileProgress.every((p) => p.bytesTotal === file.size)).toBe(true);
    expect(fileProgress.at(-1)?.bytesDone).toBe(file.size);
    expect(warnings).toEqual([]);
    expect(cache.entries.has(modelCacheKey(url, file))).toBe(true);
  });

  it('serves a cached file on the next visit without touching the network', async () => {
    const { file, bytes, url } = servePinned('onnx/tts.json');
    const cache = new MemoryCache();
    await fetchModelFile(file, url, deps(cache).d);
    const again = deps(cache);
    const loaded = await fetchModelFile(file, url, again.d);
    expect(hits.get('/onnx/tts.json')).toBe(1);
    expect(loaded).toMatchObject({ verified: true, fromCache: true, sha256: file.sha256 });
    expectSameBytes(loaded.bytes, bytes);
    expect(again.fileProgress).toEqual([{ path: file.path, bytesDone: file.size, bytesTotal: file.size }]);
  });

  it('discards a corrupt cached copy, says so, and downloads the file again', async () => {
    const { file, bytes, url } = servePinned('voice_styles/F1.json');
    const cache = new MemoryCache();
    await fetchModelFile(file, url, deps(cache).d);
    const key = modelCacheKey(url, file);
    cache.damage(key, (body) => {
      body[10] = (body[10] ?? 0) ^ 0xff;
      return body;
    });
    const again = deps(cache);
    const loaded = await fetchModelFile(file, url, again.d);
    expect(hits.get('/voice_styles/F1.json')).toBe(2);
    expect(loaded).toMatchObject({ verified: true, fromCache: false });
    expectSameBytes(loaded.bytes, bytes);
    expect(again.warnings).toEqual([
      { kind: 'cache-discarded', path: file.path, url, mismatch: { field: 'sha256', expected: file.sha256, got: expect.any(String) as string } },
    ]);
    expectSameBytes(cache.entries.get(key)?.body, bytes);
  });

  it('discards a truncated cached copy by its size', async () => {
    const { file, url } = servePinned('onnx/unicode_indexer.json');
    const cache = new MemoryCache();
    await fetchModelFile(file, url, deps(cache).d);
    cache.damage(modelCacheKey(url, file), (body) => body.slice(0, 1000));
    const again = deps(cache);
    await fetchModelFile(file, url, again.d);
    expect(again.warnings[0]).toMatchObject({ kind: 'cache-discarded', mismatch: { field: 'size', expected: file.size, got: 1000 } });
    expect(hits.get('/onnx/unicode_indexer.json')).toBe(2);
  });

  it('refuses bytes that do not match the pin after one fresh retry, and caches nothing', async () => {
    const { file, url } = servePinned('onnx/text_encoder.onnx');
    const wrong = new Uint8Array(randomBytes(file.size));
    routes.set('/onnx/text_encoder.onnx', { body: wrong });
    const cache = new MemoryCache();
    const error = await fetchModelFile(file, url, deps(cache).d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelFileError);
    const fileError = error as ModelFileError;
    expect(fileError.path).toBe(file.path);
    expect(fileError.mismatch).toEqual({ field: 'sha256', expected: file.sha256, got: sha256(wrong) });
    expect(fileError.message).toContain(`onnx/text_encoder.onnx from ${url}`);
    expect(fileError.message).toContain(`expected sha256 ${file.sha256}, got ${sha256(wrong)}`);
    expect(fileError.message).toContain('npm run models');
    expect(hits.get('/onnx/text_encoder.onnx')).toBe(2);
    expect(cache.entries.size).toBe(0);
  });

  it('uses the second download when only the first came out wrong', async () => {
    const { file, bytes, url } = servePinned('onnx/duration_predictor.onnx');
    routes.set('/onnx/duration_predictor.onnx', [{ body: new Uint8Array(randomBytes(file.size)) }, { body: bytes }]);
    const cache = new MemoryCache();
    const { d, fileProgress } = deps(cache);
    const loaded = await fetchModelFile(file, url, d);
    expect(loaded).toMatchObject({ verified: true, fromCache: false });
    expect(hits.get('/onnx/duration_predictor.onnx')).toBe(2);
    expectRising(fileProgress.map((p) => p.bytesDone));
    expect(cache.puts).toBe(1);
  });

  it('refuses a response whose connection breaks off before the declared length', async () => {
    const { file, bytes, url } = servePinned('onnx/vector_estimator.onnx');
    routes.set('/onnx/vector_estimator.onnx', { body: bytes, truncateAt: 40_000 });
    const cache = new MemoryCache();
    const error = await fetchModelFile(file, url, deps(cache).d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelFileError);
    expect((error as ModelFileError).mismatch).toMatchObject({ field: 'size', expected: file.size, note: 'the connection broke off' });
    expect((error as ModelFileError).message).toContain('expected 100,000 bytes, got');
    expect((error as ModelFileError).cause).toBeDefined();
    expect(hits.get('/onnx/vector_estimator.onnx')).toBe(2);
    expect(cache.entries.size).toBe(0);
  });

  it('refuses a body shorter than the pin even when the server declares that shorter length', async () => {
    const { file, bytes, url } = servePinned('voice_styles/M1.json');
    routes.set('/voice_styles/M1.json', { body: bytes.slice(0, 60_000) });
    const cache = new MemoryCache();
    const error = await fetchModelFile(file, url, deps(cache).d).catch((e: unknown) => e);
    expect((error as ModelFileError).mismatch).toEqual({ field: 'size', expected: 100_000, got: 60_000 });
    expect(cache.entries.size).toBe(0);
  });

  it('stops a body that runs past the pinned size instead of downloading all of it', async () => {
    const { file, url } = servePinned('voice_styles/M2.json', 20_000);
    routes.set('/voice_styles/M2.json', { body: new Uint8Array(randomBytes(200_000)) });
    const error = await fetchModelFile(file, url, deps(new MemoryCache()).d).catch((e: unknown) => e);
    const mismatch = (error as ModelFileError).mismatch;
    expect(mismatch).toMatchObject({ field: 'size', expected: 20_000, note: 'the download ran past the pinned size and was stopped' });
    expect(mismatch.field === 'size' && mismatch.got < 200_000).toBe(true);
  });

  it('rejects an HTTP error with the URL and the status, and says what to check', async () => {
    const file: PinnedFile = { path: 'onnx/missing.onnx', size: 10, sha256: 'a'.repeat(64) };
    const url = `${origin}/onnx/missing.onnx`;
    const error = await fetchModelFile(file, url, deps(new MemoryCache()).d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelDownloadError);
    expect((error as ModelDownloadError).status).toBe(404);
    expect((error as ModelDownloadError).url).toBe(url);
    expect((error as ModelDownloadError).message).toBe(
      `Could not download ${url}: HTTP 404 Not Found. The file is not at that address: a mirror may not hold this version yet (run \`npm run models\` where it is served), or the manifest names the wrong repo or revision.`,
    );
    expect(hits.get('/onnx/missing.onnx')).toBe(1);

    routes.set('/busy', { body: new Uint8Array(3), status: 503 });
    const busy = await fetchModelFile({ ...file, path: 'busy' }, `${origin}/busy`, deps(new MemoryCache()).d).catch((e: unknown) => e);
    expect((busy as ModelDownloadError).message).toContain('HTTP 503 Service Unavailable. The server is busy or failing; try again in a few minutes.');
  });

  it('rejects an unreachable host, naming it and the reason', async () => {
    const file: PinnedFile = { path: 'onnx/tts.json', size: 10, sha256: 'a'.repeat(64) };
    const error = await fetchModelFile(file, `${closedOrigin}/onnx/tts.json`, deps(new MemoryCache()).d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelDownloadError);
    expect((error as ModelDownloadError).status).toBeNull();
    expect((error as ModelDownloadError).message).toMatch(
      new RegExp(`^Could not reach ${closedOrigin.slice(7)}: fetch failed \\(.*ECONNREFUSED.*\\)\\. Check the connection\\.`),
    );
    expect((error as ModelDownloadError).cause).toBeInstanceOf(Error);
  });

  it('stops mid-download when aborted, rejecting with the abort reason and caching nothing', async () => {
    const { file, bytes, url } = servePinned('onnx/vocoder.onnx', 200_000);
    routes.set('/onnx/vocoder.onnx', { body: bytes, stallAt: 50_000 });
    const cache = new MemoryCache();
    const controller = new AbortController();
    const { d } = deps(cache, {
      signal: controller.signal,
      onFileProgress: (p) => {
        if (p.bytesDone > 0) controller.abort(new DOMException('The person left the page.', 'AbortError'));
      },
    });
    const error = await fetchModelFile(file, url, d).catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
    expect(cache.entries.size).toBe(0);
    expect(hits.get('/onnx/vocoder.onnx')).toBe(1);
  });

  it('does not start when the signal has already fired', async () => {
    const { file, url } = servePinned('onnx/tts.json');
    const error = await fetchModelFile(file, url, deps(new MemoryCache(), { signal: AbortSignal.abort() }).d).catch((e: unknown) => e);
    expect((error as DOMException).name).toBe('AbortError');
    expect(hits.size).toBe(0);
  });

  it('downloads an unpinned file as unverified, warns each time it is used, and caches it', async () => {
    const bytes = new Uint8Array(randomBytes(50_000));
    routes.set('/onnx/text_encoder.onnx', { body: bytes });
    const file: UnpinnedFile = { path: 'onnx/text_encoder.onnx', size: null, sha256: null };
    const url = `${origin}/onnx/text_encoder.onnx`;
    const cache = new MemoryCache();
    const first = deps(cache);
    const loaded = await fetchModelFile(file, url, first.d);
    expect(loaded).toMatchObject({ verified: false, fromCache: false, size: 50_000, sha256: sha256(bytes) });
    expect(first.warnings).toEqual([{ kind: 'unverified', path: file.path, url, size: 50_000, sha256: sha256(bytes) }]);
    expect(first.fileProgress[0]).toEqual({ path: file.path, bytesDone: 0, bytesTotal: 50_000 });
    expect(cache.entries.has(`${url}?confab-sha256=unpinned`)).toBe(true);

    const second = deps(cache);
    const cached = await fetchModelFile(file, url, second.d);
    expect(cached).toMatchObject({ verified: false, fromCache: true, sha256: sha256(bytes) });
    expect(second.warnings).toEqual([{ kind: 'unverified', path: file.path, url, size: 50_000, sha256: sha256(bytes) }]);
    expect(hits.get('/onnx/text_encoder.onnx')).toBe(1);

    cache.damage(`${url}?confab-sha256=unpinned`, (body) => body.slice(0, 10));
    const third = deps(cache);
    await fetchModelFile(file, url, third.d);
    expect(third.warnings.map((w) => w.kind)).toEqual(['cache-discarded', 'unverified']);
    expect(hits.get('/onnx/text_encoder.onnx')).toBe(2);
  });

  it('refuses an unpinned file whose connection breaks off, since the declared length was not met', async () => {
    routes.set('/onnx/vocoder.onnx', { body: new Uint8Array(randomBytes(80_000)), truncateAt: 20_000 });
    const file: UnpinnedFile = { path: 'onnx/vocoder.onnx', size: null, sha256: null };
    const cache = new MemoryCache();
    const error = await fetchModelFile(file, `${origin}/onnx/vocoder.onnx`, deps(cache).d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelFileError);
    expect((error as ModelFileError).mismatch).toMatchObject({ field: 'size', expected: 80_000 });
    expect(cache.entries.size).toBe(0);
  });

  it('never reuses a file cached under an older pin', async () => {
    const old = servePinned('voice_styles/F2.json');
    const cache = new MemoryCache();
    await fetchModelFile(old.file, old.url, deps(cache).d);
    const repinned = servePinned('voice_styles/F2.json');
    const loaded = await fetchModelFile(repinned.file, repinned.url, deps(cache).d);
    expectSameBytes(loaded.bytes, repinned.bytes);
    expect(loaded.fromCache).toBe(false);
    expect(hits.get('/voice_styles/F2.json')).toBe(2);
  });

  it('still delivers a verified file the cache cannot store, and warns that it was not kept', async () => {
    const { file, url } = servePinned('voice_styles/F3.json');
    const cache = new MemoryCache();
    const quota = new DOMException('Quota exceeded.', 'QuotaExceededError');
    cache.failPutWith = quota;
    const { d, warnings } = deps(cache);
    const loaded = await fetchModelFile(file, url, d);
    expect(loaded.verified).toBe(true);
    expect(warnings).toEqual([{ kind: 'not-cached', path: file.path, url, cause: quota }]);
  });
});

describe('fetchModelFiles', () => {
  it('fetches each file once even when listed twice, with overall progress rising to the sum of the files', async () => {
    const a = servePinned('onnx/vocoder.onnx', 120_000);
    const b = servePinned('onnx/tts.json', 30_000);
    const unpinnedBytes = new Uint8Array(randomBytes(40_000));
    routes.set('/onnx/text_encoder.onnx', { body: unpinnedBytes });
    const c: UnpinnedFile = { path: 'onnx/text_encoder.onnx', size: null, sha256: null };
    const cache = new MemoryCache();
    const { d, progress, warnings } = deps(cache);
    const files: ModelFile[] = [a.file, b.file, a.file, c, b.file];
    const loaded = await fetchModelFiles(files, (file) => `${origin}/${file.path}`, d);

    expect([...loaded.keys()].sort()).toEqual(['onnx/text_encoder.onnx', 'onnx/tts.json', 'onnx/vocoder.onnx']);
    expectSameBytes(loaded.get('onnx/vocoder.onnx')?.bytes, a.bytes);
    expect(loaded.get('onnx/text_encoder.onnx')?.verified).toBe(false);
    expect([...hits.values()]).toEqual([1, 1, 1]);
    expectRising(progress.map((p) => p.bytesDone));
    expectRising(progress.map((p) => p.bytesTotal));
    expect(progress.every((p) => p.bytesDone <= p.bytesTotal)).toBe(true);
    expect(progress.at(-1)).toEqual({ bytesDone: 190_000, bytesTotal: 190_000 });
    expect(warnings.map((w) => w.kind)).toEqual(['unverified']);

    const again = deps(cache);
    await fetchModelFiles(files, (file) => `${origin}/${file.path}`, again.d);
    expect([...hits.values()]).toEqual([1, 1, 1]);
    expect(again.progress.at(-1)).toEqual({ bytesDone: 190_000, bytesTotal: 190_000 });
  });

  it('stops the other downloads at the first failure and rejects with that failure', async () => {
    const big = servePinned('onnx/vector_estimator.onnx', 300_000);
    routes.set('/onnx/vector_estimator.onnx', { body: big.bytes, stallAt: 30_000 });
    const missing: PinnedFile = { path: 'onnx/gone.onnx', size: 5, sha256: 'b'.repeat(64) };
    const cache = new MemoryCache();
    const error = await fetchModelFiles([big.file, missing], (file) => `${origin}/${file.path}`, deps(cache).d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelDownloadError);
    expect((error as ModelDownloadError).status).toBe(404);
    expect(cache.entries.size).toBe(0);
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const big = servePinned('onnx/vector_estimator.onnx', 300_000);
    routes.set('/onnx/vector_estimator.onnx', { body: big.bytes, stallAt: 30_000 });
    const small = servePinned('onnx/tts.json', 1000);
    const controller = new AbortController();
    const { d } = deps(new MemoryCache(), {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.bytesDone >= 30_000) controller.abort(new Error('closed'));
      },
    });
    const error = await fetchModelFiles([big.file, small.file], (file) => `${origin}/${file.path}`, d).catch((e: unknown) => e);
    expect(error).toBe(controller.signal.reason);
  });

  it('refuses one path listed with two different pins', async () => {
    const a: PinnedFile = { path: 'onnx/tts.json', size: 1, sha256: 'a'.repeat(64) };
    const b: PinnedFile = { path: 'onnx/tts.json', size: 1, sha256: 'c'.repeat(64) };
    await expect(fetchModelFiles([a, b], (file) => `${origin}/${file.path}`, deps(new MemoryCache()).d)).rejects.toThrow(ModelManifestError);
  });
});
