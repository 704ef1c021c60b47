import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/app';
import { ConfigError, readConfig, SERVER_DEFAULTS } from '../../server/config';

let distDir = '';
let modelsDir = '';

const configFor = (dist: string) => ({
  distDir: dist,
  modelsDir,
  modelBase: { kind: 'mirror', url: '/models' } as const,
  modelVersion: 'supertonic-3' as const,
});

beforeAll(async () => {
  distDir = await mkdtemp(join(tmpdir(), 'confab-dist-'));
  await mkdir(join(distDir, 'assets'));
  await writeFile(join(distDir, 'index.html'), '<!doctype html><title>Confab</title><div id="app"></div>');
  await writeFile(join(distDir, 'assets', 'main-abc123.js'), 'console.log(1)');
  await writeFile(join(distDir, 'sw.js'), 'self.addEventListener("fetch", () => {})');
  modelsDir = await mkdtemp(join(tmpdir(), 'confab-models-'));
  await mkdir(join(modelsDir, 'supertonic-3', 'onnx'), { recursive: true });
  await writeFile(join(modelsDir, 'supertonic-3', 'onnx', 'tts.json'), '{"ae":{}}');
});

describe('the server', () => {
  it('answers its health check', async () => {
    const res = await createApp({ config: configFor(distDir) }).request('/api/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('serves the entry page at the root and at a bot’s voice page, never cached stale', async () => {
    const app = createApp({ config: configFor(distDir) });
    for (const path of ['/', '/voice/sage']) {
      const res = await app.request(path);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toContain('<title>Confab</title>');
      expect(res.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('caches hashed assets for good and the service worker not at all', async () => {
    const app = createApp({ config: configFor(distDir) });
    const asset = await app.request('/assets/main-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const sw = await app.request('/sw.js');
    expect(sw.headers.get('cache-control')).toBe('no-cache');
  });

  it('gives a path that is no page the page with a 404, and a missing file a plain 404', async () => {
    const app = createApp({ config: configFor(distDir) });
    const page = await app.request('/no/such/page');
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('<div id="app">');
    const file = await app.request('/assets/gone.js');
    expect(file.status).toBe(404);
    expect(await file.json()).toEqual({ error: 'There is no such file.' });
  });

  it('answers an unknown API route with a JSON 404', async () => {
    const res = await createApp({ config: configFor(distDir) }).request('/api/nothing', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'There is no such API route.' });
  });

  it('says how to build the page when it has not been built', async () => {
    const res = await createApp({ config: configFor(join(distDir, 'missing')) }).request('/');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toMatch(/npm run build/);
  });

  it('runs cross-origin isolated and allows the microphone to itself only', async () => {
    const res = await createApp({ config: configFor(distDir) }).request('/');
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(res.headers.get('cross-origin-embedder-policy')).toBe('credentialless');
    expect(res.headers.get('permissions-policy')).toBe('microphone=(self)');
  });
});

describe('the model mirror', () => {
  it('tells the page which model to load and from where', async () => {
    const res = await createApp({ config: configFor(distDir) }).request('/api/config');
    expect(await res.json()).toEqual({ model: { version: 'supertonic-3', base: { kind: 'mirror', url: '/models' } } });
  });

  it('serves self-hosted model files under /models/<version>/<path>', async () => {
    const res = await createApp({ config: configFor(distDir) }).request('/models/supertonic-3/onnx/tts.json');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"ae":{}}');
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('says how to self-host when a model file is missing', async () => {
    const res = await createApp({ config: configFor(distDir) }).request('/models/supertonic-3/onnx/vocoder.onnx');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toMatch(/npm run models/);
  });
});

describe('server configuration', () => {
  it('runs on its defaults with nothing set', () => {
    const config = readConfig({}, '/srv/confab');
    expect(config).toEqual({
      port: SERVER_DEFAULTS.port,
      host: '127.0.0.1',
      distDir: '/srv/confab/dist',
      modelsDir: '/srv/confab/models',
      modelBase: { kind: 'hub' },
      modelVersion: 'supertonic-3',
      allowedOrigins: [],
      newPersonsPerHour: 30,
    });
  });

  it('takes a port, a host and a build folder from the environment', () => {
    expect(
      readConfig(
        { PORT: '9000', HOST: '0.0.0.0', CONFAB_DIST: '/opt/dist', CONFAB_MODELS_DIR: 'weights', CONFAB_MODEL_BASE: '/models', CONFAB_MODEL_VERSION: 'supertonic-2' },
        '/x',
      ),
    ).toEqual({
      port: 9000,
      host: '0.0.0.0',
      distDir: '/opt/dist',
      modelsDir: '/x/weights',
      modelBase: { kind: 'mirror', url: '/models' },
      modelVersion: 'supertonic-2',
      allowedOrigins: [],
      newPersonsPerHour: 30,
    });
  });

  it('refuses a port that is not one, saying what it accepts', () => {
    for (const PORT of ['eighty', '0', '70000', '80.5']) {
      expect(() => readConfig({ PORT })).toThrow(ConfigError);
    }
    expect(() => readConfig({ PORT: 'eighty' })).toThrow(/PORT is "eighty".*1 to 65535/);
  });

  it('refuses a model setting it cannot use, saying what it accepts', () => {
    expect(() => readConfig({ CONFAB_MODEL_VERSION: 'supertonic-9' })).toThrow(ConfigError);
    expect(() => readConfig({ CONFAB_MODEL_VERSION: 'supertonic-9' })).toThrow(/supertonic-3 or supertonic-2/);
    expect(() => readConfig({ CONFAB_MODEL_BASE: 'ftp://x' })).toThrow(ConfigError);
  });

  it('takes the Supabase anon key the page signs in with, only alongside SUPABASE_URL', () => {
    const url = 'https://abcd.supabase.co';
    expect(readConfig({}).supabaseAnonKey).toBeUndefined();
    expect(readConfig({ SUPABASE_URL: url, SUPABASE_ANON_KEY: ' sb_publishable_abc ' }).supabaseAnonKey).toBe('sb_publishable_abc');
    expect(() => readConfig({ SUPABASE_URL: url })).toThrow(/SUPABASE_URL is set but SUPABASE_ANON_KEY is not/);
    expect(() => readConfig({ SUPABASE_ANON_KEY: 'sb_publishable_abc' })).toThrow(/SUPABASE_ANON_KEY is set but SUPABASE_URL is not/);
  });

  it('refuses a secret key where the public anon key goes, without repeating it', () => {
    const url = 'https://abcd.supabase.co';
    const secret = 'the-project-jwt-secret-of-more-than-32-chars';
    const legacyKey = (role: string) =>
      ['{"alg":"HS256","typ":"JWT"}', JSON.stringify({ iss: 'supabase', role })].map((part) => Buffer.from(part).toString('base64url')).join('.') + '.signature';
    for (const env of [
      { SUPABASE_URL: url, SUPABASE_JWT_SECRET: secret, SUPABASE_ANON_KEY: secret },
      { SUPABASE_URL: url, SUPABASE_ANON_KEY: 'sb_secret_0123456789' },
      { SUPABASE_URL: url, SUPABASE_ANON_KEY: legacyKey('service_role') },
    ]) {
      expect(() => readConfig(env)).toThrow(ConfigError);
      expect(() => readConfig(env)).toThrow(/SUPABASE_ANON_KEY holds a secret key/);
      expect(() => readConfig(env)).not.toThrow(env.SUPABASE_ANON_KEY);
    }
    expect(readConfig({ SUPABASE_URL: url, SUPABASE_ANON_KEY: legacyKey('anon') }).supabaseAnonKey).toBe(legacyKey('anon'));
  });
});
