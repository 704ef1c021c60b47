/**
 * The one route that takes a session rather than a grant: `POST /api/start {bot}` answers a grant
 * for that bot and the person asking, with the bot's ceilings in it, and the public part of the bot
 * file. From then on the page holds nothing wider than the grant. Beside it, the bots' public parts.
 */
import { Hono } from 'hono';
import type { Bot, PublicBot } from './bots';
import { publicBot } from './bots';
import { grantClaims, signGrant } from './grants';
import { readJson, text } from './json';
import type { PersonEnv } from './person';
import { refusal } from './words/requestWords';

interface StartAnswer {
  grant: string;
  /** When the grant stops working, ms since the epoch. */
  expiresAt: number;
  bot: PublicBot;
}

export interface SessionDeps {
  bots: ReadonlyMap<string, Bot>;
  grantSecret: Uint8Array;
  clock: () => number;
  /**
   * The person was seen, starting `bot`: work of theirs paused while they were away runs again, and
   * they are told so (`RunService.seen`). Every grant is minted here, so this is where a person is seen.
   */
  seen?: (person: string, bot: string) => Promise<void>;
}

export function sessionRoutes({ bots, grantSecret, clock, seen }: SessionDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();
  routes.post('/start', async (c) => {
    const slug = text(c, await readJson(c), 'bot', { maxChars: 64 });
    const bot = bots.get(slug);
    if (!bot) throw refusal(c, 404, 'requests.no-bot', { bot: slug });
    const claims = grantClaims(bot, c.get('person'), clock());
    await seen?.(c.get('person'), slug);
    return c.json<StartAnswer>({ grant: signGrant(grantSecret, claims), expiresAt: claims.expiresAt, bot: publicBot(bot) });
  });
  return routes;
}

/** The bots' public parts, `GET /api/bots` and `GET /api/bots/:slug`: no person's, so no cookie and no Origin rule. */
export function publicBotRoutes(bots: ReadonlyMap<string, Bot>): Hono {
  const routes = new Hono();
  routes.get('/bots', (c) => c.json({ bots: [...bots.values()].map(publicBot).sort((a, b) => a.name.localeCompare(b.name)) }));
  routes.get('/bots/:slug', (c) => {
    const bot = bots.get(c.req.param('slug'));
    if (!bot) throw refusal(c, 404, 'requests.no-bot', { bot: c.req.param('slug') });
    return c.json(publicBot(bot));
  });
  return routes;
}
