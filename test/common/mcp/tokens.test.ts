import { describe, expect, it } from 'vitest';
import { claudeCodeCommand, claudeDesktopConfig, mcpEndpointOf } from '../../../common/mcp/tokens';

const TOKEN = 'confab_mcp_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';

describe('the client configurations the settings show', () => {
  it('gives Claude Code one command for Streamable HTTP at the server’s /mcp, the token as a header', () => {
    expect(claudeCodeCommand({ serverUrl: 'http://127.0.0.1:8787/', token: TOKEN })).toBe(
      `claude mcp add --transport http confab http://127.0.0.1:8787/mcp --header "Authorization: Bearer ${TOKEN}"`,
    );
  });

  it('gives Claude Desktop an mcpServers entry that starts the stdio bridge with npm --silent, the token in env', () => {
    const config = JSON.parse(claudeDesktopConfig({ serverUrl: 'https://confab.example/', token: TOKEN, checkout: '/home/me/confab' })) as unknown;
    expect(config).toEqual({
      mcpServers: {
        confab: {
          command: 'npm',
          args: ['--silent', '--prefix', '/home/me/confab', 'run', 'mcp', '--', '--url', 'https://confab.example', '--token-env', 'CONFAB_MCP_TOKEN'],
          env: { CONFAB_MCP_TOKEN: TOKEN },
        },
      },
    });
  });

  it('keeps the token off the command line when another variable is named', () => {
    const text = claudeDesktopConfig({ serverUrl: 'http://localhost:8787', token: TOKEN, checkout: '/c', tokenEnv: 'MY_TOKEN' });
    const entry = (JSON.parse(text) as { mcpServers: { confab: { args: string[]; env: Record<string, string> } } }).mcpServers.confab;
    expect(entry.args).not.toContain(TOKEN);
    expect(entry.args.slice(-2)).toEqual(['--token-env', 'MY_TOKEN']);
    expect(entry.env).toEqual({ MY_TOKEN: TOKEN });
  });

  it('finds /mcp under the server, however many slashes end its URL', () => {
    expect(mcpEndpointOf('http://a:1')).toBe('http://a:1/mcp');
    expect(mcpEndpointOf('http://a:1//')).toBe('http://a:1/mcp');
  });
});
