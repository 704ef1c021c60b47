/**
 * Everything the server is configured with, read from the environment in one place. Each setting
 * has a default so `npm start` runs Confab with nothing set; a bad value is refused with a message
 * that says which variable and what it accepts.
 */
import { resolve } from 'node:path';

export interface ServerConfig {
  /** TCP port to listen on. `PORT`, default 8787. */
  port: number;
  /** Interface to bind. `HOST`, default 127.0.0.1 (this machine only; set 0.0.0.0 to serve a network). */
  host: string;
  /** Folder of the built page (`npm run build` writes it). `CONFAB_DIST`, default `dist`. */
  distDir: string;
}

export const SERVER_DEFAULTS: Readonly<ServerConfig> = Object.freeze({
  port: 8787,
  host: '127.0.0.1',
  distDir: 'dist',
});

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
  return {
    port,
    host,
    distDir: resolve(cwd, env.CONFAB_DIST === undefined || env.CONFAB_DIST === '' ? SERVER_DEFAULTS.distDir : env.CONFAB_DIST),
  };
}
