/**
 * Grants: what a conversation holds instead of a session. `POST /api/start` signs one naming one
 * bot, one person and how they were known, that bot's ceilings and an expiry thirty minutes on; the
 * chat door and the speak proxy take nothing else. It is signed rather than stored so every turn is
 * checked without a lookup, and the server stays stateless: instances sharing `GRANT_SECRET` (or,
 * over Postgres, the secret made once in the database) accept each other's.
 *
 * Token: `base64url(JSON claims) + "." + base64url(HMAC-SHA256(secret, first part))`. A bad
 * signature, a changed field, a malformed token, an expired grant and a grant for another bot all
 * get the same `GrantRefused`, on purpose: saying which was wrong tells somebody trying things
 * which half to keep.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'hono';
import { BOT_SLUG } from '../common/route';
import { strictBase64url } from './base64url';
import { bearerOf } from './bearer';
import { ConfigError } from './config';
import type { Database } from './db/database';
import { LIMIT_WINDOWS } from './db/limits';
import { sharedSecret } from './db/serverSecrets';
import type { Bot, BotLimits } from './bots';
import { isRecord } from '../common/isRecord';
import type { PersonKind } from './person';
import { refusal } from './words/requestWords';

export interface GrantClaims {
  /** The one bot this grant speaks to (its slug). */
  bot: string;
  /** The person it was granted to, as the server derived them. */
  person: string;
  /**
   * How that person was known when it was minted (`c.var.personKind`): a bare cookie may talk to a
   * bot for anyone, and not make its schedules and long runs unless its file's `work:` says anyone.
   */
  kind: PersonKind;
  /** The bot's ceilings when the grant was signed; nothing downstream may raise them. */
  limits: BotLimits;
  /** When it dies, in ms since the epoch. */
  expiresAt: number;
}

/** How long a grant lives: thirty minutes. A worker that leaks one leaks one door for that long. */
export const GRANT_TTL_MS = 30 * 60_000;

const PERSON_KINDS: readonly PersonKind[] = ['cookie', 'passkey', 'supabase'];

/** Shortest `GRANT_SECRET` accepted, in characters: 32 random characters carry at least 32 bytes' worth. */
const GRANT_SECRET_MIN_CHARS = 32;

/** The file a generated secret is kept in, inside the data folder, on the embedded database. */
export const GRANT_SECRET_FILE = 'grant-secret';
/** The name a made secret is kept under in the database (`server_secrets`), over Postgres. */
const GRANT_SECRET_NAME = 'grant';

/** Longest token looked at; anything longer is malformed before any work is done. */
const TOKEN_CHARS_MAX = 4096;

/** A grant that is not honoured, for whatever reason; it has no message, so nothing says which. */
export class GrantRefused extends Error {
  override readonly name = 'GrantRefused';
  constructor(options?: ErrorOptions) {
    super(undefined, options);
  }
}

/** The claims for a new grant for `bot` and `person` (known as `kind`), expiring `GRANT_TTL_MS` after `nowMs`. */
export function grantClaims(bot: Pick<Bot, 'slug' | 'limits'>, person: string, kind: PersonKind, nowMs: number): GrantClaims {
  return { bot: bot.slug, person, kind, limits: structuredClone(bot.limits), expiresAt: nowMs + GRANT_TTL_MS };
}

export function signGrant(secret: Uint8Array, claims: GrantClaims): string {
  const payload = Buffer.from(
    JSON.stringify({ bot: claims.bot, person: claims.person, kind: claims.kind, limits: claims.limits, expiresAt: claims.expiresAt }),
  ).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

/**
 * The claims of a grant this server (or one sharing its secret) signed, still alive at `nowMs`
 * and, when `bot` is given, for that bot. Throws `GrantRefused` otherwise.
 */
export function verifyGrant(secret: Uint8Array, token: string, { bot, nowMs }: { bot?: string; nowMs: number }): GrantClaims {
  if (token.length > TOKEN_CHARS_MAX) throw new GrantRefused();
  const [payload, signature, ...rest] = token.split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) throw new GrantRefused();
  // Both halves in their one spelling only: a lenient reading would take four last characters of a
  // signature for one, and a changed grant must get the one refusal whatever was changed.
  const body = strictBase64url(payload);
  const given = strictBase64url(signature);
  if (body === undefined || given === undefined || body.length === 0) throw new GrantRefused();
  const expected = mac(secret, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new GrantRefused();

  let claims: unknown;
  try {
    claims = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new GrantRefused({ cause: error });
  }
  if (!isClaims(claims) || nowMs >= claims.expiresAt || (bot !== undefined && claims.bot !== bot)) {
    throw new GrantRefused();
  }
  return claims;
}

/**
 * The grant a request carries as `Authorization: Bearer <grant>`, verified; a missing or refused
 * grant is a 401 with the one sentence (`requests.grant-refused`, in the request's words),
 * keeping the `GrantRefused` as its cause.
 */
export function bearerGrant(c: Context, secret: Uint8Array, options: { bot?: string; nowMs: number }): GrantClaims {
  const token = bearerOf(c);
  try {
    if (token === undefined) throw new GrantRefused();
    return verifyGrant(secret, token, options);
  } catch (error) {
    if (!(error instanceof GrantRefused)) throw error;
    throw refusal(c, 401, 'requests.grant-refused', {}, error);
  }
}

/**
 * The secret grants are signed with: `env.GRANT_SECRET` (at least 32 characters, used as its
 * UTF-8 bytes) or, when that is unset, one made once and reused on every start after:
 *
 * - on the embedded database (no `db` given: one process), into `<dataDir>/grant-secret` (mode 0600).
 *   Copying its contents into `GRANT_SECRET` on another instance makes the two accept each other's
 *   grants.
 * - over Postgres (`db`, which several instances may share), into the database (`server_secrets`,
 *   which no person may read): the first instance to start writes it — the secret it kept in
 *   `<dataDir>/grant-secret` before, if it has one, so its cookies and grants carry on — and every
 *   other reads it, so instances never sign with a secret of their own.
 *
 * Either is 32 random bytes as base64url text, used as its UTF-8 bytes. Surrounding whitespace is
 * ignored throughout.
 */
export async function loadGrantSecret({ env, dataDir, db }: { env: Record<string, string | undefined>; dataDir: string; db?: Database }): Promise<Uint8Array> {
  const given = env.GRANT_SECRET?.trim();
  const path = join(dataDir, GRANT_SECRET_FILE);
  if (given !== undefined && given !== '') {
    if (given.length < GRANT_SECRET_MIN_CHARS) {
      const unset = db === undefined ? `generate one in ${path}` : 'have one made once in the database for every instance';
      throw new ConfigError(
        `GRANT_SECRET is ${given.length} characters; set it to at least ${GRANT_SECRET_MIN_CHARS} random characters (e.g. \`openssl rand -base64 32\`), or leave it unset to ${unset}.`,
      );
    }
    return new TextEncoder().encode(given);
  }
  if (db !== undefined) {
    const made = (await readSecretFile(path)) ?? newSecret();
    return new TextEncoder().encode(await db.asServer((tx) => sharedSecret(tx, GRANT_SECRET_NAME, made)));
  }
  const existing = await readSecretFile(path);
  if (existing !== undefined) return new TextEncoder().encode(existing);

  // Written whole under a private name, then linked into place: `link` refuses to replace, so two
  // processes starting at once agree on whichever landed first and nobody reads half a secret.
  const draft = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(draft, newSecret(), { mode: 0o600, flag: 'wx' });
    await link(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError(`Could not write a new grant secret to ${path}; make ${dataDir} writable or set GRANT_SECRET.`, { cause: error });
    }
  } finally {
    await rm(draft, { force: true });
  }
  const made = await readSecretFile(path);
  if (made === undefined) throw new ConfigError(`The grant secret at ${path} vanished as it was written; start again.`);
  return new TextEncoder().encode(made);
}

const newSecret = () => randomBytes(32).toString('base64url');

/** The secret's text kept at `path`, or undefined when there is no file. */
async function readSecretFile(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Could not read the grant secret at ${path}; fix its permissions or set GRANT_SECRET.`, { cause: error });
  }
  if (text.length < GRANT_SECRET_MIN_CHARS) {
    throw new ConfigError(
      `The grant secret at ${path} is shorter than ${GRANT_SECRET_MIN_CHARS} characters; delete it to have a new one made (open conversations and person cookies will start over) or set GRANT_SECRET.`,
    );
  }
  return text;
}

function mac(secret: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

function isClaims(value: unknown): value is GrantClaims {
  if (!isRecord(value) || !hasOnly(value, ['bot', 'person', 'kind', 'limits', 'expiresAt'])) return false;
  return (
    typeof value.bot === 'string' &&
    BOT_SLUG.test(value.bot) &&
    typeof value.person === 'string' &&
    value.person !== '' &&
    PERSON_KINDS.includes(value.kind as PersonKind) &&
    Number.isSafeInteger(value.expiresAt) &&
    isLimits(value.limits)
  );
}

function isLimits(value: unknown): value is BotLimits {
  if (!isRecord(value) || !hasOnly(value, ['steps', 'spend', 'minutes', ...LIMIT_WINDOWS])) return false;
  if (![value.steps, value.spend, value.minutes].every(isAmount)) return false;
  return LIMIT_WINDOWS.every((window) => {
    const ceiling = value[window];
    return (
      ceiling === undefined ||
      (isRecord(ceiling) &&
        hasOnly(ceiling, ['answers', 'spend']) &&
        (ceiling.answers === undefined || isAmount(ceiling.answers)) &&
        (ceiling.spend === undefined || isAmount(ceiling.spend)))
    );
  });
}

const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

const hasOnly = (value: Record<string, unknown>, keys: readonly string[]) => Object.keys(value).every((key) => keys.includes(key));
