/**
 * Presence in Postgres: the referee's seat and the pages it knows, the window of events, and the
 * checkpoints. Run these in the person's transaction (`asPerson`): the policies confine them to that
 * person's rows. A transaction that changes a seat, its pages or its window takes the seat first
 * (`takeSeat`, `for update`), so rulings and sequence numbers never interleave across instances.
 */
import type { KnownPage, RefereeState } from '../presence/referee';
import type { ConversationRef, PageRef, Sequenced, WindowEvent } from '../../common/presence/protocol';
import { isWindowEvent } from '../../common/presence/protocol';
import type { Queryable } from './queryable';
import { jsonOf, msOf } from './rows';

export interface SeatRow {
  term: number;
  active: PageRef | null;
  /** The last `seq` given; 0 before any. */
  latestSeq: number;
  /** The conversation the active page shows, and the `seq` of the event that began it. */
  conversation: ConversationRef | null;
  conversationSeq: number | null;
}

interface SeatColumns {
  term: string | number;
  active_page: string | null;
  active_device: string | null;
  latest_seq: string | number;
  conversation: string | null;
  thread_id: string | null;
  reopened: boolean;
  conversation_seq: string | number | null;
}

const SEAT = 'term, active_page, active_device, latest_seq, conversation, thread_id, reopened, conversation_seq';

function seatOf(row: SeatColumns | undefined): SeatRow {
  if (row === undefined) return { term: 0, active: null, latestSeq: 0, conversation: null, conversationSeq: null };
  return {
    term: Number(row.term),
    active: row.active_page === null || row.active_device === null ? null : { page: row.active_page, device: row.active_device },
    latestSeq: Number(row.latest_seq),
    conversation: row.conversation === null ? null : { conversation: row.conversation, threadId: row.thread_id, reopened: row.reopened },
    conversationSeq: row.conversation_seq === null ? null : Number(row.conversation_seq),
  };
}

/** The seat, taken for this transaction (made when the person has none yet). */
export async function takeSeat(tx: Queryable, person: string, bot: string): Promise<SeatRow> {
  const take = () => tx.query<SeatColumns>(`select ${SEAT} from presence_seats where person = $1 and bot = $2 for update`, [person, bot]);
  const { rows } = await take();
  if (rows[0] !== undefined) return seatOf(rows[0]);
  await tx.query('insert into presence_seats (person, bot) values ($1, $2) on conflict (person, bot) do nothing', [person, bot]);
  return seatOf((await take()).rows[0]);
}

/** The seat as it stands, without taking it; an empty one when the person has none yet. */
export async function readSeat(tx: Queryable, person: string, bot: string): Promise<SeatRow> {
  const { rows } = await tx.query<SeatColumns>(`select ${SEAT} from presence_seats where person = $1 and bot = $2`, [person, bot]);
  return seatOf(rows[0]);
}

/** The pages the referee knows for the seat. */
export async function knownPages(tx: Queryable, person: string, bot: string): Promise<Record<string, KnownPage>> {
  const { rows } = await tx.query<{ page: string; device: string; streams: number; seen_at: Date }>(
    'select page, device, streams, seen_at from presence_pages where person = $1 and bot = $2',
    [person, bot],
  );
  return Object.fromEntries(rows.map((r) => [r.page, { device: r.device, streams: r.streams, seenAtMs: msOf(r.seen_at) }]));
}

/** Writes what a ruling changed: the seat's term and active page, and the pages it knows. */
export async function keepRuling(tx: Queryable, person: string, bot: string, before: RefereeState, after: RefereeState): Promise<void> {
  if (after.term !== before.term || after.active?.page !== before.active?.page) {
    await tx.query('update presence_seats set term = $3, active_page = $4, active_device = $5 where person = $1 and bot = $2', [
      person,
      bot,
      after.term,
      after.active?.page ?? null,
      after.active?.device ?? null,
    ]);
  }
  const gone = Object.keys(before.pages).filter((page) => after.pages[page] === undefined);
  if (gone.length > 0) await tx.query('delete from presence_pages where person = $1 and bot = $2 and page = any($3::text[])', [person, bot, gone]);
  for (const [page, known] of Object.entries(after.pages)) {
    const was = before.pages[page];
    if (was !== undefined && was.device === known.device && was.streams === known.streams && was.seenAtMs === known.seenAtMs) continue;
    await tx.query(
      `insert into presence_pages (person, bot, page, device, streams, seen_at) values ($1, $2, $3, $4, $5, $6)
       on conflict (person, bot, page) do update set device = excluded.device, streams = excluded.streams, seen_at = excluded.seen_at`,
      [person, bot, page, known.device, known.streams, new Date(known.seenAtMs)],
    );
  }
}

/**
 * Keeps `events` in the window after the seat's last `seq`, lets go of what falls out past
 * `capacity`, and moves the seat's counters on (and its conversation, for a `conversation` event).
 * The seat must have been taken in this transaction.
 */
export async function appendEvents(tx: Queryable, person: string, bot: string, seat: SeatRow, events: readonly WindowEvent[], atMs: number, capacity: number): Promise<Sequenced[]> {
  if (events.length === 0) return [];
  const sequenced = events.map((event, i): Sequenced => ({ seq: seat.latestSeq + i + 1, atMs, event }));
  await tx.query(
    `insert into presence_events (person, bot, seq, body, created_at)
     select $1, $2, seq, body, $5 from unnest($3::bigint[], $4::jsonb[]) as e(seq, body)`,
    [person, bot, sequenced.map((e) => e.seq), sequenced.map((e) => JSON.stringify(e.event)), new Date(atMs)],
  );
  const latestSeq = seat.latestSeq + events.length;
  let conversation = seat.conversation;
  let conversationSeq = seat.conversationSeq;
  for (const { seq, event } of sequenced) {
    if (event.kind !== 'conversation') continue;
    if (conversation?.conversation !== event.conversation) {
      conversation = { conversation: event.conversation, threadId: event.threadId, reopened: event.reopened };
      conversationSeq = seq;
    } else {
      conversation = { conversation: event.conversation, threadId: event.threadId ?? conversation.threadId, reopened: conversation.reopened || event.reopened };
    }
  }
  await tx.query(
    'update presence_seats set latest_seq = $3, conversation = $4, thread_id = $5, reopened = $6, conversation_seq = $7 where person = $1 and bot = $2',
    [person, bot, latestSeq, conversation?.conversation ?? null, conversation?.threadId ?? null, conversation?.reopened ?? false, conversationSeq],
  );
  await tx.query('delete from presence_events where person = $1 and bot = $2 and seq <= $3', [person, bot, latestSeq - capacity]);
  seat.latestSeq = latestSeq;
  seat.conversation = conversation;
  seat.conversationSeq = conversationSeq;
  return sequenced;
}

/** The window's events from `fromSeq` on, oldest first. */
export async function eventsFrom(tx: Queryable, person: string, bot: string, fromSeq: number): Promise<Sequenced[]> {
  const { rows } = await tx.query<{ seq: string | number; body: unknown; created_at: Date }>(
    'select seq, body, created_at from presence_events where person = $1 and bot = $2 and seq >= $3 order by seq',
    [person, bot, fromSeq],
  );
  return rows.flatMap((row) => {
    const event = jsonOf(row.body);
    // A row another version wrote in a shape this one does not know is passed over, not sent.
    return isWindowEvent(event) ? [{ seq: Number(row.seq), atMs: msOf(row.created_at), event }] : [];
  });
}

/** The oldest `seq` the window still holds, or null when it holds none. */
export async function oldestSeq(tx: Queryable, person: string, bot: string): Promise<number | null> {
  const { rows } = await tx.query<{ seq: string | number | null }>('select min(seq) as seq from presence_events where person = $1 and bot = $2', [person, bot]);
  const seq = rows[0]?.seq ?? null;
  return seq === null ? null : Number(seq);
}

/**
 * Sends `payload` on `channel` (when this transaction commits) only if `page` is the active one, in one
 * statement, for the live state that goes out many times a second; answers the seat as it stands.
 */
export async function notifyIfActive(tx: Queryable, person: string, bot: string, page: string, channel: string, payload: string): Promise<SeatRow> {
  const { rows } = await tx.query<SeatColumns>(
    `select ${SEAT}, case when active_page = $3 then pg_notify($4, $5)::text end as said from presence_seats where person = $1 and bot = $2`,
    [person, bot, page, channel, payload],
  );
  return seatOf(rows[0]);
}

/**
 * Keeps a live state too large for a notification on the seat, under `stamp`, if `page` is the
 * active one; answers whether it was kept. The latest replaces any before it.
 */
export async function keepLive(tx: Queryable, person: string, bot: string, page: string, stamp: string, live: unknown): Promise<boolean> {
  const { rows } = await tx.query<{ kept: boolean }>(
    'update presence_seats set live = $4::jsonb where person = $1 and bot = $2 and active_page = $3 returning true as kept',
    [person, bot, page, JSON.stringify({ stamp, live })],
  );
  return rows.length > 0;
}

/** The live state kept on the seat under `stamp`, or undefined when a later one (or none) is kept there. */
export async function readLive(tx: Queryable, person: string, bot: string, stamp: string): Promise<unknown> {
  const { rows } = await tx.query<{ live: unknown }>("select live -> 'live' as live from presence_seats where person = $1 and bot = $2 and live ->> 'stamp' = $3", [person, bot, stamp]);
  const live = rows[0]?.live;
  return jsonOf(live) ?? undefined;
}

/** Sends `payload` on `channel` when this transaction commits. */
export async function notify(tx: Queryable, channel: string, payload: string): Promise<void> {
  await tx.query('select pg_notify($1, $2)', [channel, payload]);
}

export interface Checkpoint {
  /** The latest checkpoint — the conversation's last lines, verbatim — or null before the first. */
  summary: string | null;
  /** Lines said since it was taken. */
  linesSince: number;
}

/** The conversation's checkpoint, or null when none was begun. */
export async function readCheckpoint(tx: Queryable, person: string, bot: string, conversation: string): Promise<Checkpoint | null> {
  const { rows } = await tx.query<{ summary: string | null; lines_since: number }>(
    'select summary, lines_since from presence_checkpoints where person = $1 and bot = $2 and conversation = $3',
    [person, bot, conversation],
  );
  const row = rows[0];
  return row === undefined ? null : { summary: row.summary, linesSince: row.lines_since };
}

/**
 * Counts `lines` more lines said in the conversation. When `due(linesSince)` says a checkpoint is
 * due, the count starts again from 0 in the same transaction, so of two answers ending at once only
 * one takes it. Answers the checkpoint so far, the lines counted, and whether this caller takes it.
 */
export async function countLines(tx: Queryable, person: string, bot: string, conversation: string, lines: number, due: (linesSince: number) => boolean): Promise<Checkpoint & { due: boolean }> {
  const { rows } = await tx.query<{ summary: string | null; lines_since: number }>(
    `insert into presence_checkpoints (person, bot, conversation, lines_since) values ($1, $2, $3, $4)
     on conflict (person, bot, conversation) do update set lines_since = presence_checkpoints.lines_since + excluded.lines_since
     returning summary, lines_since`,
    [person, bot, conversation, lines],
  );
  const counted = { summary: rows[0]?.summary ?? null, linesSince: rows[0]?.lines_since ?? lines };
  if (!due(counted.linesSince)) return { ...counted, due: false };
  await tx.query('update presence_checkpoints set lines_since = 0 where person = $1 and bot = $2 and conversation = $3', [person, bot, conversation]);
  return { ...counted, due: true };
}

/** Keeps a new checkpoint for the conversation. */
export async function keepCheckpoint(tx: Queryable, person: string, bot: string, conversation: string, summary: string, atMs: number): Promise<void> {
  await tx.query(
    `insert into presence_checkpoints (person, bot, conversation, summary, updated_at) values ($1, $2, $3, $4, $5)
     on conflict (person, bot, conversation) do update set summary = excluded.summary, updated_at = excluded.updated_at`,
    [person, bot, conversation, summary, new Date(atMs)],
  );
}
