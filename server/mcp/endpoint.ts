/**
 * MCP over Streamable HTTP at `/mcp`, on the Confab server itself. Every request must carry a
 * personal token (`Authorization: Bearer confab_mcp_…`): the token names the person every call runs
 * as — the executor runs each verb in that person's transaction, under row level security — and the
 * bots whose apps' verbs are offered. The SDK's `createMcpHandler` serves both protocol eras (the
 * 2026-07-28 per-request envelope, and 2025-era clients statelessly) from one factory that builds
 * the adapter's `McpServer` for the token.
 *
 * Before the SDK sees a request, this door:
 * - refuses it `401` with `WWW-Authenticate` and a JSON-RPC error when the token is missing, unknown
 *   or revoked (the same answer for all three);
 * - refuses a message over 1 MiB `413` (-32600; its cap is declared here, kept by server/bodyCap.ts)
 *   and one that is not JSON `400` (-32700);
 * - hands a 2025-era `notifications/cancelled` to the token's running call with that id: over
 *   stateless HTTP it arrives as a request of its own (a 2026-era client cancels by closing its
 *   request, which the SDK turns into the call's abort signal). A message that only cancels calls
 *   the token has running is answered from memory, without the database: on PGlite, one session,
 *   the lookup would wait behind the very call it cancels.
 */
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { forMcpClient } from '../../common/modelText';
import type { McpClientText } from '../../common/modelText';
import { ANYONE, admits } from '../audience';
import type { Asker } from '../audience';
import { bearerOf } from '../bearer';
import { bodyCap, sizeWords } from '../bodyCap';
import type { Bot } from '../bots';
import type { Database } from '../db/database';
import { markTokenUsed, tokenByHash } from '../db/mcpTokens';
import type { McpTokenBearer } from '../db/mcpTokens';
import { findPerson } from '../people/people';
import type { PersonRow } from '../people/people';
import type { PersonMode } from '../person';
import type { Executor } from '../verbs/executor';
import { appOf } from '../verbs/registry';
import { mcpServerFor } from './adapter';
import type { McpSession } from './adapter';
import { createCallLimits, MCP_MESSAGE_BYTES_MAX, mcpLimitsOf } from './callLimits';
import type { CallLimits, McpLimits } from './callLimits';
import { offerOf } from './offer';
import type { Offer } from './offer';
import { hashOfToken, looksLikeToken } from './token';
import { mcpToolOf } from './tools';
import type { McpTool } from './tools';

export const MCP_PATH = '/mcp';

/** How stale `last_used_at` may get, in ms, before a request writes it again: once a minute at most. */
const LAST_USED_GRANULARITY_MS = 60_000;

/** JSON-RPC codes of the door's own refusals. */
const MCP_ERRORS = {
  /** No token, or one that is unknown or revoked (implementation-defined server error range). */
  unauthorized: -32001,
  invalidRequest: -32600,
  parseError: -32700,
} as const;

// What the client shows whoever set it up; no person, so no language, is known before a token is.
const TOKEN_NEEDED = forMcpClient(
  "Confab needs a personal MCP token: send Authorization: Bearer <token>. Make one in Confab's settings (the cog), under MCP clients.",
);
const TOKEN_REFUSED = forMcpClient("This MCP token is not valid, or it was revoked. Make a new one in Confab's settings (the cog), under MCP clients.");
const TOKEN_REFUSED_CHALLENGE = forMcpClient('Bearer realm="confab", error="invalid_token", error_description="The token is not valid or was revoked."');

/** One line about a refused request: never a token, an argument or a result. */
export interface McpLogLine {
  event: 'mcp.refused';
  why: 'no-token' | 'bad-token' | 'too-large' | 'stalled' | 'not-json' | 'rate_limited' | 'server_busy';
}

export interface McpEndpointDeps {
  db: Database;
  bots: ReadonlyMap<string, Bot>;
  executor: Executor;
  /** Now, in ms since the epoch. */
  clock: () => number;
  /** Per-token limits; default `MCP_LIMIT_DEFAULTS`. */
  limits?: Partial<McpLimits>;
  /** Default: JSON on stderr. */
  log?: (line: McpLogLine) => void;
  /**
   * How the server knows its people (`PersonMode`): in Supabase mode every token's person is signed
   * in; in local mode one with a `people` row keeps a passkey, and any other is a bare cookie. Default local.
   */
  personMode?: PersonMode['kind'];
}

export interface McpEndpoint {
  /** Serves `/mcp`; mount at the root. */
  routes: Hono;
  /** The per-token limits and running calls, for tests. */
  calls: CallLimits;
  /** Ends the SDK's running exchanges (at shutdown). */
  close: () => Promise<void>;
}

export function mcpEndpoint(deps: McpEndpointDeps): McpEndpoint {
  const log =
    deps.log ??
    ((line: McpLogLine) => {
      console.error(JSON.stringify(line));
    });
  const registry = deps.executor.registry;
  // Projected once: a verb whose schemas cannot be listed stops the start, as a malformed app does.
  // Never an outside app's verbs: they act with the site's credentials (offer.ts).
  const toolsByVerb = new Map<string, McpTool>(registry.verbs.filter((verb) => registry.app(appOf(verb.name))?.outside === undefined).map((verb) => [verb.name, mcpToolOf(verb)]));
  const offers = new Map<string, Offer>();
  const offerFor = (bots: readonly string[]): Offer => {
    const key = bots.join('\n');
    let offer = offers.get(key);
    if (offer === undefined) {
      offer = offerOf(registry, toolsByVerb, bots, deps.bots);
      if (offers.size < 256) offers.set(key, offer);
    }
    return offer;
  };
  const calls = createCallLimits(mcpLimitsOf(deps.limits), deps.clock, deps.db);
  const sessions = new WeakMap<AuthInfo, McpSession>();
  const handler = createMcpHandler(
    (ctx) => {
      const session = ctx.authInfo === undefined ? undefined : sessions.get(ctx.authInfo);
      if (session === undefined) throw new Error('An MCP request reached the server without the session its token opened.');
      return mcpServerFor(deps.executor, session);
    },
    { maxRequestBodySize: MCP_MESSAGE_BYTES_MAX },
  );

  const refuse = (c: Context, status: 400 | 401 | 408 | 413, code: number, message: McpClientText, why: McpLogLine['why']) => {
    log({ event: 'mcp.refused', why });
    if (status === 401) {
      c.header('WWW-Authenticate', why === 'no-token' ? 'Bearer realm="confab"' : TOKEN_REFUSED_CHALLENGE);
    }
    return c.json({ jsonrpc: '2.0', id: null, error: { code, message } }, status);
  };

  const routes = new Hono();
  // A message may be up to 1 MiB: declared here, kept by the app's one body door (server/bodyCap.ts).
  const cap = bodyCap(MCP_MESSAGE_BYTES_MAX, (c, { status, sentence }) =>
    refuse(
      c,
      status,
      MCP_ERRORS.invalidRequest,
      forMcpClient(status === 413 ? `The message is over ${sizeWords(MCP_MESSAGE_BYTES_MAX)}, the most one message may be.` : sentence),
      status === 413 ? 'too-large' : 'stalled',
    ),
  );
  routes.all(MCP_PATH, cap, async (c) => {
    const token = bearerOf(c);
    if (token === undefined) return refuse(c, 401, MCP_ERRORS.unauthorized, TOKEN_NEEDED, 'no-token');
    const tokenHash = looksLikeToken(token) ? hashOfToken(token) : undefined;
    // Only a token whose calls were admitted has calls running: its cancels need no lookup.
    const running = tokenHash !== undefined && calls.inFlight(tokenHash) > 0;
    let bearer = tokenHash === undefined || running ? undefined : await liveBearer(deps.db, tokenHash, deps.clock());
    if (tokenHash === undefined || (!running && bearer === undefined)) return refuse(c, 401, MCP_ERRORS.unauthorized, TOKEN_REFUSED, 'bad-token');

    let parsedBody: unknown;
    if (c.req.method === 'POST') {
      // Whole and within the cap already: the body door read it.
      const text = await c.req.text();
      try {
        parsedBody = JSON.parse(text) as unknown;
      } catch {
        return refuse(c, 400, MCP_ERRORS.parseError, forMcpClient('The message is not valid JSON.'), 'not-json');
      }
      const cancelled = cancelledIds(parsedBody);
      if (cancelled !== undefined) {
        for (const requestId of cancelled) calls.cancel(tokenHash, requestId);
        if (running) return c.body(null, 202);
      }
    }
    bearer ??= await liveBearer(deps.db, tokenHash, deps.clock());
    if (bearer === undefined) return refuse(c, 401, MCP_ERRORS.unauthorized, TOKEN_REFUSED, 'bad-token');

    // A bot is offered only while it is for the token's person (its `for:`), as the page is.
    const asker: Asker = {
      kind: deps.personMode === 'supabase' ? 'supabase' : bearer.row === undefined ? 'cookie' : 'passkey',
      owner: bearer.row?.owner ?? false,
      name: bearer.row?.name ?? null,
    };
    const offer = offerFor(bearer.bots.filter((slug) => admits(deps.bots.get(slug)?.for ?? ANYONE, asker)));
    const authInfo: AuthInfo = { token: bearer.id, clientId: bearer.id, scopes: [] };
    sessions.set(authInfo, {
      token: tokenHash,
      person: bearer.person,
      kind: asker.kind,
      timeZone: bearer.timeZone,
      tools: offer.tools,
      scope: offer.scope,
      botFor: offer.botFor,
      admit: async (requestId) => {
        const admission = await calls.admit(tokenHash, requestId);
        if (!admission.ok) log({ event: 'mcp.refused', why: admission.code });
        return admission;
      },
    });
    return handler.fetch(c.req.raw, { authInfo, ...(parsedBody === undefined ? {} : { parsedBody }) });
  });

  return { routes, calls, close: () => handler.close() };
}

/** The live token with that hash and its person's `people` row, noting its use (at most once a minute); undefined otherwise. */
async function liveBearer(db: Database, tokenHash: string, nowMs: number): Promise<(McpTokenBearer & { row: PersonRow | undefined }) | undefined> {
  return db.asServer(async (tx) => {
    const bearer = await tokenByHash(tx, tokenHash);
    if (bearer === undefined) return undefined;
    if (bearer.lastUsedAt === null || nowMs - bearer.lastUsedAt.getTime() >= LAST_USED_GRANULARITY_MS) {
      await markTokenUsed(tx, bearer.id, nowMs);
    }
    return { ...bearer, row: await findPerson(tx, bearer.person) };
  });
}

/**
 * The request ids a message (or a batch) cancels, when every message in it is a
 * `notifications/cancelled`; undefined for anything else, which goes to the SDK.
 */
function cancelledIds(message: unknown): (string | number)[] | undefined {
  const messages: unknown[] = Array.isArray(message) ? message : [message];
  const ids: (string | number)[] = [];
  for (const one of messages) {
    if (typeof one !== 'object' || one === null || 'id' in one) return undefined;
    const { method, params } = one as { method?: unknown; params?: unknown };
    if (method !== 'notifications/cancelled' || typeof params !== 'object' || params === null) return undefined;
    const id = (params as { requestId?: unknown }).requestId;
    if (typeof id === 'string' || typeof id === 'number') ids.push(id);
  }
  return messages.length === 0 ? undefined : ids;
}
