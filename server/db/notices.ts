/**
 * Notices: something an app asks the person's open page to say at a time (a reminder coming due).
 * Run these in the person's transaction (`asPerson`): the policies confine them to that person's
 * notices, so none takes a person to read by. A notice is said once: the page that says it marks it
 * delivered, and every other page of the person's is then told it was already said.
 */
import type { Queryable } from './queryable';
import { isUuid, msOf, onlyRow } from './rows';

export interface StoredNotice {
  id: string;
  bot: string;
  /** The app that asked for it, e.g. `reminders`. */
  app: string;
  /** What is said, as it is said. */
  text: string;
  /** When it is due, ms since the epoch. */
  dueAtMs: number;
  /** When a page said it, ms since the epoch; undefined until then. */
  deliveredAtMs?: number;
}

export interface NewNotice {
  /** The transaction's person; a notice in anybody else's name is refused by the policy. */
  person: string;
  bot: string;
  app: string;
  text: string;
  dueAtMs: number;
}

/** The outcome of marking a notice delivered. */
export type Delivery =
  | { outcome: 'delivered'; notice: StoredNotice }
  /** Another page (or this one, earlier) already said it. */
  | { outcome: 'already' }
  /** No such notice of the person's — or not theirs: the same answer for both. */
  | { outcome: 'missing' };

/** Most notices one read answers. */
const NOTICES_MAX = 100;

interface NoticeRow {
  id: string;
  bot: string;
  app: string;
  text: string;
  due_at: Date;
  delivered_at: Date | null;
}

const COLUMNS = 'id, bot, app, text, due_at, delivered_at';

/** Asks for `text` to be said at `dueAtMs`. */
export async function scheduleNotice(tx: Queryable, notice: NewNotice): Promise<StoredNotice> {
  const { rows } = await tx.query<NoticeRow>(
    `insert into notices (person, bot, app, text, due_at) values ($1, $2, $3, $4, $5) returning ${COLUMNS}`,
    [notice.person, notice.bot, notice.app, notice.text, new Date(notice.dueAtMs)],
  );
  return fromRow(onlyRow(rows, 'Scheduling a notice'));
}

/** One app's notices for one bot that no page has said yet (overdue ones too), soonest first. */
export async function pendingNotices(tx: Queryable, filter: { bot: string; app: string; limit?: number }): Promise<StoredNotice[]> {
  const { rows } = await tx.query<NoticeRow>(
    `select ${COLUMNS} from notices where bot = $1 and app = $2 and delivered_at is null order by due_at, created_at limit $3`,
    [filter.bot, filter.app, limitOf(filter.limit)],
  );
  return rows.map(fromRow);
}

/** How many of one app's notices for one bot no page has said yet. */
export async function countPendingNotices(tx: Queryable, filter: { bot: string; app: string }): Promise<number> {
  const { rows } = await tx.query<{ count: number }>('select count(*)::int as count from notices where bot = $1 and app = $2 and delivered_at is null', [
    filter.bot,
    filter.app,
  ]);
  return onlyRow(rows, 'Counting notices').count;
}

/** Removes notices not yet said; answers how many went. Ids that are not the person's are passed over. */
export async function cancelNotices(tx: Queryable, ids: readonly string[]): Promise<number> {
  const wanted = ids.filter(isUuid);
  if (wanted.length === 0) return 0;
  const { rows } = await tx.query('delete from notices where id = any($1::uuid[]) and delivered_at is null returning id', [wanted]);
  return rows.length;
}

/**
 * What the page for one bot owes the person by `untilMs`: notices not yet said that are overdue or
 * due by then, of every app, oldest first — so a page opened late says what came due while none was.
 */
export async function dueNotices(tx: Queryable, filter: { bot: string; untilMs: number; limit?: number }): Promise<StoredNotice[]> {
  const { rows } = await tx.query<NoticeRow>(
    `select ${COLUMNS} from notices where bot = $1 and delivered_at is null and due_at <= $2 order by due_at, created_at limit $3`,
    [filter.bot, new Date(filter.untilMs), limitOf(filter.limit)],
  );
  return rows.map(fromRow);
}

/**
 * Marks a notice said, once. Two pages marking the same notice at once both run this update; the
 * row lock makes the second wait for the first and then find `delivered_at` set, so exactly one is
 * told `delivered` and says it.
 */
export async function markDelivered(tx: Queryable, id: string): Promise<Delivery> {
  if (!isUuid(id)) return { outcome: 'missing' };
  const { rows } = await tx.query<NoticeRow>(`update notices set delivered_at = now() where id = $1 and delivered_at is null returning ${COLUMNS}`, [id]);
  const row = rows[0];
  if (row !== undefined) return { outcome: 'delivered', notice: fromRow(row) };
  const existing = await tx.query('select 1 from notices where id = $1', [id]);
  return existing.rows.length > 0 ? { outcome: 'already' } : { outcome: 'missing' };
}

function limitOf(limit: number | undefined): number {
  const wanted = limit ?? NOTICES_MAX;
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > NOTICES_MAX) {
    throw new RangeError(`A notices limit is ${wanted}; give a whole number from 1 to ${NOTICES_MAX}.`);
  }
  return wanted;
}

function fromRow(row: NoticeRow): StoredNotice {
  return {
    id: row.id,
    bot: row.bot,
    app: row.app,
    text: row.text,
    dueAtMs: msOf(row.due_at),
    ...(row.delivered_at === null ? {} : { deliveredAtMs: msOf(row.delivered_at) }),
  };
}
