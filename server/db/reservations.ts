/**
 * Admitting an answer under a person's ceilings, race-free across any number of servers over one
 * database. Server only (`asServer`): no person may read or write reservations.
 *
 * How it holds: the check and the reservation happen in one transaction under a transaction-scoped
 * advisory lock keyed by the person, so a second server's `reserveAnswer` for the same person waits
 * until the first has committed its reservation, and then counts it. This relies on Postgres's
 * default READ COMMITTED isolation, where each statement after the lock sees what committed before
 * it; on PGlite (one session) transactions already run one at a time. Spend ceilings hold the same
 * way: an admitted answer holds `holdUsd` until `recordUsage` replaces the hold with what it cost, so
 * answers running side by side cannot together overshoot a ceiling none of them has yet spent.
 */
import type { Queryable } from './database';
import { LIMIT_WINDOWS, WINDOW_MS, refusalSentence, validateLimits } from './limits';
import type { LimitWindow, PersonLimits, Refusal } from './limits';
import { isUuid, onlyRow } from './rows';

export interface ReserveRequest {
  person: string;
  bot: string;
  limits: PersonLimits;
  /**
   * US dollars held for this answer while it runs — the bot's per-answer spend ceiling, the most it
   * can cost. Default 0: only spend already recorded counts.
   */
  holdUsd?: number;
  /**
   * How long the hold may stand, in ms: the answer's own ceiling (its `minutes`). Past it, a hold
   * nobody settled — its server crashed — no longer counts. Default: until it is settled.
   */
  holdMs?: number;
  /** The server's clock: every window ends here. Rows stamped after it still count (clock skew). */
  now: Date;
}

export interface Admission {
  ok: true;
  /** Pass to `recordUsage` when the answer is done, or to `releaseReservation` if nothing was bought. */
  reservationId: string;
  reservedAt: Date;
  /** What the fullest window has left once this answer is counted; null where there is no ceiling. */
  room: Room;
}

/**
 * Room left in a person's windows for one bot: answers, and US dollars of spend (holds counted as
 * spent). Each is the least over the windows with that ceiling; null when none has one.
 */
export interface Room {
  answers: number | null;
  spendUsd: number | null;
}

/** Namespace of the per-person lock (first key of the two-key advisory lock); no other lock uses it. */
const RESERVE_LOCK = 0x43_4f_4e_46; // "CONF"

/**
 * Admits one answer for the person from the bot when every window has room, recording a reservation;
 * otherwise refuses, naming the window that frees up last and a sentence saying when. Throws
 * `RangeError` for limits no answer could be counted against (see `validateLimits`).
 */
export async function reserveAnswer(tx: Queryable, request: ReserveRequest): Promise<Admission | Refusal> {
  const holdUsd = request.holdUsd ?? 0;
  validateLimits(request.limits, holdUsd);
  const windows = LIMIT_WINDOWS.filter((window) => request.limits[window] !== undefined);
  await tx.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [RESERVE_LOCK, request.person]);
  // Every window is counted, and the reservation written when all have room, in one statement: each
  // statement on the answer's path costs a round trip (PGlite: a call into the engine).
  const { rows } = await tx.query<{ id: string | null; reserved_at: Date | null; answers_room: number | null; spend_room: string | number | null; refusals: RefusalRow[] | null }>(ADMIT_SQL, [
    request.person,
    request.bot,
    windows,
    windows.map((window) => new Date(request.now.getTime() - WINDOW_MS[window])),
    windows.map((window) => request.limits[window]?.answers ?? null),
    windows.map((window) => request.limits[window]?.spend ?? null),
    request.now,
    holdUsd,
    request.holdMs === undefined ? null : new Date(request.now.getTime() + request.holdMs),
  ]);
  const row = onlyRow(rows, 'Reserving an answer');
  if (row.id !== null && row.reserved_at !== null) {
    return { ok: true, reservationId: row.id, reservedAt: row.reserved_at, room: { answers: row.answers_room, spendUsd: row.spend_room === null ? null : Number(row.spend_room) } };
  }

  const refusals = (row.refusals ?? []).flatMap((refused) => refusalsOf(refused));
  const last = refusals.reduce<(typeof refusals)[number] | undefined>((latest, r) => (latest === undefined || freesLater(r.freesAt, latest.freesAt) ? r : latest), undefined);
  if (last === undefined) throw new Error('Reserving an answer: the database neither admitted nor refused it.');
  return { ok: false, ...last, sentence: refusalSentence(last, request.now) };
}

/** One window that is full, as the statement reports it (JSON: dates are ISO strings). */
interface RefusalRow {
  window: LimitWindow;
  answers_ceiling: number | null;
  answers_full: boolean;
  nth_newest: string | null;
  spend_ceiling: number | null;
  spend_full: boolean;
  spend_frees_from: string | null;
}

/**
 * Each window's refusals, with when they free up: for answers, the moment the `ceiling`-th newest
 * answer leaves the window; for spend, the moment enough of the oldest spending has left it; null
 * for a ceiling of 0, which frees never.
 */
function refusalsOf(row: RefusalRow): Omit<Refusal, 'ok' | 'sentence'>[] {
  const window = row.window;
  const later = (from: string | null, ceiling: number) => (ceiling === 0 || from === null ? null : new Date(Date.parse(from) + WINDOW_MS[window]));
  const refusals: Omit<Refusal, 'ok' | 'sentence'>[] = [];
  if (row.answers_full && row.answers_ceiling !== null) {
    refusals.push({ window, kind: 'answers', ceiling: row.answers_ceiling, freesAt: later(row.nth_newest, row.answers_ceiling) });
  }
  if (row.spend_full && row.spend_ceiling !== null) {
    const ceiling = row.spend_ceiling;
    refusals.push({ window, kind: 'spend', ceiling, freesAt: later(row.spend_frees_from, ceiling) });
  }
  return refusals;
}

/**
 * $1 person, $2 bot, then one array element per window with a ceiling: $3 its name, $4 where it
 * starts, $5 its answers ceiling, $6 its spend ceiling (USD); $7 now, $8 the hold (USD), $9 when the
 * hold lapses (null: never, until settled).
 *
 * A window is full of answers when it already holds `answers` of them; of spend when what it spent
 * (recorded costs plus holds of answers still running) leaves no room for this answer's hold. Spend
 * is compared as numeric, so cents add up exactly. Rows stamped after now still count (clock skew).
 * The reservation is inserted only when no window is full; the row returns its id and the room
 * the fullest window has left once it is counted, or the full windows as JSON.
 */
const ADMIT_SQL = `
with windows as (
  select * from unnest($3::text[], $4::timestamptz[], $5::int[], $6::numeric[]) as w(name, since, answers, spend)
),
held as (
  select reserved_at as at, case when hold_until is null or hold_until > $7 then hold else 0 end as hold from reservations
   where person = $1 and bot = $2 and reserved_at > (select min(since) from windows)
),
spending as (
  select at, hold as amount from held where hold > 0
  union all
  select started_at, cost from usage
   where person = $1 and bot = $2 and started_at > (select min(since) from windows) and cost > 0
),
checked as (
  select w.name as window, w.answers as answers_ceiling, w.spend as spend_ceiling,
         coalesce(a.count >= w.answers, false) as answers_full,
         w.answers - a.count - 1 as answers_room,
         w.spend - s.spent - $8::numeric as spend_room,
         a.nth_newest,
         coalesce(s.spent >= w.spend or s.spent + $8::numeric > w.spend, false) as spend_full,
         f.frees_from as spend_frees_from
    from windows w
    cross join lateral (
      select count(*) as count,
             (select at from held where at > w.since order by at desc offset greatest(w.answers - 1, 0) limit 1) as nth_newest
        from held where at > w.since
    ) a
    cross join lateral (select coalesce(sum(amount), 0) as spent from spending where at > w.since) s
    left join lateral (
      select at as frees_from
        from (select at, sum(amount) over (order by at rows unbounded preceding) as gone from spending where at > w.since) leaving
       where s.spent - gone < w.spend and s.spent - gone + $8::numeric <= w.spend
       order by at limit 1
    ) f on true
),
full_windows as (
  select * from checked where answers_full or spend_full
),
admitted as (
  insert into reservations (person, bot, reserved_at, hold, hold_until)
  select $1, $2, $7, $8, $9::timestamptz where not exists (select 1 from full_windows)
  returning id, reserved_at
)
select (select id from admitted) as id,
       (select reserved_at from admitted) as reserved_at,
       (select min(answers_room)::int from checked) as answers_room,
       (select min(spend_room) from checked) as spend_room,
       (select json_agg(full_windows) from full_windows) as refusals`;

/**
 * Lets go of an admitted answer's hold when nothing was bought (every provider failed, or the person
 * talked over it first). The answer still counts against the answer ceilings. False when unknown.
 */
export async function releaseReservation(tx: Queryable, reservationId: string): Promise<boolean> {
  if (!isUuid(reservationId)) return false;
  const { rows } = await tx.query('update reservations set hold = 0 where id = $1 returning id', [reservationId]);
  return rows.length > 0;
}

/** Null frees never, so it is later than any date. */
function freesLater(a: Date | null, b: Date | null): boolean {
  if (a === null) return b !== null;
  return b !== null && a.getTime() > b.getTime();
}
