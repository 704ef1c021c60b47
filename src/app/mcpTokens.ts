/**
 * The settings' "MCP clients" section, composed: the person's MCP tokens and the bots a token may
 * act through, over the page's own API (the session's fetch adds the access token in Supabase mode;
 * a person cookie needs nothing).
 */
import type { PublicBot } from '../../common/bot';
import { conversationApi } from '../platform/conversationApi';
import { mcpTokensApi } from '../platform/mcpTokensApi';
import type { McpTokensApi } from '../platform/mcpTokensApi';

export interface McpTokensPort extends McpTokensApi {
  /** The bots this server has, for choosing the ones a token acts through. */
  bots(): Promise<PublicBot[]>;
}

export function mcpTokensPort(fetcher?: typeof fetch): McpTokensPort {
  const tokens = mcpTokensApi(fetcher);
  const conversation = conversationApi(fetcher);
  return { list: () => tokens.list(), create: (ask) => tokens.create(ask), revoke: (id) => tokens.revoke(id), bots: () => conversation.bots() };
}
