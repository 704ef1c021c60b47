/**
 * Notices under the person's session: what their open page for a bot should say soon, and the mark
 * that it has been said. Every query runs as the person (`asPerson`), so row level security keeps
 * one person out of another's notices; a notice of somebody else's is "no such notice", as is one
 * that does not exist.
 */
import { Hono } from 'hono';
import type { Notice } from '../common/acting/protocol';
import type { Bot } from './bots';
import type { Database } from './db/database';
import { dueNotices, markDelivered } from './db/notices';
import type { StoredNotice } from './db/notices';
import type { PersonEnv } from './person';
import { refusal, requestWordsOf } from './words/requestWords';
import { say } from './words/words';

/** How far ahead `GET /notices` looks, in ms: the page keeps the ones due by then and says each on time. */
export const NOTICES_AHEAD_MS = 24 * 60 * 60 * 1000;

export interface NoticeDeps {
  db: Database;
  bots: ReadonlyMap<string, Bot>;
  /** Now, in ms since the epoch. */
  clock: () => number;
}

export function noticeRoutes({ db, bots, clock }: NoticeDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();

  // Undelivered notices for one bot that are overdue or due within NOTICES_AHEAD_MS, oldest first.
  routes.get('/notices', async (c) => {
    const bot = c.req.query('bot') ?? '';
    if (!bots.has(bot)) throw refusal(c, 404, 'requests.no-bot', { bot });
    const untilMs = clock() + NOTICES_AHEAD_MS;
    const notices = await db.asPerson(c.get('person'), (tx) => dueNotices(tx, { bot, untilMs }));
    return c.json({ notices: notices.map(toNotice) });
  });

  // The page that says a notice marks it; only the first mark is 200, so only one page says it.
  routes.post('/notices/:id/delivered', async (c) => {
    const delivery = await db.asPerson(c.get('person'), (tx) => markDelivered(tx, c.req.param('id')));
    if (delivery.outcome === 'missing') throw refusal(c, 404, 'requests.no-notice');
    if (delivery.outcome === 'already') return c.json({ error: say(requestWordsOf(c), 'requests.already-said') }, 409);
    return c.json({ notice: toNotice(delivery.notice) });
  });

  return routes;
}

function toNotice(notice: StoredNotice): Notice {
  return { id: notice.id, text: notice.text, dueAtMs: notice.dueAtMs };
}
