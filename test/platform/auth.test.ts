/**
 * The page's auth against a local stand-in for Supabase Auth: supabase-js signs in, refreshes and
 * signs out over HTTP exactly as it would against a project, and the server side verifies the
 * tokens it gets with server/person.ts and the same JWT secret.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { personCookieKey, personFrom, readPersonMode } from '../../server/person';
import type { PersonEnv } from '../../server/person';
import { AuthError, createAuth, withAuth } from '../../src/platform/auth';
import type { AuthFailure, AuthState, SupabaseAuth } from '../../src/platform/auth';
import { memoryStorage } from '../helpers/memoryStorage';
import type { MemoryStorage } from '../helpers/memoryStorage';
import { nodeWebSocket, SupabaseAuthStandIn } from '../helpers/supabaseAuthStandIn';
import { requestRefusal } from '../helpers/words';

const JWT_SECRET = 'the-stand-in-project-jwt-secret-of-40-chars';
const PASSWORD = 'correct horse battery staple';

let standIn: SupabaseAuthStandIn;
/** A server that knows who is asking the way Confab's does in Supabase mode, with the same secret. */
let server: Hono<PersonEnv>;
const opened: SupabaseAuth[] = [];

beforeAll(async () => {
  standIn = await SupabaseAuthStandIn.start({ jwtSecret: JWT_SECRET });
  server = new Hono<PersonEnv>();
  const mode = readPersonMode({ SUPABASE_URL: standIn.url, SUPABASE_JWT_SECRET: JWT_SECRET });
  server.use('*', personFrom(mode, personCookieKey(new TextEncoder().encode('a-grant-secret-that-is-unused-in-supabase-mode'))));
  server.get('/who', (c) => c.json({ person: c.var.person }));
  server.onError((error, c) => (error instanceof HTTPException ? c.json({ error: error.message }, error.status) : c.json({ error: 'unexpected' }, 500)));
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((auth) => auth.close()));
  standIn.accessTokenLifetimeS = 3600;
  standIn.autoconfirm = true;
  standIn.anonymousSignIns = true;
  standIn.signupsOpen = true;
});

afterAll(async () => {
  await standIn.close();
});

/** The page's auth in Supabase mode, pointed at the stand-in (or at `url`). */
function supabase(storage = memoryStorage(), url = standIn.url): SupabaseAuth {
  const auth = createAuth({ kind: 'supabase', url, anonKey: standIn.anonKey }, { storage, realtimeTransport: nodeWebSocket });
  if (auth.kind !== 'supabase') throw new Error('createAuth gave local auth for a Supabase config');
  opened.push(auth);
  return auth;
}

/** What the server makes of a token: the person, or its refusal. */
async function askServer(token: string | null): Promise<{ status: number; person?: string; error?: string }> {
  const res = await server.request('/who', { headers: token === null ? {} : { Authorization: `Bearer ${token}` } });
  return { status: res.status, ...((await res.json()) as { person?: string; error?: string }) };
}

function newEmail(): string {
  return `person-${randomUUID()}@example.com`;
}

async function failure(promise: Promise<unknown>): Promise<{ reason: AuthFailure; message: string }> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof AuthError)) throw new Error(`expected an AuthError, got ${String(error)}`);
  return { reason: error.reason, message: error.message };
}

/** Records what `onChange` tells the UI; `nth(i)` waits for the i-th state. */
function watch(auth: SupabaseAuth) {
  const seen: AuthState[] = [];
  const waiting: { index: number; resolve: (state: AuthState) => void }[] = [];
  auth.onChange((state) => {
    seen.push(state);
    for (const waiter of waiting.filter((w) => w.index < seen.length)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve(seen[waiter.index] as AuthState);
    }
  });
  return {
    seen,
    nth: (index: number) =>
      new Promise<AuthState>((resolve) => {
        const state = seen[index];
        if (state === undefined) waiting.push({ index, resolve });
        else resolve(state);
      }),
  };
}

describe('local mode', () => {
  it('has no token and adds no header: the HttpOnly person cookie does the work', async () => {
    for (const auth of [createAuth(undefined), createAuth({ kind: 'local' })]) {
      expect(auth.kind).toBe('local');
      expect(await auth.accessToken()).toBeNull();
      const sent: (string | null)[] = [];
      const fetcher: typeof fetch = (_input, init) => {
        sent.push(new Headers(init?.headers).get('Authorization'));
        return Promise.resolve(new Response(null, { status: 204 }));
      };
      await withAuth(fetcher, auth)('/api/start', { method: 'POST', body: '{"bot":"demo"}' });
      expect(sent).toEqual([null]);
    }
  });
});

describe('signing in with Supabase', () => {
  it('signs in with an email and password, and the server takes its token as that person', async () => {
    const email = newEmail();
    const user = standIn.addUser(email, PASSWORD);
    const auth = supabase();
    expect(await auth.accessToken()).toBeNull();
    expect(await auth.signInWithPassword(` ${email} `, PASSWORD)).toEqual({ id: user.id, email, guest: false });
    const token = await auth.accessToken();
    expect(token).not.toBeNull();
    expect(decodeJwt(token ?? '')).toMatchObject({ sub: user.id, iss: `${standIn.url}/auth/v1`, aud: 'authenticated' });
    expect(await askServer(token)).toEqual({ status: 200, person: user.id });
    expect(standIn.calls).toContain('POST /auth/v1/token?grant_type=password');
  });

  it('says the email and password do not match, for a wrong password and for an unknown email alike', async () => {
    const email = newEmail();
    standIn.addUser(email, PASSWORD);
    const auth = supabase();
    const expected = { reason: 'wrong-credentials', message: 'That email and password do not match an account.' };
    expect(await failure(auth.signInWithPassword(email, 'not the password'))).toEqual(expected);
    expect(await failure(auth.signInWithPassword(newEmail(), PASSWORD))).toEqual(expected);
    expect(await auth.accessToken()).toBeNull();
  });

  it('asks for both fields before it calls the project', async () => {
    const auth = supabase();
    const before = standIn.calls.length;
    expect(await failure(auth.signInWithPassword('  ', PASSWORD))).toEqual({ reason: 'missing-field', message: 'Enter your email address and your password.' });
    expect((await failure(auth.createAccount(newEmail(), ''))).reason).toBe('missing-field');
    expect(standIn.calls.slice(before)).toEqual([]);
  });

  it('signs out: the token is gone, the project ends the session, and the UI hears each change', async () => {
    const email = newEmail();
    const user = standIn.addUser(email, PASSWORD);
    const auth = supabase();
    const states = watch(auth);
    expect(await states.nth(0)).toEqual({ kind: 'signed-out' });
    await auth.signInWithPassword(email, PASSWORD);
    expect(await states.nth(1)).toEqual({ kind: 'signed-in', person: { id: user.id, email, guest: false } });
    expect(standIn.liveSessions(user.id)).toBe(1);
    await auth.signOut();
    expect(await states.nth(2)).toEqual({ kind: 'signed-out' });
    expect(await auth.accessToken()).toBeNull();
    expect(standIn.liveSessions(user.id)).toBe(0);
    expect(standIn.calls).toContain('POST /auth/v1/logout?scope=local');
    expect(states.seen).toHaveLength(3);
  });

  it('refreshes an expired access token through the refresh_token grant, and the server takes the new one', async () => {
    const email = newEmail();
    const user = standIn.addUser(email, PASSWORD);
    const storage = memoryStorage();
    const auth = supabase(storage);
    const refreshes = () => standIn.calls.filter((call) => call === 'POST /auth/v1/token?grant_type=refresh_token').length;
    const refreshesBefore = refreshes();
    standIn.accessTokenLifetimeS = -60;
    await auth.signInWithPassword(email, PASSWORD);
    standIn.accessTokenLifetimeS = 3600;
    const expired = storedAccessToken(storage);
    expect(await askServer(expired)).toEqual({ status: 401, error: requestRefusal('requests.sign-in-invalid') });

    const fresh = await auth.accessToken();
    expect(fresh).not.toBe(expired);
    // Once, whether this call or supabase-js's background refresh got there first.
    expect(refreshes()).toBe(refreshesBefore + 1);
    expect(await askServer(fresh)).toEqual({ status: 200, person: user.id });
    // Fresh now, so the next call takes it as it is.
    expect(await auth.accessToken()).toBe(fresh);
  });

  it('ends a session whose refresh the project refuses, and asks for a new sign-in', async () => {
    const email = newEmail();
    const user = standIn.addUser(email, PASSWORD);
    // Another device, signed in first with a token that stays good.
    const other = supabase();
    await other.signInWithPassword(email, PASSWORD);
    const otherToken = await other.accessToken();
    expect(otherToken).not.toBeNull();
    // This device holds an expired token. Every token issued from here on is expired too, so a
    // background refresh of supabase-js's, whenever it runs, cannot leave this device a good one.
    const auth = supabase();
    standIn.accessTokenLifetimeS = -60;
    await auth.signInWithPassword(email, PASSWORD);
    // Signed out everywhere from the other device: this one's refresh token is no longer honoured.
    await fetch(`${standIn.url}/auth/v1/logout?scope=global`, {
      method: 'POST',
      headers: { apikey: standIn.anonKey, Authorization: `Bearer ${otherToken ?? ''}` },
    });
    expect(standIn.liveSessions(user.id)).toBe(0);
    expect(await auth.accessToken()).toBeNull();
  });

  it('keeps the session in storage, so the page after a reload is still signed in as the same person', async () => {
    const email = newEmail();
    const user = standIn.addUser(email, PASSWORD);
    const storage = memoryStorage();
    await supabase(storage).signInWithPassword(email, PASSWORD);
    const reloaded = supabase(storage);
    expect(await watch(reloaded).nth(0)).toEqual({ kind: 'signed-in', person: { id: user.id, email, guest: false } });
    expect(await askServer(await reloaded.accessToken())).toEqual({ status: 200, person: user.id });
  });

  it('makes an account and signs it in at once when the project does not ask for confirmation', async () => {
    const email = newEmail();
    const auth = supabase();
    const created = await auth.createAccount(email, PASSWORD);
    if (created.kind !== 'signed-in') throw new Error(`expected to be signed in, got ${created.kind}`);
    expect(created.person).toMatchObject({ email, guest: false });
    expect(standIn.user(created.person.id)?.email).toBe(email);
    expect(await askServer(await auth.accessToken())).toEqual({ status: 200, person: created.person.id });
  });

  it('makes an account that waits for its email to be confirmed when the project asks for that', async () => {
    standIn.autoconfirm = false;
    const email = newEmail();
    const auth = supabase();
    expect(await auth.createAccount(email, PASSWORD)).toEqual({ kind: 'confirm-email', email });
    expect(await auth.accessToken()).toBeNull();
    expect(await failure(auth.signInWithPassword(email, PASSWORD))).toEqual({
      reason: 'email-not-confirmed',
      message: 'That email address is not confirmed yet; open the link in the confirmation email, then sign in.',
    });
    standIn.confirm(email);
    expect((await auth.signInWithPassword(email, PASSWORD)).email).toBe(email);
  });

  it('refuses a second account for one email, a weak password and a malformed address in words a person can act on', async () => {
    const email = newEmail();
    standIn.addUser(email, PASSWORD);
    const auth = supabase();
    expect(await failure(auth.createAccount(email, PASSWORD))).toEqual({
      reason: 'account-exists',
      message: 'There is already an account with that email address; sign in instead.',
    });
    expect(await failure(auth.createAccount(newEmail(), 'abc'))).toEqual({
      reason: 'weak-password',
      message: 'That password is too easy to guess; choose a longer one.',
    });
    expect((await failure(auth.createAccount('not-an-address', PASSWORD))).reason).toBe('invalid-email');
    standIn.signupsOpen = false;
    expect((await failure(auth.createAccount(newEmail(), PASSWORD))).reason).toBe('sign-ups-closed');
  });

  it('offers only the ways in the project allows', async () => {
    const auth = supabase();
    expect(await auth.offers()).toEqual({ password: true, createAccount: true, guest: true });
    standIn.anonymousSignIns = false;
    expect(await auth.offers()).toEqual({ password: true, createAccount: true, guest: false });
    standIn.anonymousSignIns = true;
    standIn.signupsOpen = false;
    expect(await auth.offers()).toEqual({ password: true, createAccount: false, guest: false });
  });

  it('lets a guest in when the project allows it, and says so plainly when it does not', async () => {
    const auth = supabase();
    const guest = await auth.signInAsGuest();
    expect(guest).toMatchObject({ email: null, guest: true });
    expect(standIn.user(guest.id)?.anonymous).toBe(true);
    expect(await askServer(await auth.accessToken())).toEqual({ status: 200, person: guest.id });
    standIn.anonymousSignIns = false;
    expect(await failure(supabase().signInAsGuest())).toEqual({
      reason: 'guests-not-allowed',
      message: 'This site does not let guests in; sign in with an email and password.',
    });
  });

  it('says the sign-in service cannot be reached when the project is down', async () => {
    const closedUrl = await unusedUrl();
    const auth = supabase(memoryStorage(), closedUrl);
    // supabase-js prints the network error itself before returning it; keep the run's output clean.
    const printed = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await failure(auth.signInWithPassword(newEmail(), PASSWORD))).toEqual({
        reason: 'unreachable',
        message: 'The sign-in service could not be reached; check the connection and try again.',
      });
    } finally {
      printed.mockRestore();
    }
    expect((await failure(auth.offers())).reason).toBe('unreachable');
  });
});

describe('a misconfigured project', () => {
  it('passes on the service’s own words when it refuses the anon key', async () => {
    const auth = createAuth({ kind: 'supabase', url: standIn.url, anonKey: 'not-the-anon-key' }, { storage: memoryStorage(), realtimeTransport: nodeWebSocket });
    if (auth.kind !== 'supabase') throw new Error('createAuth gave local auth for a Supabase config');
    opened.push(auth);
    expect(await failure(auth.signInWithPassword(newEmail(), PASSWORD))).toEqual({
      reason: 'refused',
      message: 'The sign-in service refused: “Invalid API key”. Try again, or tell whoever runs this site.',
    });
    expect(await failure(auth.offers())).toEqual({
      reason: 'refused',
      message: 'The sign-in service answered 401 without its settings; try again, or tell whoever runs this site.',
    });
  });
});

describe('the Authorization header on the page’s calls', () => {
  const PAGE = 'https://confab.example';
  const signedIn = { accessToken: () => Promise.resolve('the-access-token') };

  /** A fetch that records the Authorization each request carried. */
  function recorder() {
    const sent: Record<string, string | null> = {};
    const fetcher: typeof fetch = (input, init) => {
      const url = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
      sent[url] = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('Authorization');
      return Promise.resolve(new Response(null, { status: 204 }));
    };
    return { sent, fetcher };
  }

  it('goes to the personal routes on the page’s own origin, and nowhere else', async () => {
    const { sent, fetcher } = recorder();
    const page = withAuth(fetcher, signedIn, PAGE);
    // Every /api route is the person's but health, config and the speak proxy, as
    // the server's personal sub-app has them: a route added there (phrases) needs nothing here.
    const personal = ['/api/start', '/api/threads?bot=demo', '/api/threads/abc/lines', '/api/memories?bot=demo', '/api/memories/7', `${PAGE}/api/threads`, '/api/mcp/tokens', '/api/mcp/tokens/abc', '/api/actions/abc/approve', '/api/notices?bot=demo', '/api/notices/n1/delivered', '/api/bots/demo/verbs?conversation=c1', '/api/bots/demo/phrases', '/api/presence?bot=demo', '/api/bots', '/api/bots/demo'];
    const other = ['/v1/chat/completions', '/api/speak', '/api/config', '/api/health', 'https://elsewhere.example/api/start', '//elsewhere.example/api/threads', '/mcp', '/apiary'];
    for (const url of [...personal, ...other]) await page(url);
    expect(Object.fromEntries(personal.map((url) => [url, sent[url]]))).toEqual(Object.fromEntries(personal.map((url) => [url, 'Bearer the-access-token'])));
    expect(Object.fromEntries(other.map((url) => [url, sent[url]]))).toEqual(Object.fromEntries(other.map((url) => [url, null])));
  });

  it('keeps an Authorization the caller set, and the request’s other headers', async () => {
    const { sent, fetcher } = recorder();
    const page = withAuth(fetcher, signedIn, PAGE);
    await page('/api/start', { headers: { Authorization: 'Bearer a-grant' } });
    expect(sent['/api/start']).toBe('Bearer a-grant');
    let forwarded: Headers | undefined;
    await withAuth((_input, init) => {
      forwarded = new Headers(init?.headers);
      return Promise.resolve(new Response(null, { status: 204 }));
    }, signedIn, PAGE)(new Request(`${PAGE}/api/threads`, { headers: { 'content-type': 'application/json' } }));
    expect(forwarded?.get('content-type')).toBe('application/json');
    expect(forwarded?.get('authorization')).toBe('Bearer the-access-token');
  });

  it('adds nothing while signed out, so the server can ask the person to sign in', async () => {
    const { sent, fetcher } = recorder();
    await withAuth(fetcher, supabase(), PAGE)('/api/start');
    expect(sent['/api/start']).toBeNull();
  });
});

/** The access token supabase-js stored at sign-in, read without letting it refresh. */
function storedAccessToken(storage: MemoryStorage): string {
  for (const text of storage.items.values()) {
    const stored = JSON.parse(text) as { access_token?: unknown };
    if (typeof stored.access_token === 'string') return stored.access_token;
  }
  throw new Error('supabase-js stored no session');
}

/** The URL of a port nothing listens on any more. */
async function unusedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}
