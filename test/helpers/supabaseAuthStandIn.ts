/**
 * A local stand-in for the Supabase Auth (GoTrue) endpoints supabase-js calls, since no Supabase
 * stack runs here. It answers on 127.0.0.1 under `/auth/v1`, behind the same `apikey` check as
 * Supabase's gateway, and issues real HS256 access tokens signed with the test's JWT secret — issuer
 * `<url>/auth/v1`, audience `authenticated`, `sub` the user's id — so the server verifies them exactly
 * as it verifies a real project's.
 *
 * What it speaks, as supabase-js 2.x sends it and GoTrue answers it:
 * - `GET /settings`: which sign-ins the project allows.
 * - `POST /signup`: an email and password (a session at once with `autoconfirm`, else the user
 *   alone, waiting for confirmation), or no email at all: an anonymous user.
 * - `POST /token?grant_type=password` and `?grant_type=refresh_token` (refresh tokens rotate; a used
 *   one is refused).
 * - `GET /user`, `POST /logout?scope=global|local|others`.
 * Errors carry GoTrue's codes and messages, in the 2024-01-01 shape (`{code, message}` with the
 * `X-Supabase-Api-Version` header echoed) when the client asks for it, as supabase-js does.
 *
 * CORS is open, so a page in a browser test can sign in against it too.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebSocketLikeConstructor } from '@supabase/supabase-js';
import { jwtVerify, SignJWT } from 'jose';
import WebSocket from 'ws';

export interface SupabaseAuthStandInOptions {
  /** The project's JWT secret the tokens are signed with (HS256); at least 32 characters. */
  jwtSecret: string;
  /** The anon key every request must carry as `apikey`. Default `stand-in-anon-key`. */
  anonKey?: string;
}

/** A user the stand-in knows. */
export interface StandInUser {
  /** The user's id: the `sub` of their access tokens. */
  id: string;
  email: string | null;
  anonymous: boolean;
}

interface UserRecord extends StandInUser {
  passwordDigest: Buffer | null;
  confirmedAt: string | null;
  createdAt: string;
}

interface RefreshRecord {
  sessionId: string;
  userId: string;
  used: boolean;
}

/** What GoTrue answers for a session: its `AccessTokenResponse`. */
interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: Record<string, unknown>;
}

/** A refusal in GoTrue's terms: HTTP status, error code and message. */
class GoTrueRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const API_VERSION_HEADER = 'x-supabase-api-version';
const API_VERSION = '2024-01-01';
const SHORTEST_PASSWORD = 6;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A running stand-in; `start` it, point supabase-js at `url`, `close` it after. */
export class SupabaseAuthStandIn {
  /** The project URL to give supabase-js and `SUPABASE_URL`, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  readonly anonKey: string;
  /** Lifetime of access tokens issued from now on, in seconds; a negative one issues expired tokens. */
  accessTokenLifetimeS = 3600;
  /** Whether a new email account is signed in at once (true) or must confirm its email first. */
  autoconfirm = true;
  /** Whether `/signup` without an email makes an anonymous user. */
  anonymousSignIns = true;
  /** Whether new users may sign up at all. */
  signupsOpen = true;
  /** Every request it answered, as `METHOD /path?query`, in order. */
  readonly calls: string[] = [];

  private readonly users = new Map<string, UserRecord>();
  private readonly refreshTokens = new Map<string, RefreshRecord>();
  /** Live sessions by id, to the user they belong to. */
  private readonly sessions = new Map<string, string>();

  private constructor(
    private readonly server: Server,
    private readonly secret: Uint8Array,
    anonKey: string,
  ) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.anonKey = anonKey;
  }

  /** Starts a stand-in on a free port of 127.0.0.1. */
  static async start({ jwtSecret, anonKey = 'stand-in-anon-key' }: SupabaseAuthStandInOptions): Promise<SupabaseAuthStandIn> {
    if (jwtSecret.length < 32) throw new Error('The stand-in needs a JWT secret of at least 32 characters, as the server does.');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const standIn = new SupabaseAuthStandIn(server, new TextEncoder().encode(jwtSecret), anonKey);
    server.on('request', (req, res) => void standIn.answer(req, res));
    return standIn;
  }

  /** The issuer its tokens name, as the server expects it: `<url>/auth/v1`. */
  get issuer(): string {
    return `${this.url}/auth/v1`;
  }

  /** Adds an email account, confirmed unless said otherwise, as if it had signed up earlier. */
  addUser(email: string, password: string, { confirmed = true }: { confirmed?: boolean } = {}): StandInUser {
    const user = this.newUser(email, password);
    if (confirmed) user.confirmedAt = new Date().toISOString();
    return publicPart(user);
  }

  /** Confirms an account's email, as following the confirmation link would. */
  confirm(email: string): void {
    const user = this.userByEmail(email);
    if (user === undefined) throw new Error(`The stand-in has no user ${email}.`);
    user.confirmedAt = new Date().toISOString();
  }

  /** The user with this id, or undefined. */
  user(id: string): StandInUser | undefined {
    const user = this.users.get(id);
    return user === undefined ? undefined : publicPart(user);
  }

  /** How many sessions of this user are live (signed in and not signed out). */
  liveSessions(userId: string): number {
    return [...this.sessions.values()].filter((owner) => owner === userId).length;
  }

  /** Stops listening and drops open connections. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => {
      this.server.close((error) => {
        if (error) reject(error);
        else resolve();
      });
    });
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', API_VERSION_HEADER);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': `authorization, apikey, content-type, x-client-info, ${API_VERSION_HEADER}`,
      });
      res.end();
      return;
    }
    const url = new URL(req.url ?? '/', this.url);
    this.calls.push(`${req.method ?? 'GET'} ${url.pathname}${url.search}`);
    const versioned = (req.headers[API_VERSION_HEADER] ?? '') >= API_VERSION;
    try {
      // Supabase's gateway refuses a request without the project's key before Auth sees it.
      if (req.headers.apikey === undefined) throw new GoTrueRefusal(401, 'no_api_key', 'No API key found in request');
      if (req.headers.apikey !== this.anonKey) throw new GoTrueRefusal(401, 'invalid_api_key', 'Invalid API key');
      const route = `${req.method ?? 'GET'} ${url.pathname}`;
      let body: unknown;
      if (route === 'GET /auth/v1/settings') body = this.settings();
      else if (route === 'POST /auth/v1/signup') body = await this.signUp(await readJson(req));
      else if (route === 'POST /auth/v1/token') body = await this.token(url.searchParams.get('grant_type'), await readJson(req));
      else if (route === 'GET /auth/v1/user') body = publicUser(await this.userOf(req));
      else if (route === 'POST /auth/v1/logout') {
        await this.logout(req, url.searchParams.get('scope') ?? 'global');
        res.writeHead(204).end();
        return;
      } else throw new GoTrueRefusal(404, 'not_found', `The stand-in does not serve ${route}.`);
      send(res, 200, body, versioned);
    } catch (thrown) {
      // Anything unforeseen is GoTrue's 500, which supabase-js treats as a passing outage.
      const error = thrown instanceof GoTrueRefusal ? thrown : new GoTrueRefusal(500, 'unexpected_failure', thrown instanceof Error ? thrown.message : String(thrown));
      const body = versioned
        ? { code: error.code, message: error.message, ...error.extra }
        : { code: error.status, error_code: error.code, msg: error.message, ...error.extra };
      send(res, error.status, body, versioned);
    }
  }

  private settings(): Record<string, unknown> {
    return {
      external: { anonymous_users: this.anonymousSignIns, email: true, phone: false },
      disable_signup: !this.signupsOpen,
      mailer_autoconfirm: this.autoconfirm,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
    };
  }

  private async signUp(body: Record<string, unknown>): Promise<TokenResponse | Record<string, unknown>> {
    if (!this.signupsOpen) throw new GoTrueRefusal(422, 'signup_disabled', 'Signups not allowed for this instance');
    const { email, password } = body;
    if (email === undefined || email === '') {
      if (!this.anonymousSignIns) throw new GoTrueRefusal(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled');
      const user = this.newUser(null, null);
      return this.issue(user, randomUUID(), 'anonymous');
    }
    if (typeof email !== 'string' || !EMAIL.test(email)) {
      throw new GoTrueRefusal(400, 'email_address_invalid', 'Unable to validate email address: invalid format');
    }
    if (typeof password !== 'string' || password.length < SHORTEST_PASSWORD) {
      throw new GoTrueRefusal(422, 'weak_password', `Password should be at least ${SHORTEST_PASSWORD} characters.`, {
        weak_password: { reasons: ['length'] },
      });
    }
    const existing = this.userByEmail(email);
    if (existing !== undefined) {
      if (this.autoconfirm) throw new GoTrueRefusal(422, 'user_already_exists', 'User already registered');
      // With confirmation on, GoTrue answers a made-up user so sign-up cannot probe for accounts.
      return publicUser({ ...existing, id: randomUUID(), createdAt: new Date().toISOString() });
    }
    const user = this.newUser(email, password);
    if (!this.autoconfirm) return publicUser(user);
    user.confirmedAt = new Date().toISOString();
    return this.issue(user, randomUUID(), 'password');
  }

  private async token(grantType: string | null, body: Record<string, unknown>): Promise<TokenResponse> {
    if (grantType === 'password') {
      const { email, password } = body;
      if (typeof email !== 'string' || email === '') throw new GoTrueRefusal(400, 'validation_failed', 'missing email or phone');
      const user = this.userByEmail(email);
      if (user?.passwordDigest == null || typeof password !== 'string' || !timingSafeEqual(user.passwordDigest, digest(password))) {
        throw new GoTrueRefusal(400, 'invalid_credentials', 'Invalid login credentials');
      }
      if (user.confirmedAt === null) throw new GoTrueRefusal(400, 'email_not_confirmed', 'Email not confirmed');
      return this.issue(user, randomUUID(), 'password');
    }
    if (grantType === 'refresh_token') {
      const given = body.refresh_token;
      if (typeof given !== 'string' || given === '') throw new GoTrueRefusal(400, 'validation_failed', 'refresh_token required');
      const held = this.refreshTokens.get(given);
      if (held === undefined) throw new GoTrueRefusal(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      if (held.used) throw new GoTrueRefusal(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used');
      const user = this.users.get(held.userId);
      if (user === undefined) throw new GoTrueRefusal(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      held.used = true;
      return this.issue(user, held.sessionId, 'token');
    }
    throw new GoTrueRefusal(400, 'validation_failed', `unsupported_grant_type: ${grantType ?? '(none)'}`);
  }

  private async logout(req: IncomingMessage, scope: string): Promise<void> {
    const { sub, session_id: sessionId } = await this.claimsOf(req);
    for (const [id, owner] of this.sessions) {
      const ends = scope === 'global' || (scope === 'local' && id === sessionId) || (scope === 'others' && id !== sessionId);
      if (owner === sub && ends) this.endSession(id);
    }
  }

  private async userOf(req: IncomingMessage): Promise<UserRecord> {
    const { sub } = await this.claimsOf(req);
    const user = this.users.get(sub);
    if (user === undefined) throw new GoTrueRefusal(403, 'user_not_found', 'User from sub claim in JWT does not exist');
    return user;
  }

  /** The verified claims of the request's bearer token, and its session still live. */
  private async claimsOf(req: IncomingMessage): Promise<{ sub: string; session_id: string }> {
    const token = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) throw new GoTrueRefusal(401, 'no_authorization', 'This endpoint requires a Bearer token');
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(token, this.secret, { issuer: this.issuer, audience: 'authenticated', algorithms: ['HS256'] }));
    } catch (error) {
      throw new GoTrueRefusal(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${error instanceof Error ? error.message : String(error)}`);
    }
    const { sub, session_id: sessionId } = claims;
    if (typeof sub !== 'string' || typeof sessionId !== 'string') throw new GoTrueRefusal(403, 'bad_jwt', 'invalid claim: missing sub or session_id');
    if (!this.sessions.has(sessionId)) {
      throw new GoTrueRefusal(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
    }
    return { sub, session_id: sessionId };
  }

  private newUser(email: string | null, password: string | null): UserRecord {
    if (email !== null && this.userByEmail(email) !== undefined) throw new Error(`The stand-in already has a user ${email}.`);
    const user: UserRecord = {
      id: randomUUID(),
      email: email?.trim().toLowerCase() ?? null,
      anonymous: email === null,
      passwordDigest: password === null ? null : digest(password),
      confirmedAt: null,
      createdAt: new Date().toISOString(),
    };
    this.users.set(user.id, user);
    return user;
  }

  private userByEmail(email: string): UserRecord | undefined {
    const wanted = email.trim().toLowerCase();
    return [...this.users.values()].find((user) => user.email === wanted);
  }

  private endSession(sessionId: string): void {
    this.sessions.delete(sessionId);
    for (const [token, held] of this.refreshTokens) if (held.sessionId === sessionId) this.refreshTokens.delete(token);
  }

  /** A new access token (and rotated refresh token) for one session of one user. */
  private async issue(user: UserRecord, sessionId: string, method: 'password' | 'anonymous' | 'token'): Promise<TokenResponse> {
    // The session and its refresh token are written before signing awaits, as GoTrue commits them in
    // one transaction: a sign-out that lands while this token is signed ends them, never the reverse.
    const refreshToken = randomBytes(12).toString('base64url');
    this.sessions.set(sessionId, user.id);
    this.refreshTokens.set(refreshToken, { sessionId, userId: user.id, used: false });
    const nowS = Math.floor(Date.now() / 1000);
    const expiresAt = nowS + this.accessTokenLifetimeS;
    const provider = user.anonymous ? 'anonymous' : 'email';
    const accessToken = await new SignJWT({
      email: user.email ?? '',
      phone: '',
      app_metadata: { provider, providers: [provider] },
      user_metadata: {},
      role: 'authenticated',
      aal: 'aal1',
      amr: [{ method: method === 'token' ? 'password' : method, timestamp: nowS }],
      session_id: sessionId,
      is_anonymous: user.anonymous,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience('authenticated')
      .setSubject(user.id)
      .setIssuedAt(nowS)
      .setExpirationTime(expiresAt)
      .sign(this.secret);
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: this.accessTokenLifetimeS,
      expires_at: expiresAt,
      refresh_token: refreshToken,
      user: publicUser(user),
    };
  }
}

function publicPart({ id, email, anonymous }: UserRecord): StandInUser {
  return { id, email, anonymous };
}

/** The user as GoTrue shows it to its owner. */
function publicUser(user: UserRecord): Record<string, unknown> {
  const provider = user.anonymous ? 'anonymous' : 'email';
  return {
    id: user.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: user.email ?? '',
    email_confirmed_at: user.confirmedAt ?? undefined,
    phone: '',
    confirmed_at: user.confirmedAt ?? undefined,
    app_metadata: { provider, providers: [provider] },
    user_metadata: {},
    identities: [],
    created_at: user.createdAt,
    updated_at: user.createdAt,
    is_anonymous: user.anonymous,
  };
}

function digest(password: string): Buffer {
  return createHash('sha256').update(password).digest();
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GoTrueRefusal(400, 'bad_json', 'Could not parse request body as JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new GoTrueRefusal(400, 'bad_json', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

function send(res: ServerResponse, status: number, body: unknown, versioned: boolean): void {
  res.writeHead(status, { 'content-type': 'application/json', ...(versioned ? { [API_VERSION_HEADER]: API_VERSION } : {}) });
  res.end(JSON.stringify(body));
}

/**
 * `ws` as supabase-js's realtime transport (`AuthOptions.realtimeTransport`): supabase-js builds a
 * realtime client even though Confab never subscribes, and Node 20 has no WebSocket of its own.
 * supabase-js documents `ws` for this; only the typings differ (ws types its events as its own, not
 * the DOM's), so the one cast lives here.
 */
export const nodeWebSocket = WebSocket as unknown as WebSocketLikeConstructor;
