/**
 * The SQL of schedules (migration 017), each function taking its connection first. The person
 * makes, lists and cancels their own (the `tasks.*` verbs, in their transaction); the server alone
 * moves a schedule's clock and starts its runs.
 */
import type { Queryable } from '../db/queryable';
import type { Recurrence } from './recurrence';
import { iso, ms } from './runs';

export interface Schedule {
  id: string;
  person: string;
  bot: string;
  conversationKey: string | null;
  asked: string;
  /** How it was said back when it was made ("every weekday at 08:00"). */
  said: string;
  recurrence: Recurrence;
  /** The language it was made in, for the runs it starts; null: the bot's own. */
  language: string | null;
  /** The next occurrence not yet fired, ms since the epoch; null when it is over. */
  nextAtMs: number | null;
  lastFiredAtMs: number | null;
  state: 'active' | 'cancelled' | 'over';
}

interface Row {
  id: string;
  person: string;
  bot: string;
  conversation: string | null;
  asked: string;
  said: string;
  recurrence: Recurrence;
  language: string | null;
  next_at: Date | string | null;
  last_fired_at: Date | string | null;
  state: Schedule['state'];
}

const COLUMNS = 'id, person, bot, conversation, asked, said, recurrence, language, next_at, last_fired_at, state';
const isoOrNull = (atMs: number | null): string | null => (atMs === null ? null : iso(atMs));

function scheduleOf(row: Row): Schedule {
  return {
    id: row.id,
    person: row.person,
    bot: row.bot,
    conversationKey: row.conversation,
    asked: row.asked,
    said: row.said,
    recurrence: row.recurrence,
    language: row.language,
    nextAtMs: ms(row.next_at),
    lastFiredAtMs: ms(row.last_fired_at),
    state: row.state,
  };
}

export interface NewSchedule {
  person: string;
  bot: string;
  conversationKey: string | null;
  asked: string;
  said: string;
  recurrence: Recurrence;
  /** The language the person made it in; default: the bot's own. */
  language?: string;
  /** Its first occurrence after now: a new schedule's clock starts at its making, not in the past. */
  nextAtMs: number | null;
}

export async function insertSchedule(tx: Queryable, schedule: NewSchedule, nowMs: number): Promise<Schedule> {
  const { rows } = await tx.query<Row>(
    `insert into schedules (person, bot, conversation, asked, said, recurrence, language, next_at, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${COLUMNS}`,
    [schedule.person, schedule.bot, schedule.conversationKey, schedule.asked, schedule.said, JSON.stringify(schedule.recurrence), schedule.language ?? null, isoOrNull(schedule.nextAtMs), iso(nowMs)],
  );
  return scheduleOf(rows[0] as Row);
}

/** The person's active schedules with `bot`, oldest first. */
export async function activeSchedules(tx: Queryable, bot: string, limit = 20): Promise<Schedule[]> {
  const { rows } = await tx.query<Row>(`select ${COLUMNS} from schedules where bot = $1 and state = 'active' order by created_at, id limit $2`, [bot, limit]);
  return rows.map(scheduleOf);
}

/** Cancels the person's active schedules whose ids are given; answers how many it cancelled. */
export async function cancelSchedules(tx: Queryable, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rows } = await tx.query("update schedules set state = 'cancelled' where id = any($1::uuid[]) and state = 'active' returning id", [ids]);
  return rows.length;
}

/**
 * The active schedules due at `nowMs`, each locked until the transaction ends (`skip locked`: two
 * instances never fire one twice). As the server.
 */
export async function dueSchedules(tx: Queryable, nowMs: number, limit = 20): Promise<Schedule[]> {
  const { rows } = await tx.query<Row>(
    `select ${COLUMNS} from schedules where state = 'active' and next_at <= $1 order by next_at, id limit $2 for update skip locked`,
    [iso(nowMs), limit],
  );
  return rows.map(scheduleOf);
}

/** Moves a schedule's clock after a look at it: fired at `firedAtMs` (or not), next at `nextAtMs`, over when null. As the server. */
export async function moveClock(tx: Queryable, id: string, nextAtMs: number | null, firedAtMs: number | null): Promise<void> {
  await tx.query(
    `update schedules set next_at = $2, last_fired_at = coalesce($3, last_fired_at), state = case when $2::timestamptz is null then 'over' else state end where id = $1`,
    [id, isoOrNull(nextAtMs), isoOrNull(firedAtMs)],
  );
}
