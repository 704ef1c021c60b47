/**
 * The door every request body passes: read while it streams, counted chunk by chunk, and refused
 * `413` the moment the count passes the route's cap — whether the client declared a length or sent
 * it chunked — so no more than the cap is ever held. A body that stops arriving (or arrives too
 * slowly to finish) is refused `408`, so it holds neither memory nor a handler. Every handler then
 * reads a body already whole and within its cap.
 *
 * One rule, installed app-wide by `bodyDoor` (server/app.ts) before any route runs: a route's cap is
 * `BODY_CAP_BYTES` unless the route says otherwise where it is declared, with `bodyCap(bytes)` among
 * its handlers (`app.post('/lines', bodyCap(LINE_BODY_MAX_BYTES), …)`). The door finds that
 * declaration in the routes the request matched, so a route added later is capped without anyone
 * remembering to; `bodyCap` also reads the body itself when its sub-app runs without the door (a
 * test serving the chat door alone), so both ways meet the same rule.
 */
import { Socket } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { RouterRoute } from 'hono/types';
import { checkOption } from '../common/options';
import { requestWordsOf } from './words/requestWords';
import { say } from './words/words';

/** The largest body a route takes unless it declares more, in bytes. */
export const BODY_CAP_BYTES = 64 * 1024;

/** How long a body may take, in ms: at most `idleMs` between two chunks, and `wholeMs` in all. */
export interface BodyTiming {
  /** Longest wait for the next chunk; past it, 408. Default 10 s. */
  idleMs: number;
  /** Longest a whole body may take to arrive; past it, 408. Default 30 s. */
  wholeMs: number;
  /** Calls `run` after `delayMs` and answers a way to cancel it (an injected clock in tests). */
  after: (delayMs: number, run: () => void) => () => void;
}

export const BODY_TIMING_DEFAULTS: BodyTiming = {
  idleMs: 10_000,
  wholeMs: 30_000,
  after: (delayMs, run) => {
    const timer = setTimeout(run, delayMs);
    return () => {
      clearTimeout(timer);
    };
  },
};

/** One read of a body stream. */
type Chunk = { done: true; value?: undefined } | { done: false; value: Uint8Array };

/** Why a body was refused, with the sentence that says so. */
interface BodyRefusal {
  /** 413 past the cap, 408 when it stopped arriving, 400 when the client cut it off. */
  status: 400 | 408 | 413;
  /** The sentence, in the request's language (`## requests` of the words files). */
  sentence: string;
  capBytes: number;
}

/** How a route answers a refused body, in its API's own shape; by default `{ error: sentence }`. */
export type RefuseBody = (c: Context, refusal: BodyRefusal) => Response;

interface Declaration {
  bytes: number;
  refuse: RefuseBody;
}

const DECLARED = Symbol('confab.bodyCap');
/** Hono's mark on a sub-app handler it wrapped in the sub-app's own error handler (`app.route`). */
const COMPOSED_HANDLER = '__COMPOSED_HANDLER';
/**
 * How long a connection stays open after a body is refused unread, in ms: long enough for the client
 * to read the answer before the connection is closed under the rest of its body.
 */
const LINGER_MS = 2_000;
/** Requests whose body the door has read already (the copy it handed on). */
const read = new WeakSet<Request>();

const refuseAsApi: RefuseBody = (c, refusal) => c.json({ error: refusal.sentence }, refusal.status);

/** A size in the words a person reads: whole MiB, else KiB. */
export function sizeWords(bytes: number): string {
  const mib = 1024 * 1024;
  if (bytes >= mib && bytes % mib === 0) return `${String(bytes / mib)} MiB`;
  return `${String(Math.round((bytes / 1024) * 10) / 10)} KiB`;
}

/**
 * Declares, among a route's handlers, that its body may be up to `bytes` (and how a refusal is
 * shaped there). The app-wide door reads the declaration; run without it, this reads the body itself.
 */
export function bodyCap(bytes: number, refuse: RefuseBody = refuseAsApi, timing: BodyTiming = BODY_TIMING_DEFAULTS): MiddlewareHandler {
  checkOption('bodyCap.bytes', bytes, { over: 0, whole: true });
  const declaration: Declaration = { bytes, refuse };
  const handler: MiddlewareHandler = async (c, next) => {
    if (read.has(c.req.raw)) return next();
    const refused = await readWhole(c, declaration, timing);
    return refused ?? next();
  };
  return Object.assign(handler, { [DECLARED]: declaration });
}

/** The declaration a route's handler carries, looking through Hono's wrapping of sub-app handlers. */
function declarationOf(handler: unknown): Declaration | undefined {
  let current = handler as (Record<string | symbol, unknown> & object) | undefined;
  for (let depth = 0; current !== undefined && depth < 8; depth++) {
    const found = current[DECLARED];
    if (found !== undefined) return found as Declaration;
    current = current[COMPOSED_HANDLER] as typeof current;
  }
  return undefined;
}

/** The cap a route declared, or the default: what the door holds a request to that route to. */
function capOfRoute(route: Pick<RouterRoute, 'handler'>): number | undefined {
  return declarationOf(route.handler)?.bytes;
}

/** A route that takes a body, and the most its body may be. */
export interface BodyRoute {
  /** POST, PUT, PATCH or DELETE (a route for every method is listed as POST). */
  method: string;
  /** Hono's path, parameters and all (`/api/threads/:id/lines`). */
  path: string;
  capBytes: number;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every route of `routes` (an app's `app.routes`) that takes a body, with its cap: the door's own
 * reading of the route table, for a test or a bench to walk. Catch-alls (`*`) are left out.
 */
export function bodyRoutes(routes: readonly RouterRoute[]): BodyRoute[] {
  // As the door decides: the largest cap declared among a route's handlers, else the default.
  const declared = new Map<string, { method: string; path: string; capBytes: number | undefined }>();
  for (const route of routes) {
    const method = route.method === 'ALL' ? 'POST' : route.method;
    if (!BODY_METHODS.has(method) || route.path.includes('*')) continue;
    const key = `${method} ${route.path}`;
    const before = declared.get(key)?.capBytes;
    const own = capOfRoute(route);
    declared.set(key, { method, path: route.path, capBytes: own === undefined ? before : Math.max(own, before ?? 0) });
  }
  return [...declared.values()].map(({ method, path, capBytes }) => ({ method, path, capBytes: capBytes ?? BODY_CAP_BYTES }));
}

/** The declaration that governs a request: the largest among the routes it matched, or the default. */
function governing(c: Context): Declaration {
  let chosen: Declaration | undefined;
  for (const route of matchedRoutes(c)) {
    const declared = declarationOf(route.handler);
    if (declared !== undefined && (chosen === undefined || declared.bytes > chosen.bytes)) chosen = declared;
  }
  return chosen ?? { bytes: BODY_CAP_BYTES, refuse: refuseAsApi };
}

/** The app-wide door: every request with a body is read within its route's cap before any route runs. */
export function bodyDoor(timing: BodyTiming = BODY_TIMING_DEFAULTS): MiddlewareHandler {
  return async (c, next) => {
    const refused = await readWhole(c, governing(c), timing);
    return refused ?? next();
  };
}

/**
 * Reads the body of `c`'s request within the declaration's cap and timing, and hands the routes a
 * copy holding it whole; a refusal, when the body was too large, too slow or cut off. A request
 * that declares no body (GET, HEAD, or a length of 0) is passed as it is.
 */
async function readWhole(c: Context, declaration: Declaration, timing: BodyTiming): Promise<Response | undefined> {
  const raw = c.req.raw;
  const { bytes: capBytes, refuse } = declaration;
  if (raw.body === null || c.req.method === 'GET' || c.req.method === 'HEAD') return undefined;
  const declared = c.req.header('content-length');
  const chunked = c.req.header('transfer-encoding') !== undefined;
  if (!chunked && declared !== undefined && Number(declared) === 0) return undefined;
  const words = requestWordsOf(c);
  const tooLarge = { status: 413, sentence: say(words, 'requests.too-large', { size: sizeWords(capBytes) }), capBytes } as const;
  // A declared length past the cap is refused before a byte is read (HTTP itself ends the body there).
  if (!chunked && declared !== undefined && Number(declared) > capBytes) {
    lingerAfterAnswer(c);
    return refuse(c, tooLarge);
  }

  const reader = raw.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let stalled: (() => void) | undefined;
  const stall = new Promise<'stalled'>((resolve) => {
    stalled = () => {
      resolve('stalled');
    };
  });
  const cancelWhole = timing.after(timing.wholeMs, () => stalled?.());
  try {
    for (;;) {
      const cancelIdle = timing.after(timing.idleMs, () => stalled?.());
      let next: Chunk | 'stalled';
      try {
        next = await Promise.race([reader.read() as Promise<Chunk>, stall]);
      } catch {
        return refuse(c, { status: 400, sentence: say(words, 'requests.cut-off'), capBytes });
      } finally {
        cancelIdle();
      }
      if (next === 'stalled') {
        lingerAfterAnswer(c);
        const pace = { whole: String(Math.round(timing.wholeMs / 1000)), idle: String(Math.round(timing.idleMs / 1000)) };
        return refuse(c, { status: 408, sentence: say(words, 'requests.stalled', pace), capBytes });
      }
      if (next.done) break;
      size += next.value.byteLength;
      // Past the cap: refused at once, the rest left unread (the answer closes the connection).
      if (size > capBytes) {
        lingerAfterAnswer(c);
        return refuse(c, tooLarge);
      }
      parts.push(next.value);
    }
  } finally {
    cancelWhole();
    // Never cancelled: cancelling destroys the socket the refusal is about to be written on.
    reader.releaseLock();
  }
  const whole = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.byteLength;
  }
  const copy = new Request(raw, { body: whole });
  read.add(copy);
  c.req.raw = copy;
  return undefined;
}

/**
 * A lingering close for a request whose body is refused unread. The refusal says
 * `Connection: close`, and Node then closes the socket as soon as the answer is written; with the
 * client's body still arriving, that close is a reset, which can reach the client before it has read
 * the answer (it sees only "connection reset"). Here that socket instead ends its side after the
 * answer and is let go `LINGER_MS` later (or when the client closes first): the client reads its 413,
 * and the unread rest holds no memory (HTTP stops reading a request nobody reads). Only a request
 * served by @hono/node-server over HTTP/1 carries its socket; any other is left as it is.
 */
function lingerAfterAnswer(c: Context): void {
  const env: unknown = c.env;
  const incoming = typeof env === 'object' && env !== null && 'incoming' in env ? (env as { incoming?: { socket?: unknown } }).incoming : undefined;
  const socket = incoming?.socket;
  if (!(socket instanceof Socket)) return;
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => {
      clearTimeout(timer);
    });
  };
}
