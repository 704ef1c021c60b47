/**
 * Personal MCP tokens as the server and the page say them to each other (`/api/mcp/tokens`), and
 * the ready-to-paste client configurations the settings show. A token lets an MCP client (Claude
 * Desktop, Claude Code, …) call the verbs of the bots the person chose, as that person; it is shown
 * once, when it is made, and is only ever kept as its hash.
 */

/** One token as listed: never the token itself. Dates are ISO 8601. */
export interface McpTokenListed {
  id: string;
  /** What the person called it, to tell their tokens apart. */
  name: string;
  /** The bots it acts through, in the order chosen: its tools are their apps' verbs. */
  bots: string[];
  createdAt: string;
  /** When a client last used it, to the minute; null when never. */
  lastUsedAt: string | null;
  /** When it was revoked; null while it works. */
  revokedAt: string | null;
}

/** The answer to making a token: the token itself, this once. */
export interface McpTokenMade extends McpTokenListed {
  token: string;
}

/** What the page sends to make a token (`POST /api/mcp/tokens`). */
export interface McpTokenAsk {
  name: string;
  bots: string[];
  /** The person's IANA time zone, for reminders set over MCP; default UTC. */
  timeZone?: string;
}

/** Longest token name, in characters. */
export const TOKEN_NAME_MAX_CHARS = 64;
/** Most bots one token may name. */
export const TOKEN_BOTS_MAX = 16;
/** The environment variable the stdio bridge reads the token from, unless told another. */
export const MCP_TOKEN_ENV = 'CONFAB_MCP_TOKEN';
/** The name the configurations give the server in a client's list. */
const MCP_SERVER_NAME = 'confab';

/** Where a Confab server answers MCP over Streamable HTTP: `<server>/mcp`. */
export function mcpEndpointOf(serverUrl: string): string {
  return `${serverUrl.replace(/\/+$/, '')}/mcp`;
}

/**
 * Claude Desktop's `claude_desktop_config.json` entry: Claude Desktop starts the stdio bridge from a
 * checkout of Confab (`cwd`), which forwards to the running server, with the token in `env` so it
 * never appears on a command line. `npm --silent` keeps npm's banner off stdout, which carries only
 * protocol messages.
 */
export function claudeDesktopConfig(options: { serverUrl: string; token: string; checkout: string; tokenEnv?: string }): string {
  const tokenEnv = options.tokenEnv ?? MCP_TOKEN_ENV;
  const entry = {
    mcpServers: {
      [MCP_SERVER_NAME]: {
        command: 'npm',
        args: ['--silent', '--prefix', options.checkout, 'run', 'mcp', '--', '--url', options.serverUrl.replace(/\/+$/, ''), '--token-env', tokenEnv],
        env: { [tokenEnv]: options.token },
      },
    },
  };
  return JSON.stringify(entry, null, 2);
}

/** Claude Code's one command: Streamable HTTP straight to the server, the token as a header. */
export function claudeCodeCommand(options: { serverUrl: string; token: string }): string {
  return `claude mcp add --transport http ${MCP_SERVER_NAME} ${mcpEndpointOf(options.serverUrl)} --header "Authorization: Bearer ${options.token}"`;
}
