/**
 * No stranger's page acting for a person. Three rules, each answered before any route runs:
 *
 * - **Host** (when the server is bound to loopback): a request must name this machine (`localhost`,
 *   a `*.localhost` name, `127.x.x.x`, `[::1]`) or the host of an allowed origin. A page on a name
 *   its owner pointed at 127.0.0.1 (DNS rebinding) names its own host, and is refused 421.
 * - **Origin** (the routes that take the person's cookie, and `/mcp`): a browser names the page a
 *   request comes from, and only the server's own origin (the request's scheme and Host) and those
 *   in `CONFAB_ALLOWED_ORIGINS` may act; any other, `null` included, is refused 403. A request
 *   without an Origin is a client that is no page (curl, an MCP client) and goes on — unless the
 *   browser's `Sec-Fetch-Site` says it came from another site (or another port of this one).
 * - **JSON** (the same cookie routes): a body is `application/json`, which a page elsewhere cannot
 *   send without asking first (a CORS preflight this server never grants); anything else is 415.
 *
 * Each refusal is said in the request's words (`requestWords.ts`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { requestWordsOf } from './words/requestWords';
import { say } from './words/words';
import type { WordKey } from './words/words';

export interface GuardOptions {
  /** The interface the server is bound to (`HOST`); a loopback one turns the Host rule on. */
  host: string;
  /** Origins allowed beside the server's own, each as `URL.origin` spells it. */
  allowedOrigins: readonly string[];
}

/** How a refusal is shaped: the API's `{error}`, or a JSON-RPC error (for `/mcp`). */
export type RefusalShape = 'api' | 'jsonrpc';

/** A Host header: a DNS name, an IPv4 address or a bracketed IPv6 one, then an optional port. */
const HOST_HEADER = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** The JSON-RPC code for a request the server will not take (the specification's Invalid Request). */
const JSONRPC_INVALID_REQUEST = -32600;

/** Whether a host name (no port; IPv6 in brackets or not) is this machine's loopback. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** The Host a request names, lower-case with its port: the header, else the URL it was made for. */
function hostOf(c: Context): string {
  return (c.req.header('host') ?? new URL(c.req.url).host).trim().toLowerCase();
}

/** The Host rule; a pass-through when the server is bound to any other interface. */
export function hostGuard(options: GuardOptions): MiddlewareHandler {
  const allowedHosts = new Set(options.allowedOrigins.map((origin) => new URL(origin).host));
  const bound = isLoopbackName(options.host);
  return async (c, next) => {
    if (!bound) return next();
    const host = hostOf(c);
    // A name or an address, and a port: nothing else (no user part) is read as a host.
    const hostname = HOST_HEADER.exec(host)?.[1];
    if (hostname === undefined) return refuse(c, 421, 'requests.foreign-host');
    if (!isLoopbackName(hostname) && !allowedHosts.has(host)) return refuse(c, 421, 'requests.foreign-host');
    return next();
  };
}

/** The Origin rule, answering in `shape`. */
export function originGuard(options: GuardOptions, shape: RefusalShape): MiddlewareHandler {
  const allowed = new Set(options.allowedOrigins);
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin === undefined) {
      const site = c.req.header('sec-fetch-site')?.toLowerCase();
      if (site === 'cross-site' || site === 'same-site') return refuse(c, 403, 'requests.foreign-origin', shape);
      return next();
    }
    if (!allowed.has(origin) && !ownOrigins(c).includes(origin.toLowerCase())) return refuse(c, 403, 'requests.foreign-origin', shape);
    return next();
  };
}

/**
 * The server's own origins: the request's scheme with its Host, and https with it when a proxy in
 * front says it took the request over https. Neither header can be set by a page on another site
 * without a preflight, so trusting them here lets no stranger in.
 */
function ownOrigins(c: Context): string[] {
  const host = hostOf(c);
  const scheme = new URL(c.req.url).protocol;
  const forwarded = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return [`${scheme}//${host}`, ...(forwarded === 'https' ? [`https://${host}`] : [])];
}

/** The JSON rule: a POST, PUT, PATCH or DELETE that carries a body carries JSON. */
export function jsonBodyGuard(): MiddlewareHandler {
  return async (c, next) => {
    if (!MUTATING.has(c.req.method)) return next();
    const type = c.req.header('content-type');
    if (type === undefined) {
      const length = Number(c.req.header('content-length') ?? '0');
      if (length > 0 || c.req.header('transfer-encoding') !== undefined) return refuse(c, 415, 'requests.not-json-type');
      return next();
    }
    const media = type.split(';')[0]?.trim().toLowerCase();
    if (media !== 'application/json') return refuse(c, 415, 'requests.not-json-type');
    return next();
  };
}

/** A refusal, said as `key` in the request's words, in `shape`. */
function refuse(c: Context, status: 403 | 415 | 421, key: WordKey, shape: RefusalShape = c.req.path === '/mcp' ? 'jsonrpc' : 'api'): Response {
  const message = say(requestWordsOf(c), key);
  if (shape === 'jsonrpc') return c.json({ jsonrpc: '2.0', id: null, error: { code: JSONRPC_INVALID_REQUEST, message } }, status);
  return c.json({ error: message }, status);
}
