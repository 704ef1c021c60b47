import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compareFile,
  describeCause,
  describeMismatch,
  fileUrl,
  hostOf,
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
  REQUIRED_PATHS,
  serializeManifest,
  toHex,
} from '../../../common/voice/manifest';
import type { ModelSource } from '../../../common/voice/manifest';
import { SHARED_SUPERTONIC } from '../../helpers/supertonicData';

const MANIFEST_FILE = resolve(import.meta.dirname, '..', '..', '..', 'models', 'manifest.json');
const manifestText = readFileSync(MANIFEST_FILE, 'utf8');

/** A valid manifest as plain JSON, every file pinned to made-up values, for a test to spoil. */
function validJson(): { default: string; versions: Record<string, { repo: string; revision: string; files: Record<string, unknown>[] }> } {
  const files = () => REQUIRED_PATHS.map((path, i) => ({ path, size: 100 + i, sha256: i.toString(16).padStart(64, '0') }));
  return {
    default: 'supertonic-3',
    versions: {
      'supertonic-3': { repo: 'Supertone/supertonic-3', revision: 'main', files: files() },
      'supertonic-2': { repo: 'Supertone/supertonic-2', revision: 'main', files: files() },
    },
  };
}

function parseError(json: unknown): string {
  try {
    parseManifest(json);
  } catch (error) {
    expect(error).toBeInstanceOf(ModelManifestError);
    return (error as Error).message;
  }
  throw new Error('parseManifest accepted it');
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('models/manifest.json', () => {
  const manifest = parseManifest(JSON.parse(manifestText));

  it('parses, defaults to Supertonic 3 and lists every file of both versions', () => {
    expect(manifest.default).toBe('supertonic-3');
    for (const version of MODEL_VERSIONS) {
      expect(manifest.versions[version].repo).toBe(`Supertone/${version}`);
      expect(manifest.versions[version].files.map((f) => f.path)).toEqual(REQUIRED_PATHS);
    }
  });

  it('is written in the canonical form, so a re-pin rewrites only what changed', () => {
    expect(serializeManifest(manifest)).toBe(manifestText);
  });

  it('pins each JSON file of both versions to the real published bytes', () => {
    for (const version of MODEL_VERSIONS) {
      for (const file of manifest.versions[version].files.filter((f) => f.path.endsWith('.json'))) {
        const bytes = readFileSync(join(SHARED_SUPERTONIC, version, ...file.path.split('/')));
        expect({ path: `${version}/${file.path}`, size: file.size, sha256: file.sha256 }).toEqual({
          path: `${version}/${file.path}`,
          size: bytes.byteLength,
          sha256: sha256(bytes),
        });
      }
    }
  });

  it('pins the Supertonic 2 weights to their Git LFS pointers', () => {
    for (const file of manifest.versions['supertonic-2'].files.filter((f) => f.path.endsWith('.onnx'))) {
      const pointer = readFileSync(join(SHARED_SUPERTONIC, 'supertonic-2', 'lfs-pointers', `${file.path.slice('onnx/'.length)}.pointer`), 'utf8');
      expect(pointer).toContain(`oid sha256:${file.sha256 ?? 'unpinned'}`);
      expect(pointer).toContain(`size ${file.size ?? 'unpinned'}`);
    }
  });

  it('pins every file of both versions, and Supertonic 3 at the revision whose LFS pointers gave its weights', () => {
    for (const version of MODEL_VERSIONS) expect(manifest.versions[version].files.filter((f) => !isPinned(f))).toEqual([]);
    const pointers = join(SHARED_SUPERTONIC, 'supertonic-3', 'lfs-pointers');
    for (const file of manifest.versions['supertonic-3'].files.filter((f) => f.path.endsWith('.onnx'))) {
      const pointer = readFileSync(join(pointers, `${basename(file.path)}.pointer`), 'utf8');
      expect([file.size, file.sha256]).toEqual([Number(/^size (\d+)$/m.exec(pointer)?.[1]), /^oid sha256:([0-9a-f]{64})$/m.exec(pointer)?.[1]]);
    }
    expect(manifest.versions['supertonic-3'].revision).toBe(readFileSync(join(SHARED_SUPERTONIC, 'supertonic-3', 'REVISION'), 'utf8').match(/[0-9a-f]{40}/)?.[0]);
    // Supertonic 2's upstream commit is still unknown here: its branch is fetched, and every file verified.
    expect(MODEL_VERSIONS.map((v) => isRevisionPinned(manifest.versions[v].revision))).toEqual([true, false]);
  });
});

describe('parseManifest', () => {
  it('keeps the comment and reads files as pinned or unpinned', () => {
    const json = validJson();
    const head = json.versions['supertonic-2']?.files[0];
    if (head === undefined) throw new Error('no file');
    head.size = null;
    head.sha256 = null;
    const manifest = parseManifest({ $comment: 'note', ...json });
    expect(manifest.comment).toBe('note');
    expect(manifest.versions['supertonic-2'].version).toBe('supertonic-2');
    expect(manifest.versions['supertonic-2'].files[0]).toEqual({ path: 'onnx/duration_predictor.onnx', size: null, sha256: null });
    expect(manifest.versions['supertonic-3'].files.every(isPinned)).toBe(true);
    expect(parseManifest(JSON.parse(serializeManifest(manifest)))).toEqual(manifest);
    expect('comment' in parseManifest(validJson())).toBe(false);
  });

  it('names the file, the field and the rule when something is wrong', () => {
    const cases: [string, (json: ReturnType<typeof validJson>) => unknown][] = [
      ['models/manifest.json: the top level must be an object; it is [].', () => []],
      ['$comment must be a string; it is 3.', (j) => ({ ...j, $comment: 3 })],
      ['default must be one of supertonic-3, supertonic-2; it is "supertonic-9".', (j) => ({ ...j, default: 'supertonic-9' })],
      ['versions must be an object with one entry per model version; it is missing.', (j) => ({ default: j.default })],
      ['versions.supertonic-9 is not a manifest field; the fields there are supertonic-3, supertonic-2.', (j) => ({ ...j, versions: { ...j.versions, 'supertonic-9': {} } })],
      ['versions.supertonic-2 must be an object with repo, revision and files; it is missing.', (j) => ({ ...j, versions: { 'supertonic-3': j.versions['supertonic-3'] } })],
      ['versions.supertonic-3.repo must be a Hugging Face repo, "owner/name"; it is "supertonic".', (j) => set(j, 'repo', 'supertonic')],
      ['versions.supertonic-3.revision must be a 40-hex commit id or a branch such as "main"; it is "../main".', (j) => set(j, 'revision', '../main')],
      ['versions.supertonic-3.files must be an array of files; it is {}.', (j) => set(j, 'files', {})],
      ['versions.supertonic-3.files[0] must be an object with path, size and sha256; it is "onnx/vocoder.onnx".', (j) => file(j, 'onnx/vocoder.onnx')],
      ['versions.supertonic-3.files[0].sha265 is not a manifest field; the fields there are path, size, sha256.', (j) => file(j, { ...first(j), sha265: 'x' })],
      ['versions.supertonic-3.files[0].path must be a relative path', (j) => file(j, { ...first(j), path: '../etc/passwd' })],
      ['versions.supertonic-3.files[0].path must be a relative path', (j) => file(j, { ...first(j), path: '/onnx/vocoder.onnx' })],
      ['versions.supertonic-3.files[0].size must be a whole number of bytes, or null while the file is unpinned; it is -1.', (j) => file(j, { ...first(j), size: -1 })],
      ['versions.supertonic-3.files[0].size must be a whole number of bytes, or null while the file is unpinned; it is "12".', (j) => file(j, { ...first(j), size: '12' })],
      ['versions.supertonic-3.files[0].sha256 must be 64 lower-case hex digits, or null while the file is unpinned; it is "ABC".', (j) => file(j, { ...first(j), sha256: 'ABC' })],
      ['versions.supertonic-3.files[0] (onnx/duration_predictor.onnx) must have both size and sha256, or both null while unpinned', (j) => file(j, { ...first(j), sha256: null })],
      ['versions.supertonic-3.files[0] (onnx/duration_predictor.onnx) must have both size and sha256, or both null while unpinned', (j) => file(j, { ...first(j), size: null })],
      ['versions.supertonic-3.files lists onnx/tts.json twice; list each file once.', (j) => set(j, 'files', [...(j.versions['supertonic-3']?.files ?? []), { path: 'onnx/tts.json', size: null, sha256: null }])],
      ['versions.supertonic-3.files lacks onnx/vocoder.onnx, voice_styles/M5.json; every version needs', (j) => set(j, 'files', (j.versions['supertonic-3']?.files ?? []).filter((f) => f.path !== 'onnx/vocoder.onnx' && f.path !== 'voice_styles/M5.json'))],
      ['versions.supertonic-3.url is not a manifest field', (j) => set(j, 'url', 'https://example.com')],
      ['models/manifest.json: pin is not a manifest field; the fields there are $comment, default, versions.', (j) => ({ ...j, pin: true })],
    ];
    for (const [message, spoil] of cases) expect(parseError(spoil(validJson()))).toContain(message);
  });

  it('accepts a commit, a tag and a PR ref as the revision, and extra files beyond the required ones', () => {
    const json = validJson();
    set(json, 'revision', 'refs/pr/1');
    json.versions['supertonic-3']?.files.push({ path: 'voice_styles/N1.json', size: 1, sha256: 'f'.repeat(64) });
    expect(parseManifest(json).versions['supertonic-3'].files).toHaveLength(REQUIRED_PATHS.length + 1);
    expect(parseManifest(set(validJson(), 'revision', 'a'.repeat(40))).versions['supertonic-3'].revision).toBe('a'.repeat(40));
  });

  it('names the file it was given', () => {
    expect(() => parseManifest(null, '/tmp/m.json')).toThrow('/tmp/m.json: the top level must be an object; it is null.');
  });
});

function set(json: ReturnType<typeof validJson>, key: string, value: unknown): ReturnType<typeof validJson> {
  (json.versions['supertonic-3'] as unknown as Record<string, unknown>)[key] = value;
  return json;
}

function first(json: ReturnType<typeof validJson>): Record<string, unknown> {
  return json.versions['supertonic-3']?.files[0] ?? {};
}

function file(json: ReturnType<typeof validJson>, value: unknown): ReturnType<typeof validJson> {
  const files = json.versions['supertonic-3']?.files ?? [];
  return set(json, 'files', [value, ...files.slice(1)]);
}

describe('versions and revisions', () => {
  it('knows the two versions, the default first', () => {
    expect(MODEL_VERSIONS).toEqual(['supertonic-3', 'supertonic-2']);
    expect(isModelVersion('supertonic-2')).toBe(true);
    expect(isModelVersion('supertonic-1')).toBe(false);
    expect(isModelVersion(3)).toBe(false);
  });

  it('counts only a full commit id as a pinned revision', () => {
    expect(isRevisionPinned('0123456789abcdef0123456789abcdef01234567')).toBe(true);
    expect(isRevisionPinned('main')).toBe(false);
    expect(isRevisionPinned('0123456')).toBe(false);
    expect(isRevisionPinned('0123456789ABCDEF0123456789ABCDEF01234567')).toBe(false);
  });
});

describe('fileUrl', () => {
  const v3: ModelSource = { version: 'supertonic-3', repo: 'Supertone/supertonic-3', revision: 'main', files: [] };

  it('points at the hub repo at the revision by default', () => {
    expect(fileUrl({ kind: 'hub' }, v3, { path: 'onnx/vector_estimator.onnx' })).toBe(
      'https://huggingface.co/Supertone/supertonic-3/resolve/main/onnx/vector_estimator.onnx',
    );
  });

  it('keeps the hub layout on another origin and escapes a revision with slashes', () => {
    expect(fileUrl({ kind: 'hub', origin: 'http://127.0.0.1:9/' }, { ...v3, revision: 'refs/pr/1' }, { path: 'voice_styles/F1.json' })).toBe(
      'http://127.0.0.1:9/Supertone/supertonic-3/resolve/refs%2Fpr%2F1/voice_styles/F1.json',
    );
  });

  it('lays a mirror out as <base>/<version>/<path>', () => {
    expect(fileUrl({ kind: 'mirror', url: '/models' }, v3, { path: 'onnx/tts.json' })).toBe('/models/supertonic-3/onnx/tts.json');
    expect(fileUrl({ kind: 'mirror', url: 'https://cdn.example.org/confab' }, v3, { path: 'voice_styles/M 1.json' })).toBe(
      'https://cdn.example.org/confab/supertonic-3/voice_styles/M%201.json',
    );
  });
});

describe('parseModelBase', () => {
  it('reads nothing as the hub and a URL or site path as a mirror, without trailing slashes', () => {
    expect(parseModelBase(undefined)).toEqual({ kind: 'hub' });
    expect(parseModelBase('  ')).toEqual({ kind: 'hub' });
    expect(parseModelBase('https://cdn.example.org/models/')).toEqual({ kind: 'mirror', url: 'https://cdn.example.org/models' });
    expect(parseModelBase('http://10.0.0.2:8787')).toEqual({ kind: 'mirror', url: 'http://10.0.0.2:8787' });
    expect(parseModelBase('/models/')).toEqual({ kind: 'mirror', url: '/models' });
  });

  it('refuses anything else, naming the setting and what it accepts', () => {
    expect(() => parseModelBase('models')).toThrow(ModelBaseError);
    expect(() => parseModelBase('models')).toThrow(
      'CONFAB_MODEL_BASE is "models"; set it to an http(s) URL or a path on this site such as /models where the model files are laid out as <base>/<version>/<path>, or leave it unset to download from https://huggingface.co.',
    );
    expect(() => parseModelBase('ftp://x/models')).toThrow(ModelBaseError);
    expect(() => parseModelBase('/', { name: '--base' })).toThrow('--base is "/"');
    expect(() => parseModelBase('/models', { name: '--base', allowRelative: false })).toThrow('--base is "/models"; set it to an http(s) URL where');
  });
});

describe('verification', () => {
  const pinned = { path: 'onnx/tts.json', size: 3, sha256: 'a'.repeat(64) };

  it('compares size first, then the digest', () => {
    expect(compareFile(pinned, { size: 3, sha256: 'a'.repeat(64) })).toBeNull();
    expect(compareFile(pinned, { size: 2, sha256: 'b'.repeat(64) })).toEqual({ field: 'size', expected: 3, got: 2 });
    expect(compareFile(pinned, { size: 3, sha256: 'b'.repeat(64) })).toEqual({ field: 'sha256', expected: 'a'.repeat(64), got: 'b'.repeat(64) });
  });

  it('writes digests as lower-case hex', () => {
    expect(toHex(new Uint8Array([0, 15, 255]))).toBe('000fff');
    expect(toHex(new Uint8Array([171, 205]).buffer)).toBe('abcd');
  });

  it('describes a mismatch with its numbers and how it went wrong', () => {
    expect(describeMismatch({ field: 'size', expected: 1_521_526, got: 4096, note: 'the connection broke off' })).toBe(
      'expected 1,521,526 bytes, got 4,096 bytes (the connection broke off)',
    );
    expect(describeMismatch({ field: 'size', expected: null, got: 10 })).toBe('expected the whole file, got 10 bytes');
    expect(describeMismatch({ field: 'sha256', expected: 'aa', got: 'bb' })).toBe('expected sha256 aa, got bb');
  });

  it('names the file, the URL, expected against got, and the advice in a ModelFileError', () => {
    const cause = new Error('terminated');
    const error = new ModelFileError('onnx/vocoder.onnx', 'https://h/x', { field: 'size', expected: 10, got: 5 }, 'Try again.', { cause });
    expect(error.name).toBe('ModelFileError');
    expect(error.message).toBe('Model file onnx/vocoder.onnx from https://h/x is damaged or not the pinned file: expected 10 bytes, got 5 bytes. Try again.');
    expect(error.cause).toBe(cause);
    expect(error.mismatch).toEqual({ field: 'size', expected: 10, got: 5 });
  });
});

describe('download errors', () => {
  it('says which host could not be reached, why, and what to do', () => {
    const cause = new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND huggingface.co') });
    const error = new ModelDownloadError('https://huggingface.co/Supertone/supertonic-3/resolve/main/onnx/tts.json', null, 'Use a mirror.', { cause });
    expect(error).toBeInstanceOf(ModelDownloadError);
    expect(error.name).toBe('ModelDownloadError');
    expect(error.status).toBeNull();
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('Could not reach huggingface.co: fetch failed (getaddrinfo ENOTFOUND huggingface.co). Use a mirror.');
  });

  it('names the URL and status of an HTTP error, with advice by status', () => {
    const httpError = (status: number, statusText: string) => new ModelDownloadError('https://h/a', { status, statusText });
    expect(httpError(403, 'Forbidden').message).toBe(
      'Could not download https://h/a: HTTP 403 Forbidden. The server refused access; check that the repo or mirror is public.',
    );
    expect(httpError(401, '').message).toContain('HTTP 401. The server refused access');
    expect(httpError(429, 'Too Many Requests').message).toContain('try again in a few minutes');
    expect(httpError(418, "I'm a teapot").message).toContain('Check that the model base points at the model files.');
    expect(httpError(404, 'Not Found').status).toBe(404);
  });

  it('finds the host of a URL and the messages down a cause chain', () => {
    expect(hostOf('http://127.0.0.1:8080/models/x')).toBe('127.0.0.1:8080');
    expect(hostOf('/models/x')).toBe('/models/x');
    expect(describeCause(new Error('outer', { cause: new Error('outer', { cause: 'inner' }) }))).toBe('outer (inner)');
    expect(describeCause(new Error('a', { cause: { code: 1 } }))).toBe('a (a failure that is not an Error)');
    expect(describeCause(404)).toBe('404');
    expect(describeCause(undefined)).toBe('unknown error');
    expect(describeCause(new Error(''))).toBe('unknown error');
    expect(describeCause(new Error('outer'))).toBe('outer');
  });
});
