/**
 * The page's calls for the person's MCP tokens, under their session like the threads: list them,
 * make one (the answer holds the token, this once), revoke one. Every answer is checked for the
 * shape the settings rely on; a failure is an `HttpError` whose sentence the settings show as it is.
 */
import { isRecord } from '../../common/isRecord';
import type { McpTokenAsk, McpTokenListed, McpTokenMade } from '../../common/mcp/tokens';
import { httpClient, unreadableAnswer } from './http';
import type { Say } from './http';
import { sayWord } from './words';

export interface McpTokensApi {
  /** `GET /api/mcp/tokens`: the person's tokens, newest first, never the tokens themselves. */
  list(): Promise<McpTokenListed[]>;
  /** `POST /api/mcp/tokens`: a new token, shown once. */
  create(ask: McpTokenAsk): Promise<McpTokenMade>;
  /** `DELETE /api/mcp/tokens/<id>`: it stops working at once. */
  revoke(id: string): Promise<void>;
}

/** How this client says what went wrong: the person tries again themselves. */
const say: Say = (what, trouble) => {
  switch (trouble.kind) {
    case 'unreachable':
      return sayWord('page-server.unreachable', { what });
    case 'answered':
      return trouble.said === undefined ? sayWord('page-server.refused-status', { what, status: trouble.status }) : sayWord('page-server.refused', { what, said: trouble.said });
    case 'not-json':
    case 'misshapen':
      return unreadableAnswer(what, trouble.kind);
  }
};

/** The API over `fetcher` (the global fetch, or one that adds the person's token in Supabase mode). */
export function mcpTokensApi(fetcher?: typeof fetch): McpTokensApi {
  const http = httpClient(say, fetcher);
  return {
    async list() {
      return (await http.json(sayWord('page-server.list-tokens'), '/api/mcp/tokens', { method: 'GET' }, isTokenList)).tokens;
    },
    async create(ask) {
      return http.json(sayWord('page-server.make-token'), '/api/mcp/tokens', { method: 'POST', body: ask }, isMade);
    },
    async revoke(id) {
      await http.json(sayWord('page-server.revoke-token'), `/api/mcp/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
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

function isTokenList(value: unknown): value is { tokens: McpTokenListed[] } {
  return isRecord(value) && Array.isArray(value.tokens) && value.tokens.every(isListed);
}

function isMade(value: unknown): value is McpTokenMade {
  return isListed(value) && typeof (value as { token?: unknown }).token === 'string';
}
