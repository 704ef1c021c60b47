/**
 * The page's calls for the person's MCP tokens, under their session like the threads: list them,
 * make one (the answer holds the token, this once), revoke one. Every answer is checked for the
 * shape the settings rely on; a failure is one sentence the settings can show as it is.
 */
import type { McpTokenAsk, McpTokenListed, McpTokenMade } from '../core/mcp/tokens';
import { REQUEST_TIMEOUT_MS } from './conversationApi';
import { isRecord } from '../core/isRecord';

export class McpTokensError extends Error {
  override readonly name = 'McpTokensError';
  constructor(
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface McpTokensApi {
  /** `GET /api/mcp/tokens`: the person's tokens, newest first, never the tokens themselves. */
  list(): Promise<McpTokenListed[]>;
  /** `POST /api/mcp/tokens`: a new token, shown once. */
  create(ask: McpTokenAsk): Promise<McpTokenMade>;
  /** `DELETE /api/mcp/tokens/<id>`: it stops working at once. */
  revoke(id: string): Promise<void>;
}

/** The API over `fetcher` (the global fetch, or one that adds the person's token in Supabase mode). */
export function mcpTokensApi(fetcher: typeof fetch = (input, init) => fetch(input, init)): McpTokensApi {
  async function call(what: string, path: string, init: { method: 'GET' | 'POST' | 'DELETE'; body?: unknown }): Promise<unknown> {
    let response: Response;
    try {
      response = await fetcher(path, {
        method: init.method,
        headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        credentials: 'same-origin',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    } catch (cause) {
      throw new McpTokensError(`Confab’s server could not be reached to ${what}; try again when the connection is back.`, undefined, { cause });
    }
    if (response.status === 204) return undefined;
    let body: unknown;
    try {
      body = await response.json();
    } catch (cause) {
      throw new McpTokensError(`Confab’s server answered something that is not JSON when asked to ${what}; reload to get the matching page.`, response.status, { cause });
    }
    if (!response.ok) {
      const said = isRecord(body) && typeof body.error === 'string' ? body.error : `it answered ${response.status}`;
      throw new McpTokensError(`Confab’s server would not ${what}: ${said}`, response.status);
    }
    return body;
  }

  const shapeError = (what: string) => new McpTokensError(`Confab’s server answered in a shape this page does not understand when asked to ${what}; reload to get the matching page.`);

  return {
    async list() {
      const body = await call('list your MCP tokens', '/api/mcp/tokens', { method: 'GET' });
      const tokens = isRecord(body) ? body.tokens : undefined;
      if (!Array.isArray(tokens) || !tokens.every(isListed)) throw shapeError('list your MCP tokens');
      return tokens;
    },
    async create(ask) {
      const body = await call('make an MCP token', '/api/mcp/tokens', { method: 'POST', body: ask });
      if (!isListed(body) || typeof (body as { token?: unknown }).token !== 'string') throw shapeError('make an MCP token');
      return body as McpTokenMade;
    },
    async revoke(id) {
      await call('revoke that MCP token', `/api/mcp/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
    },
  };
}

const dateOrNull = (value: unknown) => value === null || typeof value === 'string';

function isListed(value: unknown): value is McpTokenListed {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    typeof value.name === 'string' &&
    Array.isArray(value.bots) &&
    value.bots.every((bot) => typeof bot === 'string') &&
    typeof value.createdAt === 'string' &&
    dateOrNull(value.lastUsedAt) &&
    dateOrNull(value.revokedAt)
  );
}
