/**
 * Who is asking. The person is derived here, by the server, and never taken from a request field:
 *
 * - Local mode (the default): each browser is a person. The first request without a valid
 *   `confab_person` cookie is given a new random id in one — HttpOnly, SameSite=Lax, Path=/, a
 *   year long, Secure over https — signed with a key derived from the grant secret so it cannot be
 *   forged. A cookie whose signature does not hold (tampered with, or signed under another secret)
 *   is not an error: that browser simply becomes a new person, and the old id is never honoured.
 *   The cookie carries when it was issued, and the server holds it to a year too (a browser's
 *   Max-Age is the browser's word only): a cookie issued over a year ago is a new visitor. A cookie
 *   in use and over thirty days old is re-issued with the same id, so a person who keeps coming
 *   back keeps their history — the year rolls with them.
 *   A browser becoming a new person counts against its client address (`newPersons.ts`); past the
 *   hour's count it is refused 429 with `x-confab-refused: site`, before anything is made for it.
 * - A passkey person's device (`server/people/`): a `confab_session` cookie holds a secret whose
 *   SHA-256 names a row of `device_sessions`, and that row's person is who is asking. The row's
 *   `seen_at` moves at most once a minute; the cookie rolls (re-issued with a fresh Max-Age) once
 *   it is a day old; a row unseen for a year lapses. A session cookie that names no row (removed
 *   from Devices, signed out, lapsed) is dropped: the device is a new bare cookie person, and the
 *   response says so with `x-confab-signed-out: 1`. Once a person has a passkey their bare person
 *   cookie is no longer who they are: a device holding one is a new visitor.
 * - Supabase mode (`SUPABASE_URL` set): the page signs in with supabase-js and sends
 *   `Authorization: Bearer <access token>`; the token is verified (issuer `<url>/auth/v1`, audience
 *   `authenticated`, expiry) against the project's JWT secret (HS256) and/or its JWKS, and the
 *   person is its `sub`. A missing or invalid token is a 401.
 */
import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { JWTVerifyGetKey } from 'jose';
import { strictBase64url } from './base64url';
import { bearerOf } from './bearer';
import { REFUSED_HEADER } from './chat/doorTypes';
import { ConfigError } from './config';
import type { Database } from './db/database';
import type { NewPersons } from './newPersons';
import { endSession, sessionByHash, seeSession } from './people/deviceSessions';
import { findPerson } from './people/people';
import { sha256Hex } from './people/secrets';
import { refusal, requestWordsOf } from './words/requestWords';
import { say } from './words/words';
import { SIGNED_OUT_HEADER } from '../common/people';
import type { PersonKind } from '../common/people';

export type PersonMode =
  | { kind: 'local' }
  | {
      kind: 'supabase';
      /** The project URL without a trailing slash, e.g. `https://abcd.supabase.co`. */
      url: string;
      /** The project's JWT secret, for HS256 access tokens. */
      secret?: Uint8Array;
      /** Where the project's public signing keys are, for asymmetric access tokens. */
      jwksUrl?: string;
    };

export type { PersonKind } from '../common/people';

/** What `personFrom` puts on the Hono context: who, how, and for a passkey person's device the id of its session. */
type PersonVariables = { person: string; personKind: PersonKind; deviceSession?: string };
export type PersonEnv = { Variables: PersonVariables };

export interface PersonOptions {
  /** The clock, in ms since the epoch, for cookie ages and token expiry. Default `Date.now`. */
  now?: () => number;
  /**
   * Whether `X-Forwarded-Proto: https` from a proxy in front counts as https when deciding the
   * cookie's Secure flag. Default false: only set it behind a proxy that sets that header itself.
   */
  trustProxy?: boolean;
  /** The count of new persons by client address (in the database, `newPersons.ts`); unset, nobody is counted. */
  newPersons?: NewPersons;
  /**
   * Where passkey people's device sessions are kept (local mode); unset, a session cookie is not
   * read and every person is a bare cookie.
   */
  db?: Database;
}

export const PERSON_COOKIE = 'confab_person';
/** A passkey person's device session (`server/people/`): names a row of `device_sessions`, never the person. */
export const SESSION_COOKIE = 'confab_session';
/** How long a person cookie lasts, in seconds: a year. */
export const PERSON_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;
/** How old a cookie may get, in ms, before the server takes it for a new visitor's: a year. */
export const PERSON_COOKIE_LIFETIME_MS = PERSON_COOKIE_MAX_AGE_S * 1000;
/** How old a cookie may get, in ms, before it is re-issued with the same person. */
export const PERSON_COOKIE_REFRESH_MS = 30 * 24 * 60 * 60 * 1000;
/** How long a session cookie lasts in the browser, in seconds: a year, rolled as it is used. */
const SESSION_COOKIE_MAX_AGE_S = 365 * 24 * 60 * 60;
/** How old a session cookie may get, in ms, before it is re-issued with a fresh Max-Age: a day. */
export const SESSION_COOKIE_ROLL_MS = 24 * 60 * 60 * 1000;
/** How long a session may go unseen, in ms, before the server lets it lapse: a year. */
export const SESSION_IDLE_MS = SESSION_COOKIE_MAX_AGE_S * 1000;
/** How often a session's `seen_at` moves, at most, in ms: a write a minute, not one a request. */
export const SESSION_SEEN_EVERY_MS = 60_000;

/** Shortest `SUPABASE_JWT_SECRET` accepted, in characters (Supabase's own are longer). */
const JWT_SECRET_MIN_CHARS = 32;
const COOKIE_KEY_LABEL = 'confab person cookie v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const COOKIE_VALUE = /^([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;
/** A session cookie's value: `<secret, 43 base64url characters>.<issued, s since the epoch>`. */
const SESSION_VALUE = /^([A-Za-z0-9_-]{43})\.(\d{1,12})$/;
/** Algorithms a Supabase project signs access tokens with besides HS256. */
const ASYMMETRIC = ['ES256', 'RS256', 'EdDSA'];
/** Token failures that are the token's own; any other failure is ours (keys unreachable) — a 503. */
const TOKEN_FAULTS = new Set([
  errors.JWTExpired.code,
  errors.JWTClaimValidationFailed.code,
  errors.JWTInvalid.code,
  errors.JWSInvalid.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
]);

/**
 * Which mode the environment asks for: Supabase when `SUPABASE_URL` is set (with
 * `SUPABASE_JWT_SECRET` for HS256 tokens, and `SUPABASE_JWKS_URL` or the project's own JWKS for
 * asymmetric ones), local otherwise. Throws `ConfigError` naming the variable to fix.
 */
export function readPersonMode(env: Record<string, string | undefined>): PersonMode {
  const given = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const urlText = given('SUPABASE_URL');
  const secretText = given('SUPABASE_JWT_SECRET');
  const jwksText = given('SUPABASE_JWKS_URL');
  if (urlText === undefined) {
    if (secretText !== undefined || jwksText !== undefined) {
      throw new ConfigError(
        `${secretText === undefined ? 'SUPABASE_JWKS_URL' : 'SUPABASE_JWT_SECRET'} is set but SUPABASE_URL is not; set SUPABASE_URL to the project URL (https://<project>.supabase.co), or unset both for local mode.`,
      );
    }
    return { kind: 'local' };
  }
  const url = webUrl('SUPABASE_URL', urlText).replace(/\/+$/, '');
  const mode: PersonMode = { kind: 'supabase', url };
  if (secretText !== undefined) {
    if (secretText.length < JWT_SECRET_MIN_CHARS) {
      throw new ConfigError(
        `SUPABASE_JWT_SECRET is ${secretText.length} characters; set it to the project's JWT secret (Settings → API, at least ${JWT_SECRET_MIN_CHARS} characters), or unset it to verify with the project's JWKS.`,
      );
    }
    mode.secret = new TextEncoder().encode(secretText);
  }
  if (jwksText !== undefined) mode.jwksUrl = webUrl('SUPABASE_JWKS_URL', jwksText);
  else if (mode.secret === undefined) mode.jwksUrl = `${url}/auth/v1/.well-known/jwks.json`;
  return mode;
}

/** The key person cookies are signed with: HKDF-SHA256 of the grant secret under its own label. */
export function personCookieKey(grantSecret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', grantSecret, new Uint8Array(0), COOKIE_KEY_LABEL, 32));
}

/** Middleware that sets `c.var.person` for the rest of the request, or answers 401/503. */
export function personFrom(mode: PersonMode, cookieKey: Uint8Array, options: PersonOptions = {}): MiddlewareHandler<PersonEnv> {
  return mode.kind === 'local' ? localPerson(cookieKey, options) : supabasePerson(mode, options);
}

/** A person cookie's value: `<uuid>.<issued, s since the epoch>.<HMAC, base64url>`. */
export function signPersonCookie(cookieKey: Uint8Array, person: string, issuedMs: number): string {
  const body = `${person}.${Math.floor(issuedMs / 1000)}`;
  return `${body}.${createHmac('sha256', cookieKey).update(body).digest('base64url')}`;
}

/** The person and issue time in a cookie value this server signed, or undefined for anything else. */
export function readPersonCookie(cookieKey: Uint8Array, value: string | undefined): { person: string; issuedMs: number } | undefined {
  const match = value === undefined ? null : COOKIE_VALUE.exec(value);
  if (match === null) return undefined;
  const [, person = '', issued = '', signature = ''] = match;
  const given = strictBase64url(signature);
  const expected = createHmac('sha256', cookieKey).update(`${person}.${issued}`).digest();
  if (given === undefined || given.length !== expected.length || !timingSafeEqual(given, expected) || !UUID.test(person)) return undefined;
  return { person, issuedMs: Number(issued) * 1000 };
}

/**
 * The client's address as the socket has it. No proxy's word (X-Forwarded-For) is taken: anyone
 * can send one. Undefined where there is no socket (`app.request` in tests), which is not counted.
 */
export function clientAddress(c: Context): string | undefined {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: unknown } } } | undefined;
  const address = env?.incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? address : undefined;
}

/** Whether cookies set on `c`'s response are Secure: it came over https, or a trusted proxy says it did. */
function cookieSecure(c: Context, trustProxy: boolean): boolean {
  const forwarded = trustProxy ? c.req.header('X-Forwarded-Proto')?.split(',')[0]?.trim().toLowerCase() : undefined;
  return new URL(c.req.url).protocol === 'https:' || forwarded === 'https';
}

/**
 * Signs this device in: its session cookie holds `secret`, issued at `nowMs`, and its bare person
 * cookie is dropped — a passkey person's device is its session, never that cookie.
 */
export function setSessionCookie(c: Context, secret: string, nowMs: number, trustProxy = false): void {
  const secure = cookieSecure(c, trustProxy);
  setCookie(c, SESSION_COOKIE, `${secret}.${Math.floor(nowMs / 1000)}`, { httpOnly: true, sameSite: 'Lax', path: '/', secure, maxAge: SESSION_COOKIE_MAX_AGE_S });
  if (getCookie(c, PERSON_COOKIE) !== undefined) deleteCookie(c, PERSON_COOKIE, { path: '/', secure });
}

/** Signs this device out: both its cookies are dropped, so its next request is a new bare cookie person. */
export function dropDeviceCookies(c: Context, trustProxy = false): void {
  const secure = cookieSecure(c, trustProxy);
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure });
  deleteCookie(c, PERSON_COOKIE, { path: '/', secure });
}

/** Whether `c`'s response sets (or drops) the session cookie: a route signed the device in or out, and decided its cookies. */
function sessionDecided(c: Context): boolean {
  return c.res.headers.getSetCookie().some((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));
}

/** The device session a session cookie's value names, seen at `nowMs`; undefined when it names none that holds. */
async function sessionOf(db: Database, value: string, nowMs: number): Promise<{ id: string; person: string; secret: string; issuedMs: number } | undefined> {
  const match = SESSION_VALUE.exec(value);
  if (match === null) return undefined;
  const [, secret = '', issued = ''] = match;
  const session = await db.readAsServer((reader) => sessionByHash(reader, sha256Hex(secret)));
  if (session === undefined) return undefined;
  if (nowMs - session.seenAtMs > SESSION_IDLE_MS) {
    await db.asServer((tx) => endSession(tx, session.person, session.id));
    return undefined;
  }
  if (nowMs - session.seenAtMs >= SESSION_SEEN_EVERY_MS) await db.asServer((tx) => seeSession(tx, session.id, nowMs));
  return { id: session.id, person: session.person, secret, issuedMs: Number(issued) * 1000 };
}

function localPerson(cookieKey: Uint8Array, { now = Date.now, trustProxy = false, newPersons, db }: PersonOptions): MiddlewareHandler<PersonEnv> {
  return async (c, next) => {
    const nowMs = now();
    const sessionCookie = db === undefined ? undefined : getCookie(c, SESSION_COOKIE);
    const session = db === undefined || sessionCookie === undefined ? undefined : await sessionOf(db, sessionCookie, nowMs);
    if (session !== undefined) {
      c.set('person', session.person);
      c.set('personKind', 'passkey');
      c.set('deviceSession', session.id);
      await next();
      if (sessionDecided(c)) return;
      if (nowMs - session.issuedMs > SESSION_COOKIE_ROLL_MS || getCookie(c, PERSON_COOKIE) !== undefined) setSessionCookie(c, session.secret, nowMs, trustProxy);
      return;
    }
    const read = readPersonCookie(cookieKey, getCookie(c, PERSON_COOKIE));
    const fresh = read !== undefined && nowMs - read.issuedMs <= PERSON_COOKIE_LIFETIME_MS ? read : undefined;
    // A person with a passkey is their sessions; a bare cookie of theirs, wherever it is, no longer is.
    const passkeyPerson = fresh !== undefined && db !== undefined && (await db.readAsServer((reader) => findPerson(reader, fresh.person))) !== undefined;
    const held = passkeyPerson ? undefined : fresh;
    const address = held === undefined ? clientAddress(c) : undefined;
    if (address !== undefined && newPersons !== undefined) {
      const arrival = await newPersons.arrive(address, nowMs);
      if (!arrival.ok) {
        return c.json({ error: say(requestWordsOf(c), 'requests.new-persons') }, 429, { [REFUSED_HEADER]: 'site', 'retry-after': String(Math.ceil(arrival.retryAfterMs / 1000)) });
      }
    }
    const person = held?.person ?? randomUUID();
    c.set('person', person);
    c.set('personKind', 'cookie');
    await next();
    // Set after the handler so they reach whatever response it made, errors included; a route that
    // signed this device in has set its cookies itself.
    if (sessionDecided(c)) return;
    if (sessionCookie !== undefined) {
      c.header(SIGNED_OUT_HEADER, '1');
      deleteCookie(c, SESSION_COOKIE, { path: '/', secure: cookieSecure(c, trustProxy) });
    }
    if (held === undefined || nowMs - held.issuedMs > PERSON_COOKIE_REFRESH_MS) {
      setCookie(c, PERSON_COOKIE, signPersonCookie(cookieKey, person, nowMs), {
        httpOnly: true,
        sameSite: 'Lax',
        path: '/',
        secure: cookieSecure(c, trustProxy),
        maxAge: PERSON_COOKIE_MAX_AGE_S,
      });
    }
  };
}

function supabasePerson(mode: Extract<PersonMode, { kind: 'supabase' }>, { now = Date.now }: PersonOptions): MiddlewareHandler<PersonEnv> {
  const { secret } = mode;
  const jwks = mode.jwksUrl === undefined ? undefined : createRemoteJWKSet(new URL(mode.jwksUrl));
  const algorithms = [...(secret === undefined ? [] : ['HS256']), ...(jwks === undefined ? [] : ASYMMETRIC)];
  const key: JWTVerifyGetKey = async (header, token) => {
    if (header.alg === 'HS256' && secret !== undefined) return secret;
    if (header.alg !== 'HS256' && jwks !== undefined) return jwks(header, token);
    // jose's own words for it: the token is refused as invalid, and this message is never said.
    throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  };
  return async (c, next) => {
    const token = bearerOf(c);
    if (token === undefined) throw refusal(c, 401, 'requests.sign-in-needed');
    let subject: unknown;
    try {
      const { payload } = await jwtVerify(token, key, {
        issuer: `${mode.url}/auth/v1`,
        audience: 'authenticated',
        algorithms,
        requiredClaims: ['sub', 'exp'],
        currentDate: new Date(now()),
      });
      subject = payload.sub;
    } catch (error) {
      const own = error instanceof errors.JOSEError && TOKEN_FAULTS.has(error.code);
      throw own ? refusal(c, 401, 'requests.sign-in-invalid', {}, error) : refusal(c, 503, 'requests.sign-in-keys', {}, error);
    }
    if (typeof subject !== 'string' || subject === '') throw refusal(c, 401, 'requests.sign-in-invalid');
    c.set('person', subject);
    c.set('personKind', 'supabase');
    await next();
  };
}

function webUrl(name: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw new ConfigError(`${name} is not a URL; set it like https://<project>.supabase.co.`, { cause: error });
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    throw new ConfigError(`${name} must be an https:// URL (plain http is accepted only for localhost); it is ${url.protocol}//${url.host}.`);
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(`${name} must be a plain URL without credentials, a query or a fragment.`);
  }
  return url.href;
}
