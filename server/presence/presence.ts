/**
 * Presence across a person's pages and devices, under their session: the referee (which page is
 * the active one for a bot) and the window (what happened, so every page shows it and a page that comes
 * back is owed what it missed). Routes, mounted under /api:
 *
 * - `GET /presence?bot=&page=&device=[&since=]`: the page's stream (SSE). It opens with `hello` — the
 *   page's seat, and what it is owed since `since` (events, which follow at once, or a reload) —
 *   then carries `seat`, `event` and `live` messages as they happen. The stream's opening and
 *   closing are the referee's `opened` and `closed`; its keep-alive is `seen`.
 * - `POST /presence/active {bot, page, device}`: the person's gesture on that page makes it the active page;
 *   answers the page's seat. Every other page of theirs is told.
 * - `POST /presence/events {bot, page, events, live}`: a page publishes what was said (kept in the
 *   window, from any page of theirs: it was said) and, from the active page only, its live state.
 *
 * The referee's decisions are server/presence/referee.ts; here they are applied in one
 * transaction per event over the person's seat, so several instances agree, and fanned out
 * (`hub.ts`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { streamSSE } from 'hono/streaming';
import type { SSEStreamingApi } from 'hono/streaming';
import { CAPACITY_LIMIT, owedTo, WINDOW_CAPACITY } from './eventWindow';
import { resolveOptions } from '../../common/options';
import type { Limits } from '../../common/options';
import { EVENT_TEXT_MAX, isId, publicationOf } from '../../common/presence/protocol';
import type { PageRef, Seat, Sequenced, WindowEvent } from '../../common/presence/protocol';
import { referee, REFEREE_DEFAULTS, seatOf } from './referee';
import type { RefereeEvent, Ruling } from './referee';
import type { Database } from '../db/database';
import type { Queryable } from '../db/queryable';
import { appendEvents, eventsFrom, keepLive, keepRuling, knownPages, notify, notifyIfActive, oldestSeq, readSeat, takeSeat } from '../db/presence';
import { countKey, releasePlace, renewPlace, takePlace } from '../db/sharedCounts';
import { bodyCap } from '../bodyCap';
import { readJson } from '../json';
import type { PersonEnv } from '../person';
import { refusal } from '../words/requestWords';
import { notificationOf, PRESENCE_CHANNEL, PresenceHub, PresenceStream, seatFromRow } from './hub';
import type { Fanout, Hearing } from './hub';

/**
 * The largest publication read, in bytes: one carrying two texts of the longest a line may be (a
 * live state's line and its draft, or a long line and the rest) in any characters — JSON writes a
 * UTF-16 code unit in at most 6 bytes — with 16 KiB for the rest. Several long lines together may
 * be over it; the page then sends them one at a time.
 */
const PUBLICATION_BODY_MAX_BYTES = 2 * 6 * EVENT_TEXT_MAX + 16 * 1024;

export interface PresenceOptions {
  /** Events the window keeps per person and bot. Default 200. */
  windowCapacity: number;
  /** How often an open stream sends a keep-alive and is counted as seen, in ms. Default 15 000. */
  heartbeatMs: number;
  /** How long a page may go unseen before the referee forgets it, in ms. Default 45 000. */
  staleMs: number;
  /**
   * Streams one person may hold open at once, over all their pages and bots and every instance over
   * the database: each holds its page's place there until `staleMs` past its last keep-alive, so the
   * streams of an instance that stopped lapse. Default 8.
   */
  streamsPerPerson: number;
}

const PRESENCE_DEFAULTS: Readonly<PresenceOptions> = Object.freeze({ windowCapacity: WINDOW_CAPACITY, heartbeatMs: 15_000, staleMs: REFEREE_DEFAULTS.staleMs, streamsPerPerson: 8 });

const LIMITS: Limits<PresenceOptions> = { windowCapacity: CAPACITY_LIMIT, heartbeatMs: { over: 0 }, staleMs: { over: 0 }, streamsPerPerson: { over: 0 } };

export interface PresenceDeps {
  db: Database;
  /** The bots there are: a stream or a claim for another is 404. */
  bots: ReadonlySet<string> | ReadonlyMap<string, unknown>;
  /** Now, in ms since the epoch. */
  clock: () => number;
  options?: Partial<PresenceOptions>;
}

export interface Presence {
  routes: Hono<PersonEnv>;
  /** Listens for the other instances' changes (where the database can). */
  start(): Promise<Hearing>;
  /** Keeps the server's own events (a verb that finished away from the conversation) and tells the person's pages. */
  publish(person: string, bot: string, events: readonly WindowEvent[]): Promise<Sequenced[]>;
  /** Ends every stream and stops listening. */
  close(): Promise<void>;
}

/** The person as their pages name their lock and channel: a digest, never their id. */
function personTag(person: string): string {
  return createHash('sha256').update(`confab presence\n${person}`).digest('hex').slice(0, 32);
}

export function presence(deps: PresenceDeps): Presence {
  const options = resolveOptions('presence', PRESENCE_DEFAULTS, deps.options, LIMITS);
  const { db } = deps;
  const hub = new PresenceHub(db, randomUUID());
  /** What ends each open stream, and each stream's handler until it has ended, for `close`. */
  const ending = new Set<() => void>();
  const handling = new Set<Promise<void>>();
  /**
   * Each person's open streams on this instance, by bot and page, with what ends each. Past
   * `streamsPerPerson` (counted in the database, over every instance) a new page's stream is refused
   * rather than the oldest closed: a closed page would reconnect and close the next in turn, round
   * and round, and the pages a person is using keep working. The same page opening again (it took
   * its stream for dead) replaces its old one — here, and its place in the count on any instance — so
   * connections a sleeping laptop left behind take no place.
   */
  const open = new Map<string, Map<string, { end: () => void; replaced: boolean }>>();

  /** Tells the other instances of `fanout` as this transaction commits; a live state too large to carry is kept on the seat for them. */
  async function tell(tx: Queryable, person: string, bot: string, fanout: Fanout): Promise<void> {
    const { payload, keep } = notificationOf(fanout);
    if (keep !== null) await keepLive(tx, person, bot, keep.live.from, keep.stamp, keep.live.live);
    await notify(tx, PRESENCE_CHANNEL, payload);
  }

  /** Applies one referee event to the person's seat; delivers the ruling to this instance's streams once it has committed. */
  async function rule(person: string, bot: string, event: RefereeEvent): Promise<Ruling> {
    const { ruling, fanout } = await db.asPerson(person, async (tx) => {
      const seat = await takeSeat(tx, person, bot);
      const before = { term: seat.term, active: seat.active, pages: await knownPages(tx, person, bot) };
      const ruled = referee(before, event, { staleMs: options.staleMs });
      await keepRuling(tx, person, bot, before, ruled.state);
      const events = ruled.changed ? await appendEvents(tx, person, bot, seat, [{ kind: 'presence', active: ruled.state.active, term: ruled.state.term }], deps.clock(), options.windowCapacity) : [];
      const change: Fanout = { from: hub.instance, person, bot, told: ruled.told, events };
      if (ruled.told.length > 0 || events.length > 0) await tell(tx, person, bot, change);
      return { ruling: ruled, fanout: change };
    });
    hub.deliver(fanout);
    return ruling;
  }

  async function publish(person: string, bot: string, page: string | null, events: readonly WindowEvent[], live: NonNullable<Fanout['live']> | null): Promise<{ sequenced: Sequenced[]; seat: Seat | null }> {
    if (events.length === 0 && live !== null) {
      // The live state alone, several times a second while the active page talks: one
      // statement that passes it on only if that page is the active one, and keeps nothing.
      const fanout: Fanout = { from: hub.instance, person, bot, live };
      const { payload, keep } = notificationOf(fanout);
      const row = await db.asPerson(person, async (tx) => {
        if (keep !== null) await keepLive(tx, person, bot, live.from, keep.stamp, keep.live.live);
        return notifyIfActive(tx, person, bot, live.from, PRESENCE_CHANNEL, payload);
      });
      if (row.active?.page === live.from) hub.deliver(fanout);
      return { sequenced: [], seat: page === null ? null : seatFromRow(row, page) };
    }
    const { change, seat } = await db.asPerson(person, async (tx) => {
      const row = events.length > 0 ? await takeSeat(tx, person, bot) : await readSeat(tx, person, bot);
      const sequenced = await appendEvents(tx, person, bot, row, events, deps.clock(), options.windowCapacity);
      // Only the active page says what the conversation is doing now.
      const said = live !== null && row.active?.page === live.from ? live : null;
      const fanout: Fanout = { from: hub.instance, person, bot, events: sequenced, ...(said === null ? {} : { live: said }) };
      if (sequenced.length > 0 || said !== null) await tell(tx, person, bot, fanout);
      return { change: fanout, seat: page === null ? null : seatFromRow(row, page) };
    });
    hub.deliver(change);
    return { sequenced: change.events ?? [], seat };
  }

  const routes = new Hono<PersonEnv>();
  const knownBot = (c: Context, slug: string | undefined): string => {
    if (slug === undefined || !deps.bots.has(slug)) throw refusal(c, 404, 'requests.no-bot', { bot: slug ?? '' });
    return slug;
  };
  const pageOf = (c: Context, page: unknown, device: unknown): PageRef => {
    if (!isId(page) || !isId(device)) throw refusal(c, 400, 'requests.page-ids');
    return { page, device };
  };

  routes.get('/presence', async (c) => {
    const bot = knownBot(c, c.req.query('bot'));
    const me = pageOf(c, c.req.query('page'), c.req.query('device'));
    const sinceParam = c.req.query('since');
    const since = sinceParam === undefined || sinceParam === '' ? null : Number(sinceParam);
    if (since !== null && (!Number.isSafeInteger(since) || since < 0)) throw refusal(c, 400, 'requests.presence-since');
    const person = c.get('person');
    const key = `${bot}\u0000${me.page}`;
    // The page's place in the count, held by this stream (a slug and an id: no NUL, which text refuses).
    const place = { key: countKey('presence-streams', person), slot: `${bot}/${me.page}`, holder: randomUUID() };
    const nowMs = deps.clock();
    const room = await db.asServer((tx) => takePlace(tx, { ...place, max: options.streamsPerPerson, nowMs, untilMs: nowMs + options.staleMs }));
    if (!room.ok) throw refusal(c, 429, 'requests.too-many-pages');
    const mine = open.get(person) ?? new Map<string, { end: () => void; replaced: boolean }>();
    const before = mine.get(key);
    if (before !== undefined) {
      before.replaced = true;
      before.end();
    }
    const held = { end: (): void => undefined, replaced: false };
    mine.set(key, held);
    open.set(person, mine);
    // Sent at once: the page should know that presence is there before its first event.
    c.header('x-accel-buffering', 'no');
    c.header('cache-control', 'no-store');
    return streamSSE(c, (sse) => {
      const handled = serve(sse);
      handling.add(handled);
      return handled.finally(() => handling.delete(handled));
    });

    /** One stream, from its hello to its closing (which the referee is told of). */
    async function serve(sse: SSEStreamingApi): Promise<void> {
      const stream = new PresenceStream(person, bot, me.page, sse, db);
      const detach = hub.attach(stream);
      let end: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => {
        end = resolve;
      });
      ending.add(end);
      held.end = end;
      if (held.replaced) end();
      sse.onAbort(end);
      const heartbeat = setInterval(() => {
        void stream.ping();
        rule(person, bot, { type: 'seen', page: me, atMs: deps.clock() }).catch(() => undefined);
        db.asServer((tx) => renewPlace(tx, { ...place, untilMs: deps.clock() + options.staleMs })).catch(() => undefined);
      }, options.heartbeatMs);
      try {
        const ruling = await rule(person, bot, { type: 'opened', page: me, atMs: deps.clock() });
        const { row, owed } = await db.asPerson(person, async (tx) => {
          const seat = await readSeat(tx, person, bot);
          const first = (await oldestSeq(tx, person, bot)) ?? seat.latestSeq + 1;
          return { row: seat, owed: owedTo({ oldestSeq: first, latestSeq: seat.latestSeq }, since, seat.conversationSeq) };
        });
        const events = owed.owed === 'events' ? await db.asPerson(person, (tx) => eventsFrom(tx, person, bot, owed.fromSeq)) : [];
        // The events read may reach past the seat read: a stream is owed them all, once.
        const latestSeq = Math.max(row.latestSeq, events.at(-1)?.seq ?? 0);
        await stream.opened(
          { type: 'hello', seat: seatOf(ruling.state, me.page), latestSeq, owed: owed.owed, conversation: row.conversation, you: personTag(person) },
          events,
          owed.owed === 'events' ? owed.fromSeq - 1 : latestSeq,
        );
        await ended;
      } finally {
        clearInterval(heartbeat);
        ending.delete(end);
        detach();
        if (mine.get(key) === held) mine.delete(key);
        if (mine.size === 0 && open.get(person) === mine) open.delete(person);
        // Its place is let go unless the page's new stream holds it now (its holder is another).
        await db.asServer((tx) => releasePlace(tx, place)).catch(() => undefined);
        // A stream its page replaced is no page closing: the page is open, on its new stream.
        if (!held.replaced) await rule(person, bot, { type: 'closed', page: me.page, atMs: deps.clock() }).catch(() => undefined);
      }
    }
  });

  routes.post('/presence/active', async (c) => {
    const body = await readJson(c);
    const bot = knownBot(c, typeof body.bot === 'string' ? body.bot : undefined);
    const me = pageOf(c, body.page, body.device);
    const person = c.get('person');
    // A claim always wins: every other page of the person's yields at once, before the ruling is
    // kept — this instance's streams now, the others' as soon as the notification reaches them.
    const yielding: Fanout = { from: hub.instance, person, bot, yield: me };
    hub.deliver(yielding);
    db.asPerson(person, (tx) => tell(tx, person, bot, yielding)).catch(() => undefined);
    const ruling = await rule(person, bot, { type: 'claimed', page: me, atMs: deps.clock() });
    return c.json({ seat: seatOf(ruling.state, me.page) });
  });

  routes.post('/presence/events', bodyCap(PUBLICATION_BODY_MAX_BYTES), async (c) => {
    const read = publicationOf(await readJson(c));
    // Only a page's own code publishes: a refusal is its bug, answered with the problem's code.
    if (!read.ok) throw new HTTPException(400, { message: read.problem });
    const { publication } = read;
    const bot = knownBot(c, publication.bot);
    const live = publication.live === null ? null : { from: publication.page, live: publication.live };
    const { sequenced, seat } = await publish(c.get('person'), bot, publication.page, publication.events, live);
    return c.json({ seqs: sequenced.map((s) => s.seq), seat });
  });

  return {
    routes,
    start: () => hub.start(),
    async publish(person, bot, events) {
      return (await publish(person, bot, null, events, null)).sequenced;
    },
    async close() {
      for (const end of [...ending]) end();
      // Each stream's closing is ruled before the database may close: the active page is let go now,
      // not once the page is forgotten as stale.
      await Promise.allSettled([...handling]);
      await hub.close();
    },
  };
}
