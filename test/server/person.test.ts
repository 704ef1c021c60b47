import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../server/config';
import {
  PERSON_COOKIE,
  PERSON_COOKIE_LIFETIME_MS,
  PERSON_COOKIE_MAX_AGE_S,
  PERSON_COOKIE_REFRESH_MS,
  personCookieKey,
  personFrom,
  readPersonMode,
  signPersonCookie,
} from '../../server/person';
import type { PersonEnv, PersonMode, PersonOptions } from '../../server/person';
import { requestRefusal } from '../helpers/words';

const GRANT_SECRET = new TextEncoder().encode('a-grant-secret-of-more-than-thirty-two-characters');
const KEY = personCookieKey(GRANT_SECRET);
const NOW = 1_750_000_000_000;
const SIGN_IN_NEEDED_MESSAGE = requestRefusal('requests.sign-in-needed');
const SIGN_IN_INVALID_MESSAGE = requestRefusal('requests.sign-in-invalid');
const SIGN_IN_KEYS_MESSAGE = requestRefusal('requests.sign-in-keys');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function appWith(mode: PersonMode, options: PersonOptions = { now: () => NOW }) {
  const app = new Hono<PersonEnv>();
  app.use('/api/*', personFrom(mode, KEY, options));
  app.get('/api/who', (c) => c.json({ person: c.var.person }));
  app.get('/api/fails', () => {
    throw new HTTPException(404, { message: 'nothing here' });
  });
  app.onError((error, c) => {
    if (error instanceof HTTPException) return c.json({ error: error.message }, error.status);
    return c.json({ error: 'unexpected' }, 500);
  });
  return app;
}

async function who(res: Response): Promise<string> {
  expect(res.status).toBe(200);
  return ((await res.json()) as { person: string }).person;
}

/** The person cookie's value and attributes from a response, or undefined when none was set. */
function personCookie(res: Response): { value: string; attributes: string } | undefined {
  const header = res.headers.getSetCookie().find((cookie) => cookie.startsWith(`${PERSON_COOKIE}=`));
  if (header === undefined) return undefined;
  const [pair = '', ...attributes] = header.split('; ');
  return { value: pair.slice(PERSON_COOKIE.length + 1), attributes: attributes.join('; ') };
}

describe('reading the person mode', () => {
  it('is local when SUPABASE_URL is unset', () => {
    expect(readPersonMode({})).toEqual({ kind: 'local' });
    expect(readPersonMode({ SUPABASE_URL: '' })).toEqual({ kind: 'local' });
  });

  it('verifies with the project’s JWKS by default, or with its JWT secret when given', () => {
    expect(readPersonMode({ SUPABASE_URL: 'https://abcd.supabase.co/' })).toEqual({
      kind: 'supabase',
      url: 'https://abcd.supabase.co',
      jwksUrl: 'https://abcd.supabase.co/auth/v1/.well-known/jwks.json',
    });
    const secret = 's'.repeat(40);
    expect(readPersonMode({ SUPABASE_URL: 'https://abcd.supabase.co', SUPABASE_JWT_SECRET: secret })).toEqual({
      kind: 'supabase',
      url: 'https://abcd.supabase.co',
      secret: new TextEncoder().encode(secret),
    });
    expect(
      readPersonMode({ SUPABASE_URL: 'http://127.0.0.1:54321', SUPABASE_JWT_SECRET: secret, SUPABASE_JWKS_URL: 'http://localhost:9999/keys' }),
    ).toMatchObject({ url: 'http://127.0.0.1:54321', jwksUrl: 'http://localhost:9999/keys' });
  });

  it.each([
    [{ SUPABASE_URL: 'http://abcd.supabase.co' }, /SUPABASE_URL must be an https:\/\/ URL/],
    [{ SUPABASE_URL: 'abcd.supabase.co' }, /SUPABASE_URL is not a URL/],
    [{ SUPABASE_URL: 'https://user:pw@abcd.supabase.co' }, /without credentials/],
    [{ SUPABASE_URL: 'https://abcd.supabase.co', SUPABASE_JWT_SECRET: 'short' }, /SUPABASE_JWT_SECRET is 5 characters/],
    [{ SUPABASE_URL: 'https://abcd.supabase.co', SUPABASE_JWKS_URL: 'http://keys.example/jwks' }, /SUPABASE_JWKS_URL must be an https/],
    [{ SUPABASE_JWT_SECRET: 's'.repeat(40) }, /SUPABASE_JWT_SECRET is set but SUPABASE_URL is not/],
  ])('refuses %o with a message naming the variable', (env, message) => {
    expect(() => readPersonMode(env)).toThrow(ConfigError);
    expect(() => readPersonMode(env)).toThrow(message);
  });

  it('never repeats a secret or a password in its messages', () => {
    expect(() => readPersonMode({ SUPABASE_URL: 'https://abcd.supabase.co', SUPABASE_JWT_SECRET: 'tiny-pw' })).not.toThrow(/tiny-pw/);
    expect(() => readPersonMode({ SUPABASE_URL: 'ftp://user:hunter2@abcd.supabase.co' })).not.toThrow(/hunter2/);
  });
});

describe('a person in local mode', () => {
  const app = appWith({ kind: 'local' });

  it('gives a first visit a new person in a signed, HttpOnly, SameSite=Lax cookie for a year', async () => {
    const res = await app.request('/api/who');
    const person = await who(res);
    expect(person).toMatch(UUID);
    const cookie = personCookie(res);
    expect(cookie?.value.startsWith(`${person}.`)).toBe(true);
    expect(cookie?.attributes).toBe(`Max-Age=${PERSON_COOKIE_MAX_AGE_S}; Path=/; HttpOnly; SameSite=Lax`);
    expect(PERSON_COOKIE_MAX_AGE_S).toBe(31_536_000);
  });

  it('issues the cookie once and knows the same person by it after', async () => {
    const first = await app.request('/api/who');
    const cookie = personCookie(first)?.value ?? '';
    const again = await app.request('/api/who', { headers: { Cookie: `${PERSON_COOKIE}=${cookie}` } });
    expect(await who(again)).toBe(await who(first));
    expect(personCookie(again)).toBeUndefined();
  });

  it('makes a tampered cookie a new person, never the one it names', async () => {
    const person = '11111111-2222-4333-8444-555555555555';
    const genuine = signPersonCookie(KEY, person, NOW);
    const other = '11111111-2222-4333-8444-555555555556';
    const forged = [
      genuine.replace(person, other),
      genuine.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A')),
      signPersonCookie(personCookieKey(new TextEncoder().encode('another-grant-secret-of-32-or-more-chars')), other, NOW),
      other,
      '',
    ];
    for (const value of forged) {
      const res = await app.request('/api/who', { headers: { Cookie: `${PERSON_COOKIE}=${value}` } });
      const given = await who(res);
      expect(given).not.toBe(person);
      expect(given).not.toBe(other);
      expect(personCookie(res)?.value.startsWith(`${given}.`)).toBe(true);
    }
  });

  it('never takes the person from the request', async () => {
    const res = await app.request('/api/who?person=someone', { headers: { 'X-Person': 'someone', Authorization: 'Bearer someone' } });
    expect(await who(res)).toMatch(UUID);
  });

  it('marks the cookie Secure over https, and behind a trusted proxy that says so', async () => {
    expect(personCookie(await app.request('https://confab.example/api/who'))?.attributes).toContain('; Secure');
    const proxied = { headers: { 'X-Forwarded-Proto': 'https' } };
    expect(personCookie(await app.request('/api/who', proxied))?.attributes).not.toContain('Secure');
    const behindProxy = appWith({ kind: 'local' }, { now: () => NOW, trustProxy: true });
    expect(personCookie(await behindProxy.request('/api/who', proxied))?.attributes).toContain('; Secure');
  });

  it('sets the cookie on a response the handler refused, too', async () => {
    const res = await app.request('/api/fails');
    expect(res.status).toBe(404);
    expect(personCookie(res)).toBeDefined();
  });

  it('re-issues an old cookie with the same person, so a regular visitor keeps their history', async () => {
    const person = '11111111-2222-4333-8444-555555555555';
    const old = signPersonCookie(KEY, person, NOW - PERSON_COOKIE_REFRESH_MS - 1000);
    const res = await app.request('/api/who', { headers: { Cookie: `${PERSON_COOKIE}=${old}` } });
    expect(await who(res)).toBe(person);
    expect(personCookie(res)?.value).toBe(signPersonCookie(KEY, person, NOW));
  });

  it('takes a cookie’s signature in its one spelling only: every other last character is a new person', async () => {
    const person = '11111111-2222-4333-8444-555555555555';
    const genuine = signPersonCookie(KEY, person, NOW);
    const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let back = 1; back <= 4; back++) {
      const at = genuine.length - back;
      for (const c of ALPHABET) {
        if (c === genuine[at]) continue;
        const changed = genuine.slice(0, at) + c + genuine.slice(at + 1);
        expect(await who(await app.request('/api/who', { headers: { Cookie: `${PERSON_COOKIE}=${changed}` } })), changed).not.toBe(person);
      }
    }
  });

  it('holds a cookie to a year server-side: older, it is a new visitor', async () => {
    const person = '11111111-2222-4333-8444-555555555555';
    const at = (nowMs: number) => appWith({ kind: 'local' }, { now: () => nowMs });
    const cookie = `${PERSON_COOKIE}=${signPersonCookie(KEY, person, NOW)}`;
    expect(await who(await at(NOW + PERSON_COOKIE_LIFETIME_MS).request('/api/who', { headers: { Cookie: cookie } }))).toBe(person);
    const late = await at(NOW + PERSON_COOKIE_LIFETIME_MS + 1000).request('/api/who', { headers: { Cookie: cookie } });
    const stranger = await who(late);
    expect(stranger).not.toBe(person);
    expect(personCookie(late)?.value.startsWith(`${stranger}.`)).toBe(true);
  });

  it('rolls the year on for a person in use, so an active person never expires', async () => {
    const person = '11111111-2222-4333-8444-555555555555';
    let cookie = signPersonCookie(KEY, person, NOW);
    // Back every 300 days for three years: each visit is within a year of the cookie it brings.
    for (let visit = 1; visit <= 4; visit++) {
      const nowMs = NOW + visit * 300 * 24 * 60 * 60 * 1000;
      const res = await appWith({ kind: 'local' }, { now: () => nowMs }).request('/api/who', { headers: { Cookie: `${PERSON_COOKIE}=${cookie}` } });
      expect(await who(res), `visit ${String(visit)}`).toBe(person);
      cookie = personCookie(res)?.value ?? '';
      expect(cookie).toBe(signPersonCookie(KEY, person, nowMs));
    }
  });

  it('signs cookies with a key of its own, derived from the grant secret', () => {
    expect(KEY).toHaveLength(32);
    expect(KEY).toEqual(personCookieKey(GRANT_SECRET));
    expect(Buffer.from(KEY).equals(Buffer.from(GRANT_SECRET.subarray(0, 32)))).toBe(false);
  });
});

describe('a person in Supabase mode', () => {
  const URL_BASE = 'https://abcd.supabase.co';
  const JWT_SECRET = 'a-supabase-jwt-secret-with-at-least-32-chars';
  const mode = readPersonMode({ SUPABASE_URL: URL_BASE, SUPABASE_JWT_SECRET: JWT_SECRET });
  const app = appWith(mode);
  const SUB = '6f1c2d3e-aaaa-4bbb-8ccc-123456789abc';

  const token = (claims: JWTPayload = {}, secret = JWT_SECRET) =>
    new SignJWT({
      role: 'authenticated',
      iss: `${URL_BASE}/auth/v1`,
      aud: 'authenticated',
      sub: SUB,
      iat: NOW / 1000 - 60,
      exp: NOW / 1000 + 3600,
      ...claims,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(secret));
  const ask = async (authorization?: string) =>
    app.request('/api/who', { headers: authorization === undefined ? {} : { Authorization: authorization } });

  it('takes the person from a valid access token’s subject', async () => {
    expect(await who(await ask(`Bearer ${await token()}`))).toBe(SUB);
  });

  it('answers 401 asking to sign in when there is no token', async () => {
    for (const authorization of [undefined, 'Bearer', 'Basic abc']) {
      const res = await ask(authorization);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: SIGN_IN_NEEDED_MESSAGE });
    }
  });

  it.each([
    ['signed with another secret', () => token({}, 'another-secret-that-is-long-enough-to-sign')],
    ['expired', () => token({ exp: NOW / 1000 - 1 })],
    ['without an expiry', () => token({ exp: undefined })],
    ['for another audience', () => token({ aud: 'anon' })],
    ['from another issuer', () => token({ iss: 'https://other.supabase.co/auth/v1' })],
    ['without a subject', () => token({ sub: undefined })],
    ['not a token at all', () => Promise.resolve('not.a.token')],
  ])('answers 401 for a token %s', async (_case, make) => {
    const res = await ask(`Bearer ${await make()}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: SIGN_IN_INVALID_MESSAGE });
  });

  it('refuses an asymmetric token when only the JWT secret is configured', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(`${URL_BASE}/auth/v1`)
      .setAudience('authenticated')
      .setSubject(SUB)
      .setExpirationTime(NOW / 1000 + 3600)
      .sign(privateKey);
    expect((await ask(`Bearer ${foreign}`)).status).toBe(401);
  });
});

describe('a person in Supabase mode with a JWKS', () => {
  let server: Server;
  let base = '';
  let signingKey: CryptoKey;
  let strangerKey: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    signingKey = pair.privateKey;
    strangerKey = (await generateKeyPair('ES256')).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'ES256', use: 'sig' };
    server = createServer((req, res) => {
      if (req.url === '/auth/v1/.well-known/jwks.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const tokenBy = (key: CryptoKey, issuer = `${base}/auth/v1`) =>
    new SignJWT({ role: 'authenticated' })
      .setProtectedHeader({ alg: 'ES256', kid: 'key-1' })
      .setIssuer(issuer)
      .setAudience('authenticated')
      .setSubject('jwks-person')
      .setExpirationTime(NOW / 1000 + 3600)
      .sign(key);

  it('verifies a token against the project’s published keys', async () => {
    const app = appWith(readPersonMode({ SUPABASE_URL: base }));
    const res = await app.request('/api/who', { headers: { Authorization: `Bearer ${await tokenBy(signingKey)}` } });
    expect(await who(res)).toBe('jwks-person');
  });

  it('answers 401 for a token signed by a key the project does not publish', async () => {
    const app = appWith(readPersonMode({ SUPABASE_URL: base }));
    const res = await app.request('/api/who', { headers: { Authorization: `Bearer ${await tokenBy(strangerKey)}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: SIGN_IN_INVALID_MESSAGE });
  });

  it('answers 503 rather than 401 when the keys cannot be fetched', async () => {
    const app = appWith(readPersonMode({ SUPABASE_URL: base, SUPABASE_JWKS_URL: `${base}/missing.json` }));
    const res = await app.request('/api/who', { headers: { Authorization: `Bearer ${await tokenBy(signingKey)}` } });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: SIGN_IN_KEYS_MESSAGE });
  });
});
