/**
 * The one route that takes a session rather than a grant: `POST /api/start {bot}` answers a grant
 * for that bot and the person asking, with the bot's ceilings in it, and the public part of the bot
 * file. From then on the page holds nothing wider than the grant. Beside it, the bots' public parts
 * as this person may see them: `GET /api/bots` and `GET /api/bots/:slug`.
 *
 * Every way to a bot under the person's session passes its `for:` here (`botDoor`): the start, before
 * anything of the person's is touched; the listing, which leaves out a bot not for them; and every
 * route under `/api/bots/<bot>/`. A bot that is not for the person is refused `403` with one sentence
 * saying who it is for and, for the page, `for` (people, owner or named) — never a grant.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { admits, needsPeopleRow, refusedFor } from './audience';
import type { Asker, Audience } from './audience';
import type { Bot, PublicBot } from './bots';
import { publicBot } from './bots';
import { grantClaims, signGrant } from './grants';
import { readJson, text } from './json';
import type { PersonEnv } from './person';
import type { PersonRow } from './people/people';
import { refusal, requestWordsOf } from './words/requestWords';
import { say } from './words/words';

interface StartAnswer {
  grant: string;
  /** When the grant stops working, ms since the epoch. */
  expiresAt: number;
  bot: PublicBot;
}

/** What a person a bot is not for is answered, with `403`. */
interface NotForYou {
  error: string;
  /** Who the bot is for, for the page to offer what would admit them (a passkey, for `people`). */
  for: Exclude<Audience['to'], 'anyone'>;
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
  /**
   * The person's `people` row (whether they own the server, their name), for a bot `for:` the owner
   * or named people; read only for such a bot. Unset: nobody has one.
   */
  peopleRow?: (person: string) => Promise<PersonRow | undefined>;
}

/** The bots a request's person may reach, by each bot's `for:`: the one admission every way to a bot under a session passes. */
export interface BotDoor {
  /** The bot called `slug` when it is for the person asking; otherwise the answer to send: `404` none, `403` not theirs. */
  reach(c: Context<PersonEnv>, slug: string): Promise<Bot | Response>;
  /** Every bot that is for the person asking. */
  open(c: Context<PersonEnv>): Promise<Bot[]>;
}

export function botDoor(bots: ReadonlyMap<string, Bot>, peopleRow: SessionDeps['peopleRow']): BotDoor {
  // A request's asker, its `people` row read once at most, and only when a bot's `for:` needs it.
  const rows = new WeakMap<Context<PersonEnv>, Promise<PersonRow | undefined>>();
  const askerOf = async (c: Context<PersonEnv>, audiences: readonly Audience[]): Promise<Asker> => {
    const kind = c.get('personKind');
    if (peopleRow === undefined || !audiences.some((audience) => needsPeopleRow(audience, kind))) return { kind, owner: false, name: null };
    let row = rows.get(c);
    if (row === undefined) {
      row = peopleRow(c.get('person'));
      rows.set(c, row);
    }
    const found = await row;
    return { kind, owner: found?.owner ?? false, name: found?.name ?? null };
  };
  return {
    async reach(c, slug) {
      const bot = bots.get(slug);
      if (bot === undefined) throw refusal(c, 404, 'requests.no-bot', { bot: slug });
      const audience = bot.for;
      if (audience.to === 'anyone' || admits(audience, await askerOf(c, [audience]))) return bot;
      return c.json<NotForYou>({ error: say(requestWordsOf(c), refusedFor(audience)), for: audience.to }, 403);
    },
    async open(c) {
      const all = [...bots.values()];
      const asker = await askerOf(c, all.map((bot) => bot.for));
      return all.filter((bot) => admits(bot.for, asker));
    },
  };
}

export function sessionRoutes({ bots, grantSecret, clock, seen, peopleRow }: SessionDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();
  const door = botDoor(bots, peopleRow);
  // Mounted first among the personal routes, so a route added under a bot's name anywhere after is behind its `for:` too.
  const underBot: MiddlewareHandler<PersonEnv> = async (c, next) => {
    const reached = await door.reach(c, c.req.param('slug') ?? '');
    if (reached instanceof Response) return reached;
    await next();
  };
  routes.use('/bots/:slug/*', underBot);
  routes.post('/start', async (c) => {
    const slug = text(c, await readJson(c), 'bot', { maxChars: 64 });
    const bot = await door.reach(c, slug);
    if (bot instanceof Response) return bot;
    const claims = grantClaims(bot, c.get('person'), c.get('personKind'), clock());
    await seen?.(c.get('person'), slug);
    return c.json<StartAnswer>({ grant: signGrant(grantSecret, claims), expiresAt: claims.expiresAt, bot: publicBot(bot) });
  });
  routes.get('/bots', async (c) => c.json({ bots: (await door.open(c)).map(publicBot).sort((a, b) => a.name.localeCompare(b.name)) }));
  routes.get('/bots/:slug', async (c) => {
    const bot = await door.reach(c, c.req.param('slug'));
    return bot instanceof Response ? bot : c.json(publicBot(bot));
  });
  return routes;
}
