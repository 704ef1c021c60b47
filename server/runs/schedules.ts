/**
 * The SQL of schedules (migration 017), each function taking its connection first. The person
 * makes, lists and cancels their own (the `tasks.*` verbs, in their transaction); the server alone
 * moves a schedule's clock and starts its runs.
 */
import type { Queryable } from '../db/queryable';
import { iso, msOf } from '../db/rows';
import { countKey, oneMakingAtATime } from '../db/sharedCounts';
import { firing } from './recurrence';
import type { Recurrence } from './recurrence';
import { isAway, markPaused } from './seen';

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
  /** The bot's wake (`hears:`) this is the person's allowing of; null for a schedule they made. */
  wake: string | null;
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
  wake: string | null;
}

const COLUMNS = 'id, person, bot, conversation, asked, said, recurrence, language, next_at, last_fired_at, state, wake';
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
    nextAtMs: msOf(row.next_at),
    lastFiredAtMs: msOf(row.last_fired_at),
    state: row.state,
    wake: row.wake,
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
  /** The bot's wake it allows (migration 029); default none. */
  wake?: string;
}

const valuesOf = (schedule: NewSchedule) =>
  [schedule.person, schedule.bot, schedule.conversationKey, schedule.asked, schedule.said, JSON.stringify(schedule.recurrence), schedule.language ?? null, isoOrNull(schedule.nextAtMs)] as const;

export async function insertSchedule(tx: Queryable, schedule: NewSchedule, nowMs: number): Promise<Schedule> {
  const { rows } = await tx.query<Row>(
    `insert into schedules (person, bot, conversation, asked, said, recurrence, language, next_at, created_at, wake) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning ${COLUMNS}`,
    [...valuesOf(schedule), iso(nowMs), schedule.wake ?? null],
  );
  return scheduleOf(rows[0] as Row);
}

/** How the transaction's person has answered each of `bot`'s wakes they were asked about: allowed (a schedule running), or not. */
export async function wakeAnswers(tx: Queryable, bot: string): Promise<ReadonlyMap<string, 'allowed' | 'declined'>> {
  const { rows } = await tx.query<{ wake: string; allowed: boolean }>("select wake, bool_or(state = 'active') as allowed from schedules where bot = $1 and wake is not null group by wake", [bot]);
  return new Map(rows.map((row) => [row.wake, row.allowed ? 'allowed' : 'declined']));
}

/**
 * The person allows a wake: their schedule for it, its clock starting now. Answers undefined when it
 * was already allowed (another tab, a second press): the one allowing stands.
 */
export async function allowWake(tx: Queryable, schedule: NewSchedule & { wake: string }, nowMs: number): Promise<Schedule | undefined> {
  const { rows } = await tx.query<Row>(
    `insert into schedules (person, bot, conversation, asked, said, recurrence, language, next_at, created_at, wake) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       on conflict (person, bot, wake) where wake is not null and state = 'active' do nothing returning ${COLUMNS}`,
    [...valuesOf(schedule), iso(nowMs), schedule.wake],
  );
  return rows[0] === undefined ? undefined : scheduleOf(rows[0]);
}

/** The person stops a wake they allowed, or says not now to one never answered (kept, so they are not asked again). */
export async function refuseWake(tx: Queryable, schedule: NewSchedule & { wake: string }, nowMs: number): Promise<void> {
  const { rows } = await tx.query("update schedules set state = 'cancelled' where bot = $1 and wake = $2 and state = 'active' returning id", [schedule.bot, schedule.wake]);
  if (rows.length > 0 || (await wakeAnswers(tx, schedule.bot)).has(schedule.wake)) return;
  await tx.query(
    "insert into schedules (person, bot, conversation, asked, said, recurrence, language, next_at, created_at, wake, state) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'cancelled')",
    [...valuesOf({ ...schedule, nextAtMs: null }), iso(nowMs), schedule.wake],
  );
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

export interface DueOptions {
  /**
   * A person unseen for longer than this, in ms (`CONFAB_IDLE_DAYS`), is away: their due schedules
   * do not fire — each occurrence passes, the clock moves on, and they are told on their return.
   */
  idleMs: number;
  /** Most schedules looked at. Default 20. */
  limit?: number;
}

/**
 * The active schedules due at `nowMs` whose person is still there, each locked until the
 * transaction ends (`skip locked`: two instances never fire one twice). As the server. This is the
 * one way to a schedule's firing, so it is here that an away person's are passed over: their clock
 * moves to the next occurrence without firing, and the person is marked paused (`persons_seen`).
 * Seen is the latest of a grant minted for them, a use of one of their MCP tokens, and the
 * schedule's own making.
 */
export async function dueSchedules(tx: Queryable, nowMs: number, options: DueOptions): Promise<Schedule[]> {
  const { rows } = await tx.query<Row & { seen_at: Date | string }>(
    `select ${COLUMNS.split(', ').map((column) => `s.${column}`).join(', ')},
            greatest(p.seen_at, (select max(t.last_used_at) from mcp_tokens t where t.person = s.person), s.created_at) as seen_at
       from schedules s left join persons_seen p on p.person = s.person
      where s.state = 'active' and s.next_at <= $1
      order by s.next_at, s.id limit $2
      for update of s skip locked`,
    [iso(nowMs), options.limit ?? 20],
  );
  const present: Schedule[] = [];
  for (const row of rows) {
    const schedule = scheduleOf(row);
    const seenAtMs = msOf(row.seen_at);
    if (!isAway(seenAtMs, nowMs, options.idleMs)) {
      present.push(schedule);
      continue;
    }
    await moveClock(tx, schedule.id, firing(schedule.recurrence, schedule.nextAtMs, nowMs).nextAtMs, null);
    await markPaused(tx, schedule.person, seenAtMs, nowMs);
  }
  return present;
}

/**
 * Whether the transaction's person may make one schedule more: undefined when they may, else which
 * cap is full — theirs (`personMax`, over all their bots) or the site's (`siteMax`). Makings wait for
 * each other over the whole site (`oneMakingAtATime`) until the transaction ends. Call it just before
 * the schedule is made, in that transaction.
 */
export async function fullFor(tx: Queryable, { personMax, siteMax }: { personMax: number; siteMax: number }): Promise<'person-full' | 'site-full' | undefined> {
  await oneMakingAtATime(tx, countKey('schedules', 'site'));
  if ((await countOwnSchedules(tx)) >= personMax) return 'person-full';
  if ((await countSiteSchedules(tx)) >= siteMax) return 'site-full';
  return undefined;
}

/** How many active schedules the transaction's person keeps, over all their bots (row level security confines it). */
async function countOwnSchedules(tx: Queryable): Promise<number> {
  const { rows } = await tx.query<{ n: number }>("select count(*)::int as n from schedules where state = 'active'");
  return rows[0]?.n ?? 0;
}

/** How many active schedules the whole site keeps; answered to a person too (`confab_site_schedules`, a count and nothing else). */
async function countSiteSchedules(tx: Queryable): Promise<number> {
  const { rows } = await tx.query<{ n: number }>('select confab_site_schedules() as n');
  return rows[0]?.n ?? 0;
}

/** Everybody's schedules, newest first, for the operator (`npm run admin`). As the server. */
export async function listAllSchedules(tx: Queryable, limit = 100): Promise<Schedule[]> {
  const { rows } = await tx.query<Row>(`select ${COLUMNS} from schedules order by (state = 'active') desc, created_at desc, id limit $1`, [limit]);
  return rows.map(scheduleOf);
}

/** The operator cancels one schedule by its id, whoever's it is; true when it was active. As the server. */
export async function cancelScheduleById(tx: Queryable, id: string): Promise<boolean> {
  const { rows } = await tx.query("update schedules set state = 'cancelled' where id = $1 and state = 'active' returning id", [id]);
  return rows.length > 0;
}

/** Moves a schedule's clock after a look at it: fired at `firedAtMs` (or not), next at `nextAtMs`, over when null. As the server. */
export async function moveClock(tx: Queryable, id: string, nextAtMs: number | null, firedAtMs: number | null): Promise<void> {
  await tx.query(
    `update schedules set next_at = $2, last_fired_at = coalesce($3, last_fired_at), state = case when $2::timestamptz is null then 'over' else state end where id = $1`,
    [id, isoOrNull(nextAtMs), isoOrNull(firedAtMs)],
  );
}
