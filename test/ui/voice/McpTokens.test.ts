// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest';
import { flushPromises, mount } from '@vue/test-utils';
import type { McpTokensPort } from '../../../src/app/mcpTokens';
import type { PublicBot } from '../../../common/bot';
import type { McpTokenAsk, McpTokenListed } from '../../../common/mcp/tokens';
import McpTokens from '../../../src/ui/voice/McpTokens.vue';

const TOKEN = 'confab_mcp_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';

function fakePort(start: McpTokenListed[] = []) {
  let tokens = [...start];
  const bot = (slug: string, name: string) => ({ slug, name }) as PublicBot;
  const port = {
    list: vi.fn(() => Promise.resolve(tokens)),
    bots: vi.fn(() => Promise.resolve([bot('demo', 'Sage'), bot('chef', 'Chef')])),
    create: vi.fn((ask: McpTokenAsk) => {
      const made = { id: `t${tokens.length + 1}`, name: ask.name, bots: ask.bots, createdAt: '2026-12-01T10:00:00.000Z', lastUsedAt: null, revokedAt: null };
      tokens = [made, ...tokens];
      return Promise.resolve({ ...made, token: TOKEN });
    }),
    revoke: vi.fn((id: string) => {
      tokens = tokens.map((t) => (t.id === id ? { ...t, revokedAt: '2026-12-02T10:00:00.000Z' } : t));
      return Promise.resolve();
    }),
  } satisfies McpTokensPort;
  return port;
}

describe('the MCP clients section of the settings', () => {
  it('makes a token for the bots chosen, shows it once with the Claude Code and Claude Desktop configurations, and forgets it when dismissed', async () => {
    const port = fakePort();
    const wrapper = mount(McpTokens, { props: { port, bot: 'chef', serverUrl: 'http://127.0.0.1:8787' } });
    await flushPromises();
    await wrapper.get('[data-testid="mcp-token-name"]').setValue('Claude Desktop');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(port.create).toHaveBeenCalledWith(expect.objectContaining({ name: 'Claude Desktop', bots: ['chef'] }));
    expect(wrapper.get('[data-testid="mcp-token-value"]').text()).toBe(TOKEN);
    expect(wrapper.get('[data-testid="mcp-claude-code"]').text()).toBe(
      `claude mcp add --transport http confab http://127.0.0.1:8787/mcp --header "Authorization: Bearer ${TOKEN}"`,
    );
    expect(wrapper.get('[data-testid="mcp-claude-desktop"]').text()).toContain('"CONFAB_MCP_TOKEN"');
    expect(wrapper.get('[data-testid="mcp-token-list"]').text()).toContain('Claude Desktop');
    await wrapper.findAll('button').find((b) => b.text() === 'I have copied it')?.trigger('click');
    expect(wrapper.html()).not.toContain(TOKEN);
  });

  it('copies the token with the button', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const wrapper = mount(McpTokens, { props: { port: fakePort(), serverUrl: 'http://x' } });
    await flushPromises();
    await wrapper.get('[data-testid="mcp-token-name"]').setValue('laptop');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    await wrapper.findAll('button').find((b) => b.text() === 'Copy the token')?.trigger('click');
    await flushPromises();
    expect(writeText).toHaveBeenCalledWith(TOKEN);
    expect(wrapper.get('[role="status"]').text()).toBe('The token copied.');
  });

  it('lists tokens with their dates, and revokes one', async () => {
    const port = fakePort([{ id: 't1', name: 'Old laptop', bots: ['demo'], createdAt: '2026-11-01T10:00:00.000Z', lastUsedAt: '2026-11-20T10:00:00.000Z', revokedAt: null }]);
    const wrapper = mount(McpTokens, { props: { port } });
    await flushPromises();
    const list = wrapper.get('[data-testid="mcp-token-list"]');
    expect(list.text()).toMatch(/Old laptop · Sage/);
    expect(list.text()).toMatch(/Made .*2026, last used .*2026/);
    await wrapper.get('button[aria-label="Revoke Old laptop"]').trigger('click');
    await flushPromises();
    expect(port.revoke).toHaveBeenCalledWith('t1');
    expect(wrapper.get('[data-testid="mcp-token-list"]').text()).toMatch(/revoked/);
    expect(wrapper.find('button[aria-label="Revoke Old laptop"]').exists()).toBe(false);
  });

  it('says what went wrong when the server refuses', async () => {
    const port: McpTokensPort = fakePort();
    port.create = () => Promise.reject(new Error('Confab’s server would not make an MCP token: You already have 20 MCP tokens; revoke one you no longer use first.'));
    const wrapper = mount(McpTokens, { props: { port } });
    await flushPromises();
    await wrapper.get('[data-testid="mcp-token-name"]').setValue('one more');
    await wrapper.get('form').trigger('submit');
    await flushPromises();
    expect(wrapper.get('[role="alert"]').text()).toMatch(/revoke one/);
  });
});
