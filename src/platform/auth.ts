/**
 * Who the page is, to its own server. The server decides who is asking (docs/operating.md, "Who is asking");
 * this adapter only carries the proof:
 *
 * - Local mode: nothing to carry. The server's signed, HttpOnly person cookie rides along with every
 *   same-origin request by itself, so there is no token and no sign-in form.
 * - Supabase mode: the page signs in with supabase-js against the project in `GET /api/config`. The
 *   session persists in localStorage and is refreshed in the background (and on demand, when a call
 *   finds it within supabase-js's 90-second margin of expiry); its access token goes to this
 *   server's personal routes as `Authorization: Bearer <token>`, and the person is its `sub`.
 *
 * What the product offers to sign in with, and why:
 * - An email and a password, to sign in or to make an account: it stays on the page, so a person
 *   talking to a bot (or using the installed app, which has no address bar) never leaves it to
 *   follow a link.
 * - "Continue as a guest" (an anonymous Supabase user) only when the project switches anonymous
 *   sign-ins on — `offers()` reads that from the project. A guest is what local mode gives everyone:
 *   a person bound to one browser, with no form to fill. Each guest is a new person with fresh
 *   per-person ceilings, so letting anyone mint them is the project owner's call (Supabase advises a
 *   captcha with it), not the page's.
 * - No magic links, one-time codes or social providers: each leaves the page for a mail client or
 *   another site, which breaks a spoken conversation and the installed app.
 *
 * supabase-js is loaded only in Supabase mode, on first use, so local mode never downloads it.
 */
import type { AuthChangeEvent, createClient, Session, SupabaseClient, SupportedStorage, WebSocketLikeConstructor } from '@supabase/supabase-js';
import type { PageAuth } from '../../common/voice/api';
import { sayWord } from './words';

/** Why signing in (or staying signed in) failed, for a page that reacts to some of them. */
export type AuthFailure =
  | 'missing-field'
  | 'wrong-credentials'
  | 'email-not-confirmed'
  | 'account-exists'
  | 'weak-password'
  | 'invalid-email'
  | 'sign-ups-closed'
  | 'password-not-offered'
  | 'guests-not-allowed'
  | 'rate-limited'
  | 'account-suspended'
  | 'signed-out'
  | 'unreachable'
  | 'refused';

/** Signing in failed; `message` is a sentence to show the person, `reason` what the page may act on. */
export class AuthError extends Error {
  override readonly name = 'AuthError';
  constructor(
    readonly reason: AuthFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The person a Supabase session belongs to. */
interface SignedInPerson {
  /** The Supabase user id: the token's `sub`, which the server takes as the person. */
  id: string;
  /** Their email address; null for a guest. */
  email: string | null;
  /** Signed in anonymously, without an account. */
  guest: boolean;
}

/** Signed in or out, as the page's sign-in control shows it. */
export type AuthState = { kind: 'signed-out' } | { kind: 'signed-in'; person: SignedInPerson };

/** What making an account came to: signed in at once, or an email to confirm first. */
type CreatedAccount = { kind: 'signed-in'; person: SignedInPerson } | { kind: 'confirm-email'; email: string };

/** Which ways in the project allows, so the form shows only those. */
export interface SignInOffer {
  /** Sign in with an email and a password. */
  password: boolean;
  /** Make an account with an email and a password. */
  createAccount: boolean;
  /** Continue as a guest (an anonymous user). */
  guest: boolean;
}

/** Local mode: the person cookie does the work; there is no token and nothing to sign in to. */
interface LocalAuth {
  readonly kind: 'local';
  /** Always null: the HttpOnly person cookie is the proof, and the page never sees it. */
  accessToken(): Promise<null>;
}

/** Supabase mode: the page signs in with supabase-js and carries the access token. */
export interface SupabaseAuth {
  readonly kind: 'supabase';
  /**
   * The current session's access token, refreshed first when it is within 90 seconds of expiry;
   * null when signed out. Rejects with `AuthError` 'unreachable' when it needs refreshing and the
   * project cannot be reached.
   */
  accessToken(): Promise<string | null>;
  /** Which ways in the project allows (its public Auth settings). */
  offers(): Promise<SignInOffer>;
  signInWithPassword(email: string, password: string): Promise<SignedInPerson>;
  /** Makes an account; the project decides whether its email must be confirmed first. */
  createAccount(email: string, password: string): Promise<CreatedAccount>;
  /** Signs in as a new anonymous user, when the project allows it (see `offers`). */
  signInAsGuest(): Promise<SignedInPerson>;
  /** Ends this browser's session (other devices stay signed in). */
  signOut(): Promise<void>;
  /**
   * Calls `listener` with the current state once known, then each time the person signs in, signs
   * out or becomes someone else — not on every token refresh. Returns the unsubscribe.
   */
  onChange(listener: (state: AuthState) => void): () => void;
  /** Stops the background refresh and every `onChange` listener; the session stays stored. */
  close(): Promise<void>;
}

/** How the page proves who it is, per the server's mode. */
export type Auth = LocalAuth | SupabaseAuth;

/** What the browser provides by itself, and a test provides instead. */
export interface AuthOptions {
  /** Where the session persists. Default: the browser's localStorage. */
  storage?: SupportedStorage;
  /** The fetch supabase-js and `offers` use. Default: the global fetch. */
  fetch?: typeof fetch;
  /**
   * The WebSocket class for supabase-js's realtime client, which it builds even though Confab never
   * subscribes. Default: the browser's; Node before 22 has none, so a Node test passes `ws`.
   */
  realtimeTransport?: WebSocketLikeConstructor;
  /**
   * Where an account-confirmation email leads back to. Default: this page without its fragment. The
   * project must list it under its redirect URLs, or Supabase uses its Site URL.
   */
  emailRedirectTo?: string;
}

/** The person's sentence for `failure`, in their language. */
const sentenceFor = (failure: AuthFailure): string => sayWord(`page-sign-in.${failure}`);

/** GoTrue's error codes, by what they mean to the person. */
const FAILURE_BY_CODE: Readonly<Record<string, AuthFailure>> = {
  invalid_credentials: 'wrong-credentials',
  email_not_confirmed: 'email-not-confirmed',
  user_already_exists: 'account-exists',
  email_exists: 'account-exists',
  weak_password: 'weak-password',
  email_address_invalid: 'invalid-email',
  signup_disabled: 'sign-ups-closed',
  email_provider_disabled: 'password-not-offered',
  anonymous_provider_disabled: 'guests-not-allowed',
  over_request_rate_limit: 'rate-limited',
  over_email_send_rate_limit: 'rate-limited',
  user_banned: 'account-suspended',
  session_not_found: 'signed-out',
  session_expired: 'signed-out',
  refresh_token_not_found: 'signed-out',
  refresh_token_already_used: 'signed-out',
};

/**
 * The page's auth for the server's mode (`PageConfig['auth']`; absent means local). In Supabase
 * mode the supabase-js client is loaded now, in the background, and every method waits for it.
 */
export function createAuth(config: PageAuth | undefined, options: AuthOptions = {}): Auth {
  if (config === undefined || config.kind === 'local') return { kind: 'local', accessToken: () => Promise.resolve(null) };
  return supabaseAuth(config, options);
}

/** The server's API: every route under it knows who is asking, but for those `NOT_PERSONAL` names. */
const API_PATH = /^\/api\//;
/** The API routes that are nobody's (health, config) or take a grant (`/api/speak`); the bots a person may use are theirs. */
const NOT_PERSONAL = /^\/api\/(?:speak|health|config)$/;

/**
 * A fetch that adds `Authorization: Bearer <access token>` to the page's personal calls — every
 * `/api/…` route on the page's own origin but `/api/health`, `/api/config`
 * and `/api/speak`, as the server's personal sub-app has them (server/app.ts), so a new personal
 * route needs no change here — so the API client uses it unchanged. Everything else passes untouched: the chat door
 * (`/v1/chat/completions`) and `/api/speak` take the conversation's grant as their Bearer instead,
 * `/mcp` takes a personal MCP token, and the token never goes to another origin. A request that
 * already names its Authorization keeps it. Signed out (or in local mode) nothing is added, and
 * the server answers what it answers without one.
 *
 * `pageOrigin` is the origin whose API receives the token; default the page's own.
 */
export function withAuth(fetcher: typeof fetch, auth: Pick<Auth, 'accessToken'>, pageOrigin = currentOrigin()): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    if (!isPersonalCall(input, pageOrigin) || headers.has('Authorization')) return fetcher(input, init);
    const token = await auth.accessToken();
    if (token === null) return fetcher(input, init);
    headers.set('Authorization', `Bearer ${token}`);
    return fetcher(input, { ...init, headers });
  };
}

function isPersonalCall(input: RequestInfo | URL, pageOrigin: string | undefined): boolean {
  const text = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
  // Without a page (a test in Node), only a relative path counts as the page's own API.
  const base = pageOrigin ?? 'http://the-page.invalid';
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return false;
  }
  return url.origin === new URL(base).origin && API_PATH.test(url.pathname) && !NOT_PERSONAL.test(url.pathname);
}

function currentOrigin(): string | undefined {
  return typeof location === 'undefined' ? undefined : location.origin;
}

function supabaseAuth(config: Extract<PageAuth, { kind: 'supabase' }>, options: AuthOptions): SupabaseAuth {
  const client = loadClient(config, options);
  // A failed load is reported by every call that needs the client; this keeps it from also
  // surfacing as an unhandled rejection when nothing has asked yet.
  client.catch(() => undefined);
  const unsubscribes = new Set<() => void>();
  const fetcher = options.fetch ?? fetch;

  const signedIn = (session: Session | null): SignedInPerson => {
    if (session === null) throw new AuthError('refused', sentenceFor('refused'));
    return personOf(session);
  };

  return {
    kind: 'supabase',

    async accessToken() {
      const { data, error } = await (await client).auth.getSession();
      // A refresh the project refused ends the session (the server then asks to sign in); one that
      // could not reach the project leaves nothing valid to send, which the person must hear.
      if (error !== null && reasonOf(error) === 'unreachable') throw authError(error);
      return data.session?.access_token ?? null;
    },

    async offers() {
      let response: Response;
      try {
        response = await fetcher(`${config.url}/auth/v1/settings`, { headers: { apikey: config.anonKey, accept: 'application/json' } });
      } catch (cause) {
        throw new AuthError('unreachable', sentenceFor('unreachable'), { cause });
      }
      const settings: unknown = response.ok ? await response.json().catch(() => undefined) : undefined;
      if (typeof settings !== 'object' || settings === null) {
        throw new AuthError('refused', sayWord('page-sign-in.no-settings', { status: response.status }));
      }
      const { external, disable_signup: signupsClosed } = settings as {
        external?: { email?: unknown; anonymous_users?: unknown };
        disable_signup?: unknown;
      };
      const password = external?.email === true;
      const open = signupsClosed !== true;
      return { password, createAccount: password && open, guest: external?.anonymous_users === true && open };
    },

    async signInWithPassword(email, password) {
      const credentials = filledIn(email, password);
      const { data, error } = await (await client).auth.signInWithPassword(credentials);
      if (error !== null) throw authError(error);
      return signedIn(data.session);
    },

    async createAccount(email, password) {
      const credentials = filledIn(email, password);
      const emailRedirectTo = options.emailRedirectTo ?? currentPage();
      const { data, error } = await (await client).auth.signUp({
        ...credentials,
        ...(emailRedirectTo === undefined ? {} : { options: { emailRedirectTo } }),
      });
      if (error !== null) throw authError(error);
      // No session means the project wants the address confirmed first (or, to keep accounts from
      // being probed, that it already has one): either way the next step is the email.
      return data.session === null ? { kind: 'confirm-email', email: credentials.email } : { kind: 'signed-in', person: personOf(data.session) };
    },

    async signInAsGuest() {
      const { data, error } = await (await client).auth.signInAnonymously();
      if (error !== null) throw authError(error);
      return signedIn(data.session);
    },

    async signOut() {
      const { error } = await (await client).auth.signOut({ scope: 'local' });
      if (error !== null) throw authError(error);
    },

    onChange(listener) {
      let subscription: { unsubscribe(): void } | undefined;
      let stopped = false;
      const stop = () => {
        stopped = true;
        subscription?.unsubscribe();
        unsubscribes.delete(stop);
      };
      unsubscribes.add(stop);
      client.then(
        (supabase) => {
          if (stopped) return;
          let shown: string | undefined;
          ({
            data: { subscription },
          } = supabase.auth.onAuthStateChange((_event: AuthChangeEvent, session) => {
            const state: AuthState = session === null ? { kind: 'signed-out' } : { kind: 'signed-in', person: personOf(session) };
            const key = state.kind === 'signed-in' ? `${state.person.id} ${state.person.email ?? ''}` : '';
            if (key === shown) return;
            shown = key;
            listener(state);
          }));
        },
        // The load failure reaches the person through the call that needed the client.
        () => undefined,
      );
      return stop;
    },

    async close() {
      for (const stop of [...unsubscribes]) stop();
      await (await client).auth.stopAutoRefresh();
    },
  };
}

async function loadClient(config: Extract<PageAuth, { kind: 'supabase' }>, options: AuthOptions): Promise<SupabaseClient> {
  let create: typeof createClient;
  try {
    ({ createClient: create } = await import('@supabase/supabase-js'));
  } catch (cause) {
    throw new AuthError('unreachable', sayWord('page-sign-in.not-loaded'), { cause });
  }
  return create(config.url, config.anonKey, {
    auth: {
      persistSession: true,
      autoRefreshToken: true,
      // An account-confirmation link comes back with the session in the address.
      detectSessionInUrl: true,
      ...(options.storage === undefined ? {} : { storage: options.storage }),
    },
    ...(options.fetch === undefined ? {} : { global: { fetch: options.fetch } }),
    ...(options.realtimeTransport === undefined ? {} : { realtime: { transport: options.realtimeTransport } }),
  });
}

function filledIn(email: string, password: string): { email: string; password: string } {
  const trimmed = email.trim();
  if (trimmed === '' || password === '') throw new AuthError('missing-field', sentenceFor('missing-field'));
  return { email: trimmed, password };
}

function personOf(session: Session): SignedInPerson {
  const { id, email, is_anonymous: anonymous } = session.user;
  return { id, email: email === undefined || email === '' ? null : email, guest: anonymous === true };
}

function currentPage(): string | undefined {
  return typeof location === 'undefined' ? undefined : `${location.origin}${location.pathname}`;
}

/** What supabase-js's errors carry (its `AuthError`), read by shape so the module loads lazily. */
interface SupabaseError {
  name: string;
  message: string;
  status?: number;
  code?: string;
}

function reasonOf(error: SupabaseError): AuthFailure {
  if (error.name === 'AuthRetryableFetchError') return 'unreachable';
  if (error.name === 'AuthSessionMissingError') return 'signed-out';
  const byCode = error.code === undefined ? undefined : FAILURE_BY_CODE[error.code];
  if (byCode !== undefined) return byCode;
  return error.status === 429 ? 'rate-limited' : 'refused';
}

function authError(error: SupabaseError): AuthError {
  const reason = reasonOf(error);
  const message = reason === 'refused' ? sayWord('page-sign-in.refused-said', { said: error.message }) : sentenceFor(reason);
  return new AuthError(reason, message, { cause: error });
}
