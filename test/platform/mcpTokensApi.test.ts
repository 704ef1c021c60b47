import { describe, expect, it } from 'vitest';
import { mcpTokensApi } from '../../src/platform/mcpTokensApi';
import { HttpError } from '../../src/platform/http';
import { answering } from '../helpers/answeringFetch';

const LISTED = { id: 't1', name: 'Claude Desktop', bots: ['demo'], createdAt: '2026-12-01T10:00:00.000Z', lastUsedAt: null, revokedAt: null };

describe('the MCP tokens client', () => {
  it('lists the person’s tokens under their session and checks their shape', async () => {
    const { fetcher, calls } = answering(200, { tokens: [LISTED] });
    await expect(mcpTokensApi(fetcher).list()).resolves.toEqual([LISTED]);
    expect(calls[0]).toMatchObject({ url: '/api/mcp/tokens', init: { method: 'GET', credentials: 'same-origin' } });
    await expect(mcpTokensApi(answering(200, { tokens: [{ id: 't1' }] }).fetcher).list()).rejects.toBeInstanceOf(HttpError);
  });

  it('makes a token with a name, bots and time zone, and answers it with the token', async () => {
    const { fetcher, calls } = answering(201, { ...LISTED, token: 'confab_mcp_x' });
    await expect(mcpTokensApi(fetcher).create({ name: 'Claude Desktop', bots: ['demo'], timeZone: 'Europe/Lisbon' })).resolves.toMatchObject({ token: 'confab_mcp_x' });
    expect(calls[0]?.init?.method).toBe('POST');
    expect(JSON.parse(calls[0]?.init?.body as string)).toEqual({ name: 'Claude Desktop', bots: ['demo'], timeZone: 'Europe/Lisbon' });
    await expect(mcpTokensApi(answering(201, LISTED).fetcher).create({ name: 'x', bots: ['demo'] })).rejects.toBeInstanceOf(HttpError);
  });

  it('revokes by id, and says the server’s own sentence when it refuses', async () => {
    const { fetcher, calls } = answering(204);
    await mcpTokensApi(fetcher).revoke('a/b');
    expect(calls[0]).toMatchObject({ url: '/api/mcp/tokens/a%2Fb', init: { method: 'DELETE' } });
    await expect(mcpTokensApi(answering(404, { error: 'There is no such MCP token of yours that still works.' }).fetcher).revoke('x')).rejects.toThrow(
      'Confab’s server would not revoke that MCP token: There is no such MCP token of yours that still works.',
    );
    await expect(mcpTokensApi(() => Promise.reject(new TypeError('offline'))).list()).rejects.toThrow(/could not be reached/);
  });
});
