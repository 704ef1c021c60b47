/**
 * The Confab server, built from what it is given: `createApp(deps)` decides every route, and
 * `server/index.ts` alone reads the environment and listens. Tests drive it with `app.request()`.
 *
 * One process on one port: the API (session routes that know who is asking, the grant-only chat
 * door and speak proxy) and the built page, whose hashed assets are cached for good while the entry
 * page and the service worker never are; every page route (`/`, `/voice/<bot>`) answers with the
 * entry page so a deep link or a reload works.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { serveStatic } from '@hono/node-server/serve-static';
import { isPageRoute } from '../common/route';
import type { PageAuth, PageConfig } from '../common/voice/api';
import { ConfigError, SERVER_DEFAULTS } from './config';
import type { Database } from './db/database';
import { bodyDoor, BODY_TIMING_DEFAULTS } from './bodyCap';
import type { BodyTiming } from './bodyCap';
import { hostGuard, jsonBodyGuard, originGuard } from './guard';
import type { GuardOptions } from './guard';
import { MCP_PATH } from './mcp/endpoint';
import { newPersons } from './newPersons';
import { localhostPageUrl } from './people/relyingParty';
import type { EmbedderStatus } from './memory/chooseEmbedder';
import type { ServerConfig } from './config';
import type { PersonEnv, PersonMode } from './person';
import { personCookieKey, personFrom } from './person';
import { publicBot } from './bots';
import { bearerOf } from './bearer';
import { sessionRoutes } from './session';
import type { SessionDeps } from './session';
import type { OutsideStatus } from './verbs/verbRoutes';
import { shippedWords } from './words/loadWords';
import type { WordBook } from './words/loadWords';
import { refusal, wordBookFor, requestWordsOf } from './words/requestWords';
import { say } from './words/words';

export interface AppDeps {
  /** What is not given takes `readConfig`'s default (bound to 127.0.0.1, no other origin, 30 new persons an hour). */
  config: Pick<ServerConfig, 'distDir' | 'modelsDir' | 'modelBase' | 'modelVersion'> &
    Partial<Pick<ServerConfig, 'supabaseAnonKey' | 'host' | 'allowedOrigins' | 'newPersonsPerHour'>>;
  /** The API; without it the server serves the page alone. */
  api?: ApiDeps;
  /** The memory embedder in use, said by `GET /api/health`. */
  embedder?: EmbedderStatus;
  /** The outside apps (MCP servers, OpenAPI specs) and whether each is up now, said by `GET /api/health`. */
  outside?: () => readonly OutsideStatus[];
  /** How long a request body may take to arrive (server/bodyCap.ts); the defaults unless a test's clock is given. */
  bodyTiming?: BodyTiming;
}

export interface ApiDeps extends SessionDeps {
  personMode: PersonMode;
  /** Where passkey people's device sessions and the count of new persons per address are kept, read for every personal request in local mode; unset, every local person is a bare cookie, and uncounted. */
  db?: Database;
  /** Routes that know who is asking (threads, lines, memories), mounted under /api. */
  personal?: Hono<PersonEnv>;
  /** The chat door, mounted under /v1 (grant only). */
  door?: Hono;
  /** The speak proxy, serving POST /api/speak (grant only). */
  speak?: Hono;
  /** MCP over Streamable HTTP, serving /mcp (a personal MCP token only). */
  mcp?: Hono;
  /** The page's words by language, `GET /api/words/<lang>` (nobody's: no cookie). */
  words?: Hono;
  /** What every refusal is said from, in the request's language: the site's words over the defaults; default the shipped words. */
  wordBook?: WordBook;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

export function createApp({ config, api, embedder, outside, bodyTiming = BODY_TIMING_DEFAULTS }: AppDeps): Hono {
  const app = new Hono();
  const auth = api === undefined ? undefined : pageAuth(api.personMode, config.supabaseAnonKey);
  const guard: GuardOptions = { host: config.host ?? SERVER_DEFAULTS.host, allowedOrigins: config.allowedOrigins ?? [] };

  app.use('*', async (c, next) => {
    await next();
    // Cross-origin isolation lets onnxruntime-web use WebAssembly threads; `credentialless` keeps
    // model files from a CORS-enabled host loadable without them sending CORP headers.
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Embedder-Policy', 'credentialless');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('Permissions-Policy', 'microphone=(self)');
    // A body refused for its size is left unread on the connection; closing it keeps the client's
    // next request on that keep-alive connection from being read as the rest of this one.
    // So is a body that stopped arriving (408).
    if (c.res.status === 413 || c.res.status === 408) c.header('Connection', 'close');
  });
  // Every refusal from here on is said in the request's language, in the site's words.
  app.use('*', wordBookFor(api?.wordBook ?? shippedWords()));
  // Before every route, the page included: a rebound name reads nothing from this machine.
  app.use('*', hostGuard(guard));
  // Then every body, read within its route's cap while it streams, before any route runs (server/bodyCap.ts).
  app.use('*', bodyDoor(bodyTiming));

  app.get('/api/health', (c) => c.json({ ok: true, ...(embedder === undefined ? {} : { embedder }), ...(outside === undefined ? {} : { outside: outside() }) }));
  app.get('/api/config', (c) =>
    c.json<PageConfig>({ model: { version: config.modelVersion, base: config.modelBase }, ...(auth === undefined ? {} : { auth }) }),
  );
  if (api) mountApi(app, api, guard, config.newPersonsPerHour ?? SERVER_DEFAULTS.newPersonsPerHour);
  app.all('/api/*', (c) => {
    throw refusal(c, 404, 'requests.no-route');
  });

  app.use('*', async (c, next) => {
    await next();
    if (c.req.method === 'GET' && c.res.ok && !c.req.path.startsWith('/api/')) {
      c.header('Cache-Control', c.req.path.startsWith('/assets/') ? IMMUTABLE : REVALIDATE);
    }
  });
  // Self-hosted weights (`npm run models`), laid out as /models/<version>/<path>. Their names carry
  // no hash, so they are revalidated; the worker keeps its own verified copy in Cache Storage.
  app.use(
    '/models/*',
    serveStatic({ root: config.modelsDir, rewriteRequestPath: (path) => path.replace(/^\/models/, '') }),
  );
  app.all('/models/*', (c) => {
    throw refusal(c, 404, 'requests.no-model-file');
  });
  // WebAuthn refuses an address as the site's name: a page visit to a loopback address is sent to
  // localhost, on the same port. Every API answers on both.
  app.get('*', async (c, next) => {
    const localhost = isPageRoute(c.req.path) ? localhostPageUrl(c) : undefined;
    if (localhost === undefined) return next();
    return c.redirect(localhost, 302);
  });
  app.use('*', serveStatic({ root: config.distDir }));

  app.get('*', async (c) => {
    if (/\.[a-z0-9]+$/i.test(c.req.path)) throw refusal(c, 404, 'requests.no-file');
    const index = join(config.distDir, 'index.html');
    if (!existsSync(index)) throw refusal(c, 503, 'requests.not-built');
    // A path that is no page still gets the page, with a 404, so it can say so in its own words.
    return c.html(await readFile(index, 'utf8'), isPageRoute(c.req.path) ? 200 : 404);
  });

  app.onError((error, c) => {
    if (error instanceof HTTPException) return c.json({ error: error.message }, error.status);
    // One JSON line, the error's name only: a message may quote what somebody said.
    console.error(JSON.stringify({ event: 'request.failed', method: c.req.method, error: error.name }));
    return c.json({ error: say(requestWordsOf(c), 'requests.server-failed') }, 500);
  });

  return app;
}

/**
 * How the page signs in, from the server's own mode: the project URL and its public anon key in
 * Supabase mode — never the JWT secret the server verifies tokens with.
 */
function pageAuth(mode: PersonMode, anonKey: string | undefined): PageAuth {
  if (mode.kind === 'local') return { kind: 'local' };
  if (anonKey === undefined || anonKey === '') {
    throw new ConfigError("Supabase mode needs SUPABASE_ANON_KEY, the project's anon (publishable) key (Settings → API), so the page can sign in.");
  }
  return { kind: 'supabase', url: mode.url, anonKey };
}

/**
 * The routes, each behind its rules: the door and the speak proxy take a grant in a header, which
 * no page elsewhere can send unasked, so they need no Origin rule; `/mcp` checks Origin as the MCP
 * specification asks of Streamable HTTP; every other /api route is personal, and checks Origin and
 * JSON before the person is read, so a refused request makes no new person.
 */
function mountApi(app: Hono, api: ApiDeps, guard: GuardOptions, newPersonsPerHour: number): void {
  if (api.door) app.route('/v1', api.door);
  if (api.speak) app.route('/', api.speak);
  if (api.mcp) {
    app.use(MCP_PATH, originGuard(guard, 'jsonrpc'));
    app.route('/', api.mcp);
  }
  if (api.words) app.route('/api', api.words);
  // Supabase mode before signing in: `/` lists the bots that are for anyone, as it always has; with a
  // token the person's own list is theirs, below.
  if (api.personMode.kind === 'supabase') {
    const forAnyone = [...api.bots.values()].filter((bot) => bot.for.to === 'anyone').map(publicBot).sort((a, b) => a.name.localeCompare(b.name));
    app.get('/api/bots', (c, next) => (bearerOf(c) === undefined ? Promise.resolve(c.json({ bots: forAnyone })) : next()));
  }
  // Every other /api route knows who is asking: one sub-app behind one set of rules, so no route
  // can be left outside them (an unknown path meets them too, before its 404).
  const personal = new Hono<PersonEnv>();
  personal.use(
    '*',
    originGuard(guard, 'api'),
    jsonBodyGuard(),
    personFrom(api.personMode, personCookieKey(api.grantSecret), { now: api.clock, ...(api.db === undefined ? {} : { db: api.db, newPersons: newPersons(api.db, newPersonsPerHour) }) }),
  );
  personal.route('/', sessionRoutes(api));
  if (api.personal) personal.route('/', api.personal);
  app.route('/api', personal);
}
