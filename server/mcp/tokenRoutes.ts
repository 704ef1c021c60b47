/**
 * The person's MCP tokens, under their session: `GET /api/mcp/tokens` lists them (never the token
 * itself), `POST /api/mcp/tokens {name, bots, timeZone?}` makes one and answers it once, and
 * `DELETE /api/mcp/tokens/<id>` revokes one. Every query runs as the person, so row level security
 * keeps each person to their own tokens; the token is random, and only its hash is kept.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { McpTokenListed, McpTokenMade } from '../../common/mcp/tokens';
import { TOKEN_BOTS_MAX, TOKEN_NAME_MAX_CHARS } from '../../common/mcp/tokens';
import type { Bot } from '../bots';
import { timeZoneOf } from '../chat/turnHeaders';
import type { Database } from '../db/database';
import { countLiveTokens, LIVE_TOKENS_MAX, listTokens, makeToken, revokeToken } from '../db/mcpTokens';
import type { McpTokenRow } from '../db/mcpTokens';
import { countKey, oneMakingAtATime } from '../db/sharedCounts';
import { readJson, text } from '../json';
import type { PersonEnv } from '../person';
import { botDoor } from '../session';
import type { SessionDeps } from '../session';
import { newToken } from './token';
import { refusal } from '../words/requestWords';

export interface McpTokenDeps {
  db: Database;
  bots: ReadonlyMap<string, Bot>;
  /** Now, in ms since the epoch. */
  clock: () => number;
  /** The person's `people` row, for a bot `for:` the owner or named people (`SessionDeps.peopleRow`). */
  peopleRow?: SessionDeps['peopleRow'];
}

const listed = (row: McpTokenRow): McpTokenListed => ({
  id: row.id,
  name: row.name,
  bots: row.bots,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
});

export function mcpTokenRoutes({ db, bots, clock, peopleRow }: McpTokenDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();
  const door = botDoor(bots, peopleRow);

  routes.get('/mcp/tokens', async (c) => {
    const tokens = await db.asPerson(c.get('person'), (tx) => listTokens(tx));
    return c.json({ tokens: tokens.map(listed) });
  });

  routes.post('/mcp/tokens', async (c) => {
    const body = await readJson(c);
    const name = text(c, body, 'name', { maxChars: 256 }).trim();
    if (name === '' || name.length > TOKEN_NAME_MAX_CHARS) throw refusal(c, 400, 'requests.token-name', { most: String(TOKEN_NAME_MAX_CHARS) });
    const chosen = botsOf(c, body.bots, bots);
    // A token acts through a bot only if the bot is for its maker, as the page talks to it only then.
    for (const slug of chosen) {
      const reached = await door.reach(c, slug);
      if (reached instanceof Response) return reached;
    }
    const zone = text(c, body, 'timeZone', { maxChars: 64, optional: true });
    const person = c.get('person');
    const { token, hash } = newToken();
    const made = await db.asPerson(person, async (tx) => {
      await oneMakingAtATime(tx, countKey('mcp tokens', person));
      if ((await countLiveTokens(tx)) >= LIVE_TOKENS_MAX) return undefined;
      return makeToken(tx, { person, name, bots: chosen, timeZone: timeZoneOf(zone), tokenHash: hash });
    });
    if (made === undefined) throw refusal(c, 409, 'requests.too-many-tokens', { most: String(LIVE_TOKENS_MAX) });
    // Shown this once: nothing on the way may keep a copy.
    c.header('Cache-Control', 'no-store');
    return c.json<McpTokenMade>({ ...listed(made), token }, 201);
  });

  routes.delete('/mcp/tokens/:id', async (c) => {
    const revoked = await db.asPerson(c.get('person'), (tx) => revokeToken(tx, c.req.param('id'), clock()));
    if (!revoked) throw refusal(c, 404, 'requests.no-token');
    return c.body(null, 204);
  });

  return routes;
}

/** The bots asked for: known slugs, each once, in the order given. */
function botsOf(c: Context, value: unknown, known: ReadonlyMap<string, Bot>): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > TOKEN_BOTS_MAX || !value.every((v) => typeof v === 'string')) {
    throw refusal(c, 400, 'requests.token-bots', { most: String(TOKEN_BOTS_MAX) });
  }
  const slugs = [...new Set(value)];
  const unknown = slugs.find((slug) => !known.has(slug));
  if (unknown !== undefined) throw refusal(c, 400, 'requests.no-bot', { bot: unknown.slice(0, 64) });
  return slugs;
}
