/**
 * A person's own view of what is theirs, under their session (docs/operating.md, "Who a bot is
 * for, and what is yours"):
 *
 * - `GET /api/me/usage?zone=<IANA zone>` — what their talk has cost, per bot, from the ledger
 *   (`Usage`, `usage.ts`);
 * - `GET /api/me/export` — everything they have, as one JSON file to download (`EXPORT_FILE_NAME`);
 * - `POST /api/me/forget {bot, confirm}` — all of it deleted in one transaction, once `confirm` is
 *   the name of the bot they are on as it is shown (any case); both cookies are cleared, `204`, and
 *   the page starts over as a new person.
 */
import { Hono } from 'hono';
import { EXPORT_FILE_NAME } from '../../common/people';
import type { Usage } from '../../common/people';
import { isTimeZone } from '../apps/localTime';
import type { Bot } from '../bots';
import type { Database } from '../db/database';
import { reservationsSince } from '../db/reservations';
import { costsSince } from '../db/usage';
import { readJson, text } from '../json';
import { dropDeviceCookies } from '../person';
import type { PersonEnv } from '../person';
import { botDoor } from '../session';
import type { SessionDeps } from '../session';
import { refusal } from '../words/requestWords';
import { everythingOf, forgetEverything } from './everything';
import { usageOf, usageSinceMs } from './usage';

export interface YoursDeps {
  db: Database;
  bots: ReadonlyMap<string, Bot>;
  clock: () => number;
  /** The person's `people` row, for a bot `for:` the owner or named people (`SessionDeps.peopleRow`). */
  peopleRow?: SessionDeps['peopleRow'];
}

/** How a bot's name is compared with the one typed: trimmed, any case. */
const typed = (name: string) => name.normalize('NFC').trim().toLocaleLowerCase();

export function yoursRoutes({ db, bots, clock, peopleRow }: YoursDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();
  const door = botDoor(bots, peopleRow);

  routes.get('/me/usage', async (c) => {
    const zone = c.req.query('zone') ?? 'UTC';
    if (!isTimeZone(zone)) throw refusal(c, 400, 'yours.zone');
    const person = c.get('person');
    const nowMs = clock();
    const since = new Date(usageSinceMs(nowMs, zone));
    const rows = await db.asServer(async (tx) => ({ reserved: await reservationsSince(tx, person, since, new Date(nowMs)), costs: await costsSince(tx, person, since) }));
    return c.json<Usage>(usageOf(rows, bots, nowMs, zone));
  });

  routes.get('/me/export', async (c) => {
    const everything = await everythingOf(db, c.get('person'), clock());
    return c.body(JSON.stringify(everything, null, 2), 200, {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="${EXPORT_FILE_NAME}"`,
      // What a person has stays between them and this server: nothing on the way keeps a copy.
      'cache-control': 'no-store',
    });
  });

  routes.post('/me/forget', async (c) => {
    const body = await readJson(c);
    const bot = await door.reach(c, text(c, body, 'bot', { maxChars: 64 }));
    if (bot instanceof Response) return bot;
    if (typed(text(c, body, 'confirm', { maxChars: 200 })) !== typed(bot.name)) throw refusal(c, 400, 'yours.forget-typed', { bot: bot.name });
    await forgetEverything(db, c.get('person'));
    // Both cookies go (a Supabase person's sign-in is Supabase's): this device's next request is a new person.
    dropDeviceCookies(c);
    return c.body(null, 204);
  });

  return routes;
}
