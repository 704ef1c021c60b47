/**
 * Everything the server is configured with, read from the environment in one place. Each setting
 * has a default so `npm start` runs Confab with nothing set; a bad value is refused with a message
 * that says which variable and what it accepts.
 */
import { resolve } from 'node:path';
import { isModelVersion, parseModelBase } from '../common/voice/manifest';
import type { ModelBase } from '../common/voice/manifest';
import type { ModelVersion } from '../common/voice/text';

export interface ServerConfig {
  /** TCP port to listen on. `PORT`, default 8787. */
  port: number;
  /** Interface to bind. `HOST`, default 127.0.0.1 (this machine only; set 0.0.0.0 to serve a network). */
  host: string;
  /** Folder of the built page (`npm run build` writes it). `CONFAB_DIST`, default `dist`. */
  distDir: string;
  /**
   * Folder of self-hosted model files (`npm run models` writes it), served at `/models/`.
   * `CONFAB_MODELS_DIR`, default `models`.
   */
  modelsDir: string;
  /**
   * Where the page's voice worker fetches the model: the model's hub at the manifest's revision
   * (unset), a mirror URL, or `/models` for this server. `CONFAB_MODEL_BASE`.
   */
  modelBase: ModelBase;
  /** Which Supertonic the page loads. `CONFAB_MODEL_VERSION`, default `supertonic-3`. */
  modelVersion: ModelVersion;
  /**
   * The Supabase project's anon (publishable) key, which the page signs in with; public by design.
   * `SUPABASE_ANON_KEY`, required when `SUPABASE_URL` is set, unset otherwise.
   */
  supabaseAnonKey: string | undefined;
  /**
   * Origins whose pages may act for a person here beside the server's own (each as `URL.origin`
   * spells it), and whose hosts a loopback-bound server answers to. `CONFAB_ALLOWED_ORIGINS`,
   * comma-separated; default none.
   */
  allowedOrigins: string[];
  /**
   * New local persons (browsers without a person cookie) one client address may become in any
   * hour. `CONFAB_NEW_PERSONS_PER_HOUR`, default 30.
   */
  newPersonsPerHour: number;
  /**
   * A site's own apps folder, outside the source tree: app folders and one-file apps (`<app>.md`)
   * beside the shipped ones in `server/apps/`, whose names none of them may share.
   * `CONFAB_APPS_DIR`; unset: the shipped apps alone.
   */
  appsDir: string | undefined;
}

export const SERVER_DEFAULTS = Object.freeze({
  port: 8787,
  host: '127.0.0.1',
  distDir: 'dist',
  modelsDir: 'models',
  modelVersion: 'supertonic-3',
  newPersonsPerHour: 30,
});

/** Most `CONFAB_NEW_PERSONS_PER_HOUR` takes. */
const NEW_PERSONS_PER_HOUR_MAX = 1_000_000;

/** A setting a person must fix before the server can start. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function readConfig(env: Record<string, string | undefined>, cwd = process.cwd()): ServerConfig {
  const port = env.PORT === undefined || env.PORT === '' ? SERVER_DEFAULTS.port : Number(env.PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new ConfigError(`PORT is "${env.PORT ?? ''}"; set it to a whole number from 1 to 65535, or leave it unset for ${SERVER_DEFAULTS.port}.`);
  }
  const host = env.HOST === undefined || env.HOST === '' ? SERVER_DEFAULTS.host : env.HOST;
  const version = env.CONFAB_MODEL_VERSION === undefined || env.CONFAB_MODEL_VERSION === '' ? SERVER_DEFAULTS.modelVersion : env.CONFAB_MODEL_VERSION;
  if (!isModelVersion(version)) {
    throw new ConfigError(`CONFAB_MODEL_VERSION is "${version}"; set it to supertonic-3 or supertonic-2, or leave it unset for supertonic-3.`);
  }
  let modelBase: ModelBase;
  try {
    modelBase = parseModelBase(env.CONFAB_MODEL_BASE);
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const folder = (value: string | undefined, fallback: string) => resolve(cwd, value === undefined || value === '' ? fallback : value);
  return {
    port,
    host,
    distDir: folder(env.CONFAB_DIST, SERVER_DEFAULTS.distDir),
    modelsDir: folder(env.CONFAB_MODELS_DIR, SERVER_DEFAULTS.modelsDir),
    modelBase,
    modelVersion: version,
    supabaseAnonKey: readSupabaseAnonKey(env),
    allowedOrigins: readAllowedOrigins(env.CONFAB_ALLOWED_ORIGINS),
    newPersonsPerHour: readNewPersonsPerHour(env.CONFAB_NEW_PERSONS_PER_HOUR),
    appsDir: env.CONFAB_APPS_DIR === undefined || env.CONFAB_APPS_DIR.trim() === '' ? undefined : resolve(cwd, env.CONFAB_APPS_DIR.trim()),
  };
}

/** `CONFAB_ALLOWED_ORIGINS`: each entry an http(s) origin alone, no path, query or credentials. */
export function readAllowedOrigins(given: string | undefined): string[] {
  const entries = (given ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return entries.map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const bare = url !== undefined && url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '' && !entry.endsWith('/');
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || !bare) {
      throw new ConfigError(`CONFAB_ALLOWED_ORIGINS has "${entry}", which is not an origin; list origins such as https://confab.example or http://localhost:5173, separated by commas, with no path.`);
    }
    return url.origin;
  });
}

function readNewPersonsPerHour(given: string | undefined): number {
  const text = given?.trim();
  if (text === undefined || text === '') return SERVER_DEFAULTS.newPersonsPerHour;
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > NEW_PERSONS_PER_HOUR_MAX) {
    throw new ConfigError(
      `CONFAB_NEW_PERSONS_PER_HOUR is "${text}"; give how many new persons one client address may become in an hour, a whole number from 1 to ${NEW_PERSONS_PER_HOUR_MAX} (default ${SERVER_DEFAULTS.newPersonsPerHour}).`,
    );
  }
  return count;
}

/**
 * `SUPABASE_ANON_KEY`, checked to be a key that may be public: it is sent to every browser, so the
 * project's JWT secret or its service-role (secret) key there would hand anyone the whole project.
 */
function readSupabaseAnonKey(env: Record<string, string | undefined>): string | undefined {
  const given = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const key = given('SUPABASE_ANON_KEY');
  if (given('SUPABASE_URL') === undefined) {
    if (key !== undefined) {
      throw new ConfigError('SUPABASE_ANON_KEY is set but SUPABASE_URL is not; set SUPABASE_URL to the project URL (https://<project>.supabase.co), or unset both for local mode.');
    }
    return undefined;
  }
  if (key === undefined) {
    throw new ConfigError("SUPABASE_URL is set but SUPABASE_ANON_KEY is not; set it to the project's anon (publishable) key (Settings → API), which the page signs in with.");
  }
  if (key === given('SUPABASE_JWT_SECRET') || key.startsWith('sb_secret_') || jwtRole(key) === 'service_role') {
    throw new ConfigError(
      "SUPABASE_ANON_KEY holds a secret key, and it would be sent to every browser; set it to the project's anon (publishable) key (Settings → API), never its JWT secret or service-role key.",
    );
  }
  return key;
}

/** The `role` claim of a legacy Supabase API key (a JWT), read without verifying it; undefined otherwise. */
function jwtRole(key: string): unknown {
  const payload = key.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null ? (claims as { role?: unknown }).role : undefined;
  } catch {
    return undefined;
  }
}
