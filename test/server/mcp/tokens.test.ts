/**
 * Personal MCP tokens through the page's routes (`/api/mcp/tokens`), and the row level security
 * under them: a token is shown once, kept only as its hash, listed with its dates, revocable, and
 * each person's own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBridge, plainHttpRefusal } from '../../../server/mcp/bridge';
import { hashOfToken, looksLikeToken } from '../../../server/mcp/token';
import type { McpTokenListed, McpTokenMade } from '../../../common/mcp/tokens';
import { LIVE_TOKENS_MAX } from '../../../server/db/mcpTokens';
import { RefusedError } from '../../../server/db/errors';
import { personOf, startConfabMcp } from './confabMcp';
import type { ConfabMcp } from './confabMcp';

let confab: ConfabMcp;

beforeAll(async () => {
  confab = await startConfabMcp();
});

afterAll(async () => {
  await confab.close();
});

const list = async (person: string) => ((await (await confab.asPerson(person, '/api/mcp/tokens')).json()) as { tokens: McpTokenListed[] }).tokens;

describe('making a token', () => {
  it('answers the token once, random and recognisable, with its name, bots and creation date, and never caches it', async () => {
    const res = await confab.asPerson('maker', '/api/mcp/tokens', { body: { name: '  Claude Desktop  ', bots: ['lists-bot', 'probe-bot', 'lists-bot'], timeZone: 'Asia/Kolkata' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const made = (await res.json()) as McpTokenMade;
    expect(looksLikeToken(made.token)).toBe(true);
    expect(made).toMatchObject({ name: 'Claude Desktop', bots: ['lists-bot', 'probe-bot'], lastUsedAt: null, revokedAt: null });
    expect(Date.parse(made.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    const another = await confab.tokenFor('maker', ['lists-bot']);
    expect(another.token).not.toBe(made.token);
  });

  it('keeps only the token’s hash, and the time zone it was made in', async () => {
    const made = await confab.tokenFor('hashed', ['probe-bot']);
    const { rows } = await confab.db.asServer((tx) => tx.query('select * from mcp_tokens where id = $1', [made.id]));
    expect(rows[0]?.token_hash).toBe(hashOfToken(made.token));
    expect(rows[0]?.time_zone).toBe('Europe/Lisbon');
    expect(JSON.stringify(rows)).not.toContain(made.token);
  });

  it('refuses a blank or long name, no bots, an unknown bot, or bots that are not a list', async () => {
    for (const body of [
      { name: ' ', bots: ['demo'] },
      { name: 'x'.repeat(65), bots: ['demo'] },
      { name: 'ok', bots: [] },
      { name: 'ok', bots: ['nobody'] },
      { name: 'ok', bots: 'demo' },
      { bots: ['demo'] },
    ]) {
      const res = await confab.asPerson('careless', '/api/mcp/tokens', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/name|bots|no bot/);
    }
    expect(await list('careless')).toEqual([]);
  });

  it(`holds at most ${LIVE_TOKENS_MAX} live tokens a person, and says to revoke one`, async () => {
    for (let i = 0; i < LIVE_TOKENS_MAX; i++) await confab.tokenFor('collector', ['demo'], `client ${i}`);
    const res = await confab.asPerson('collector', '/api/mcp/tokens', { body: { name: 'one more', bots: ['demo'] } });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: string }).error).toMatch(/revoke one/);
    const [newest] = await list('collector');
    expect((await confab.asPerson('collector', `/api/mcp/tokens/${newest?.id ?? ''}`, { method: 'DELETE' })).status).toBe(204);
    expect((await confab.asPerson('collector', '/api/mcp/tokens', { body: { name: 'one more', bots: ['demo'] } })).status).toBe(201);
  });

  it(`holds ${LIVE_TOKENS_MAX} when a person asks for more at the same moment: as many are made as there is room for`, async () => {
    for (let i = 0; i < LIVE_TOKENS_MAX - 2; i++) await confab.tokenFor('hurried', ['demo'], `client ${i}`);
    const asked = await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => confab.asPerson('hurried', '/api/mcp/tokens', { body: { name: `at once ${i}`, bots: ['demo'] } })));
    expect(asked.map((res) => res.status).sort()).toEqual([201, 201, 409, 409, 409, 409, 409, 409]);
    expect((await list('hurried')).filter((token) => token.revokedAt === null)).toHaveLength(LIVE_TOKENS_MAX);
  });
});

describe('listing and revoking', () => {
  it('lists a person’s tokens newest first, without the token, and shows when one was last used and revoked', async () => {
    const first = await confab.tokenFor('lister', ['probe-bot'], 'first');
    const second = await confab.tokenFor('lister', ['both'], 'second');
    const client = await confab.client(first.token);
    await client.callTool({ name: 'probe-now', arguments: {} });
    expect((await confab.asPerson('lister', `/api/mcp/tokens/${second.id}`, { method: 'DELETE' })).status).toBe(204);
    const tokens = await list('lister');
    expect(tokens.map((t) => t.name)).toEqual(['second', 'first']);
    expect(JSON.stringify(tokens)).not.toContain(first.token);
    expect(tokens[0]?.revokedAt).not.toBeNull();
    expect(tokens[1]?.revokedAt).toBeNull();
    expect(tokens[1]?.lastUsedAt).not.toBeNull();
  });

  it('answers 404 for a token that is not the person’s, already revoked, or no token at all — and leaves another’s working', async () => {
    const theirs = await confab.tokenFor('keeper', ['probe-bot']);
    for (const id of [theirs.id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      expect((await confab.asPerson('intruder', `/api/mcp/tokens/${id}`, { method: 'DELETE' })).status).toBe(404);
    }
    expect(await list('intruder')).toEqual([]);
    const client = await confab.client(theirs.token);
    expect((await client.callTool({ name: 'probe-now', arguments: {} })).isError).toBeFalsy();
    expect((await confab.asPerson('keeper', `/api/mcp/tokens/${theirs.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await confab.asPerson('keeper', `/api/mcp/tokens/${theirs.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('needs the person’s session', async () => {
    const res = await confab.app.request('/api/mcp/tokens', { headers: { cookie: '' } });
    // Local mode: a browser without a cookie is a new person, with no tokens.
    expect(((await res.json()) as { tokens: unknown[] }).tokens).toEqual([]);
  });
});

describe('row level security on mcp_tokens', () => {
  it('lets a person neither make a token in another’s name, nor un-revoke one, nor move its last use', async () => {
    const made = await confab.tokenFor('guarded', ['probe-bot']);
    const guarded = personOf('guarded');
    await expect(
      confab.db.asPerson(personOf('forger'), (tx) =>
        tx.query("insert into mcp_tokens (person, name, bots, token_hash) values ($1, 'x', '{demo}', repeat('a', 64))", [guarded]),
      ),
    ).rejects.toThrow(RefusedError);
    await confab.db.asPerson(guarded, (tx) => tx.query('update mcp_tokens set revoked_at = now() where id = $1', [made.id]));
    const undone = await confab.db.asPerson(guarded, (tx) => tx.query('update mcp_tokens set revoked_at = null where id = $1 returning id', [made.id]));
    expect(undone.rows).toEqual([]);
    await expect(confab.db.asPerson(guarded, (tx) => tx.query('update mcp_tokens set last_used_at = now() where id = $1', [made.id]))).rejects.toThrow(RefusedError);
    const { rows } = await confab.db.asServer((tx) => tx.query<{ revoked_at: Date | null }>('select revoked_at from mcp_tokens where id = $1', [made.id]));
    expect(rows[0]?.revoked_at).not.toBeNull();
  });
});

describe('the stdio bridge’s --url', () => {
  it('takes https anywhere and plain http to this machine only, refusing the rest in a sentence', async () => {
    for (const url of ['https://confab.example', 'http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787']) expect(plainHttpRefusal(new URL(url)), url).toBeUndefined();
    for (const url of ['http://confab.example', 'http://192.168.1.4:8787', 'http://localhost.example']) expect(plainHttpRefusal(new URL(url)), url).toMatch(/plain http to .*use https:\/\//);
    // The bridge itself refuses before the token goes anywhere.
    await expect(openBridge({ serverUrl: 'http://confab.example:8787', token: 'confab_mcp_x', log: () => undefined })).rejects.toThrow(/plain http to confab\.example:8787/);
  });
});
