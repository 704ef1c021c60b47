/**
 * Admitting an answer under a person's ceilings, race-free across any number of servers over one
 * database. Server only (`asServer`): no person may read or write reservations.
 *
 * How it holds: the check and the reservation happen in one transaction under a transaction-scoped
 * advisory lock keyed by the person, so a second server's `reserveAnswer` for the same person waits
 * until the first has committed its reservation, and then counts it. This relies on Postgres's
 * default READ COMMITTED isolation, where each statement after the lock sees what committed before
 * it; on PGlite (one session) transactions already run one at a time. Spend ceilings hold the same
 * way: an admitted answer holds `spendHoldUsd` until `recordUsage` replaces the spend hold with what it cost, so
 * answers running side by side cannot together overshoot a ceiling none of them has yet spent.
 *
 * How it counts: from running totals (`tallies`, migration 009), not by reading every answer in the
 * window. A window is the UTC days wholly inside it, then the hours, then the minutes, and the rows of
 * the one minute its far edge falls in: at most 30 + 23 + 59 totals and a minute of rows however many
 * answers the person had this month, and exact to the millisecond. Only a refusal reads the window's
 * rows, to say when it frees up — the one moment that needs the answers themselves.
  */
import type { Queryable } from './queryable';
import { LIMIT_WINDOWS, WINDOW_MS, validateLimits } from './limits';
import { refusalSentence } from '../words/refusalWords';
import type { LimitWindow, PersonLimits, Refusal } from './limits';
import { isUuid, msOf, onlyRow } from './rows';

export interface ReserveRequest {
  person: string;
  bot: string;
  limits: PersonLimits;
  /**
   * The spend hold: US dollars held for this answer while it runs — the bot's per-answer spend ceiling, the most it
   * can cost. Default 0: only spend already recorded counts.
   */
  spendHoldUsd?: number;
  /**
   * How long the spend hold may stand, in ms: the answer's own ceiling (its `minutes`). Past it, a
   * spend hold nobody settled — its server crashed — no longer counts. Default: until it is settled.
   */
  spendHoldMs?: number;
  /** The server's clock: every window ends here. Rows stamped after it still count (clock skew). */
  now: Date;
  /**
   * Whether this reservation is an answer, counted against answer ceilings (the default), or only
   * holds and spends money (a sentence of the paid voice): counted against spend ceilings alone.
   */
  answer?: boolean;
}

/** The owner of the site's reservations and totals: a name no person can have (migration 014). */
export const SITE_PERSON = '*site';
/** The bot the site's windows are counted under: every bot at once. */
export const SITE_BOT = '*';

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
interface Room {
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
  const asked = await askedUnderLock(tx, request);
  // Every window is added up from its totals, and the reservation written (and tallied) when all have
  // room, in one statement: each statement on the answer's path costs a round trip (PGlite: a call
  // into the engine).
  const { rows } = await tx.query<AdmitRow>(TALLIED_ADMIT_SQL, [...sharedParams(request, asked), ...edgesOf(asked.starts)]);
  const counted = onlyRow(rows, 'Reserving an answer');
  if (counted.id !== null) return admissionOf(counted);
  // A window is full: its rows say when it frees up. Counted again from them under the same lock,
  // it admits after all if an answer settled since (on Postgres, another server's may have).
  return admitFromRows(tx, request, asked);
}

/**
 * `reserveAnswer`, counting every window from its rows rather than its totals: what a refusal runs
 * to say when the window frees up, and what admission cost before the totals (`npm run bench --
 * admission` compares the two).
 */
export async function reserveFromRows(tx: Queryable, request: ReserveRequest): Promise<Admission | Refusal> {
  return admitFromRows(tx, request, await askedUnderLock(tx, request));
}

/** A request's windows and parameters, checked, once the person's lock is held. */
interface Asked {
  windows: LimitWindow[];
  /** Where each window starts (exclusive), ms. */
  starts: number[];
  /** Each window's answers ceiling and spend ceiling, as two arrays. */
  ceilings: [(number | null)[], (number | null)[]];
  /** Now, the spend hold, when it lapses, and the totals an admitted answer is added to. */
  admission: unknown[];
}

async function askedUnderLock(tx: Queryable, request: ReserveRequest): Promise<Asked> {
  const spendHoldUsd = request.spendHoldUsd ?? 0;
  validateLimits(request.limits, spendHoldUsd);
  const windows = LIMIT_WINDOWS.filter((window) => request.limits[window] !== undefined);
  // With the lock, in the same statement: admission is planned once for everybody (a prepared
  // statement, pgliteStatements.ts), never again for each person — its plan is the same index
  // ranges whoever asks, and planning it anew took longer than running it.
  await tx.query("select pg_advisory_xact_lock($1::int, hashtext($2)), set_config('plan_cache_mode', 'force_generic_plan', true)", [RESERVE_LOCK, request.person]);
  const now = request.now.getTime();
  return {
    windows,
    starts: windows.map((window) => now - WINDOW_MS[window]),
    ceilings: [windows.map((window) => request.limits[window]?.answers ?? null), windows.map((window) => request.limits[window]?.spend ?? null)],
    admission: [request.now, spendHoldUsd, request.spendHoldMs === undefined ? null : new Date(now + request.spendHoldMs), TALLY_GRAINS, tallyStarts(now), request.answer === false ? 0 : 1],
  };
}

/** $1 to $12, as both admission statements take them. */
function sharedParams(request: ReserveRequest, asked: Asked): unknown[] {
  return [request.person, request.bot, asked.windows, asked.starts.map((ms) => new Date(ms)), ...asked.ceilings, ...asked.admission];
}

async function admitFromRows(tx: Queryable, request: ReserveRequest, asked: Asked): Promise<Admission | Refusal> {
  const { rows } = await tx.query<AdmitRow & { refusals: RefusalRow[] | null }>(EXACT_ADMIT_SQL, sharedParams(request, asked));
  const exact = onlyRow(rows, 'Reserving an answer');
  if (exact.id !== null) return admissionOf(exact);
  const refusals = (exact.refusals ?? []).flatMap((refused) => refusalsOf(refused));
  const last = refusals.reduce<(typeof refusals)[number] | undefined>((latest, r) => (latest === undefined || freesLater(r.freesAt, latest.freesAt) ? r : latest), undefined);
  if (last === undefined) throw new Error('Reserving an answer: the database neither admitted nor refused it.');
  return { ok: false, ...last, sentence: refusalSentence(last, request.now, request.person === SITE_PERSON ? 'site' : 'bot') };
}

interface AdmitRow {
  id: string | null;
  reserved_at: Date | null;
  answers_room: number | null;
  spend_room: string | number | null;
}

function admissionOf(row: AdmitRow): Admission {
  if (row.id === null || row.reserved_at === null) throw new Error('Reserving an answer: the database admitted it without a reservation.');
  return { ok: true, reservationId: row.id, reservedAt: row.reserved_at, room: { answers: row.answers_room, spendUsd: row.spend_room === null ? null : Number(row.spend_room) } };
}

/** The grains of the running totals, finest first, and each one's length in ms (migration 009). */
const GRAIN_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export const TALLY_GRAINS = Object.keys(GRAIN_MS) as (keyof typeof GRAIN_MS)[];

/**
 * How long a running total is kept: the longest window, and a day for clocks that disagree. No
 * window ending later than a day before an answer began reaches a total older than this before it.
 */
export const TALLIES_KEPT_MS = WINDOW_MS.perMonth + GRAIN_MS.day;

/** The start of the UTC minute, hour or day `ms` falls in, as `date_trunc(grain, at, 'UTC')` has it. */
const floorTo = (ms: number, grain: keyof typeof GRAIN_MS) => Math.floor(ms / GRAIN_MS[grain]) * GRAIN_MS[grain];

/** The totals an answer or its cost at `ms` is added to: its minute's, its hour's and its day's, in `TALLY_GRAINS` order. */
export function tallyStarts(ms: number): Date[] {
  return TALLY_GRAINS.map((grain) => new Date(floorTo(ms, grain)));
}

/**
 * Where each window's totals begin, for windows starting (exclusively) at `starts`: the first whole
 * minute, hour and day inside it. Rows from the start to the first whole minute are read as rows; the
 * minutes up to the first whole hour, the hours up to the first whole day, and the days from there,
 * as totals. Each is one array, a window per element.
 */
function edgesOf(starts: readonly number[]): [Date[], Date[], Date[]] {
  const edge = (grain: keyof typeof GRAIN_MS) => starts.map((ms) => new Date(floorTo(ms, grain) + GRAIN_MS[grain]));
  return [edge('minute'), edge('hour'), edge('day')];
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
 * The reservation, written only when no window is full, its totals counted, and the row every
 * admission answers: the reservation's id and time and the room the fullest window has left once it
 * is counted. `checked` names each window's fullness (`is_full`) and room; both statements take $7
 * when the answer is admitted, $8 its spend hold (USD), $9 when the spend hold lapses (null: never,
 * until settled), $10 $11 the totals it is added to and $12 the answers it counts as (1, or 0 for what
 * only spends). The spend hold is kept in the columns `hold` and `hold_until`, which keep the
 * names migrations 001 and 008 gave them.
 */
const ADMIT_AND_ANSWER = `
admitted as (
  insert into reservations (person, bot, reserved_at, hold, hold_until, answers)
  select $1, $2, $7, $8, $9::timestamptz, $12::smallint where not exists (select 1 from checked where is_full)
  returning id, reserved_at
),
tallied as (
  insert into tallies (person, bot, grain, starts_at, answers)
  select $1, $2, g.grain, g.starts_at, $12::int from unnest($10::text[], $11::timestamptz[]) as g(grain, starts_at)
   where exists (select 1 from admitted)
  on conflict (person, bot, grain, starts_at) do update set answers = tallies.answers + excluded.answers
)
select (select id from admitted) as id,
       (select reserved_at from admitted) as reserved_at,
       (select min(answers_room)::int from checked) as answers_room,
       (select min(spend_room) from checked) as spend_room`;

/**
 * Admission from the running totals. $1 person, $2 bot, then one array element per window with a
 * ceiling: $3 its name, $4 where it starts (exclusive), $5 its answers ceiling, $6 its spend ceiling
 * (USD); $7 now, $8 the hold (USD), $9 when the hold lapses, $10 $11 the totals an admitted answer
 * is added to, $12 the answers it counts as — as `EXACT_ADMIT_SQL` takes them — and then $13 $14
 * $15 each window's first whole minute, hour and day (see `edgesOf`).
 *
 * A window is full of answers when it already holds `answers` of them; of spend when what it spent
 * (recorded costs plus the spend holds of answers still running) leaves no room for this answer's
 * spend hold. Spend
 * is compared as numeric, so cents add up exactly. Totals and rows stamped after now still count
 * (clock skew). Each window reads at most three ranges of totals (its days; the hours before its
 * first day; the minutes before its first hour), the reservations and usage of the minute at its
 * edge, and the spend holds that have not lapsed (an index finds them by their end).
 */
const TALLIED_ADMIT_SQL = `
with windows as (
  select * from unnest($3::text[], $4::timestamptz[], $13::timestamptz[], $14::timestamptz[], $15::timestamptz[], $5::int[], $6::numeric[])
    as w(name, since, minutes_from, hours_from, days_from, answers, spend)
),
holds as materialized (
  select reserved_at as at, hold from reservations where person = $1 and bot = $2 and hold > 0 and hold_until > $7
  union all
  select reserved_at, hold from reservations where person = $1 and bot = $2 and hold > 0 and hold_until is null
),
counted as (
  select w.answers as answers_ceiling, w.spend as spend_ceiling, t.answers + r.answers as answered, t.spent + u.spent + h.held as spent
    from windows w
    cross join lateral (
      select coalesce(sum(whole.answers), 0) as answers, coalesce(sum(whole.spent), 0) as spent from (
        select answers, spent from tallies where person = $1 and bot = $2 and grain = 'day' and starts_at >= w.days_from
        union all
        select answers, spent from tallies where person = $1 and bot = $2 and grain = 'hour' and starts_at >= w.hours_from and starts_at < w.days_from
        union all
        select answers, spent from tallies where person = $1 and bot = $2 and grain = 'minute' and starts_at >= w.minutes_from and starts_at < w.hours_from
      ) whole
    ) t
    cross join lateral (
      select coalesce(sum(answers), 0) as answers from reservations where person = $1 and bot = $2 and reserved_at > w.since and reserved_at < w.minutes_from
    ) r
    cross join lateral (
      select coalesce(sum(cost), 0) as spent from usage where person = $1 and bot = $2 and started_at > w.since and started_at < w.minutes_from
    ) u
    cross join lateral (select coalesce(sum(hold), 0) as held from holds where at > w.since) h
),
checked as (
  select coalesce(answered >= answers_ceiling, false) or coalesce(spent >= spend_ceiling or spent + $8::numeric > spend_ceiling, false) as is_full,
         answers_ceiling - answered - 1 as answers_room,
         spend_ceiling - spent - $8::numeric as spend_room
    from counted
),${ADMIT_AND_ANSWER}`;

/**
 * Admission from the window's rows, with the refusals when it is full: $1 person, $2 bot, then one
 * array element per window with a ceiling: $3 its name, $4 where it starts, $5 its answers ceiling,
 * $6 its spend ceiling (USD); $7 now, $8 the hold (USD), $9 when the hold lapses, $10 $11 the totals
 * an admitted answer is added to, $12 the answers it counts as.
 *
 * Counted as `TALLIED_ADMIT_SQL` counts. A full window also says when it frees up: for answers, when
 * its `answers`-th newest leaves it; for spend, when enough of its oldest spending has.
 */
const EXACT_ADMIT_SQL = `
with windows as (
  select * from unnest($3::text[], $4::timestamptz[], $5::int[], $6::numeric[]) as w(name, since, answers, spend)
),
held as (
  select reserved_at as at, answers, case when hold_until is null or hold_until > $7 then hold else 0 end as hold from reservations
   where person = $1 and bot = $2 and reserved_at > (select min(since) from windows)
),
spending as (
  select at, hold as amount from held where hold > 0
  union all
  select started_at, cost from usage
   where person = $1 and bot = $2 and started_at > (select min(since) from windows) and cost > 0
),
counted as (
  select w.name as window_name, w.answers as answers_ceiling, w.spend as spend_ceiling,
         coalesce(a.count >= w.answers, false) as answers_full,
         w.answers - a.count - 1 as answers_room,
         w.spend - s.spent - $8::numeric as spend_room,
         a.nth_newest,
         coalesce(s.spent >= w.spend or s.spent + $8::numeric > w.spend, false) as spend_full,
         f.frees_from as spend_frees_from
    from windows w
    cross join lateral (
      select count(*) filter (where answers = 1) as count,
             (select at from held where at > w.since and answers = 1 order by at desc offset greatest(w.answers - 1, 0) limit 1) as nth_newest
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
checked as (
  select *, answers_full or spend_full as is_full from counted
),${ADMIT_AND_ANSWER},
       (select json_agg(json_build_object('window', window_name, 'answers_ceiling', answers_ceiling, 'answers_full', answers_full, 'nth_newest', nth_newest,
                                          'spend_ceiling', spend_ceiling, 'spend_full', spend_full, 'spend_frees_from', spend_frees_from))
          from checked where is_full) as refusals`;

/**
 * Lets go of an admitted answer's spend hold when nothing was bought (every provider failed, or the person
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

/** One admitted effect of the person's, as `GET /api/me/usage` counts it. */
export interface ReservedRow {
  bot: string;
  /** When it was admitted, ms since the epoch. */
  atMs: number;
  /** 1 for an answer, 0 for what only spends (a sentence of the paid voice, a run's step). */
  answers: number;
  /** The spend it still holds at the moment asked about, USD: 0 once settled, released or lapsed. */
  holdUsd: number;
}

/** Every reservation of the person's admitted after `since`, with its hold as it stands at `now`, oldest first. */
export async function reservationsSince(tx: Queryable, person: string, since: Date, now: Date): Promise<ReservedRow[]> {
  const { rows } = await tx.query<{ bot: string; at: Date | string; answers: number; hold: number }>(
    `select bot, reserved_at as at, answers::int as answers,
            (case when hold_until is null or hold_until > $3 then hold else 0 end)::float8 as hold
       from reservations where person = $1 and reserved_at > $2 order by reserved_at`,
    [person, since, now],
  );
  return rows.map((row) => ({ bot: row.bot, atMs: msOf(row.at), answers: row.answers, holdUsd: row.hold }));
}
