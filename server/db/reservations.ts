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
  /** The server's clock: every window ends here. Rows stamped after it still count (clock skew). */
  now: Date;
}

export interface Admission {
  ok: true;
  /** Pass to `recordUsage` when the answer is done, or to `releaseReservation` if nothing was bought. */
  reservationId: string;
  reservedAt: Date;
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
  await tx.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [RESERVE_LOCK, request.person]);

  const refusals: Omit<Refusal, 'ok' | 'sentence'>[] = [];
  for (const window of LIMIT_WINDOWS) {
    const ceiling = request.limits[window];
    if (ceiling === undefined) continue;
    const since = new Date(request.now.getTime() - WINDOW_MS[window]);
    if (ceiling.answers !== undefined) {
      const freesAt = await answersRefusal(tx, request, window, since, ceiling.answers);
      if (freesAt !== undefined) refusals.push({ window, kind: 'answers', ceiling: ceiling.answers, freesAt });
    }
    if (ceiling.spend !== undefined) {
      const freesAt = await spendRefusal(tx, request, window, since, ceiling.spend, holdUsd);
      if (freesAt !== undefined) refusals.push({ window, kind: 'spend', ceiling: ceiling.spend, freesAt });
    }
  }

  const last = refusals.reduce<(typeof refusals)[number] | undefined>((latest, r) => (latest === undefined || freesLater(r.freesAt, latest.freesAt) ? r : latest), undefined);
  if (last !== undefined) return { ok: false, ...last, sentence: refusalSentence(last, request.now) };

  const { rows } = await tx.query<{ id: string; reserved_at: Date }>(
    'insert into reservations (person, bot, reserved_at, hold) values ($1, $2, $3, $4) returning id, reserved_at',
    [request.person, request.bot, request.now, holdUsd],
  );
  const row = onlyRow(rows, 'Reserving an answer');
  return { ok: true, reservationId: row.id, reservedAt: row.reserved_at };
}

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

/**
 * Undefined when the window has room for one more answer; otherwise when it will — the moment the
 * `ceiling`-th newest answer leaves the window — or null for a ceiling of 0.
 */
async function answersRefusal(tx: Queryable, request: ReserveRequest, window: LimitWindow, since: Date, ceiling: number): Promise<Date | null | undefined> {
  const { rows } = await tx.query<{ answers: number; nth_newest: Date | null }>(
    `select (select count(*)::int from reservations where person = $1 and bot = $2 and reserved_at > $3) as answers,
            (select reserved_at from reservations where person = $1 and bot = $2 and reserved_at > $3
              order by reserved_at desc offset greatest($4::int - 1, 0) limit 1) as nth_newest`,
    [request.person, request.bot, since, ceiling],
  );
  const row = onlyRow(rows, 'Counting answers');
  if (row.answers < ceiling) return undefined;
  if (ceiling === 0 || row.nth_newest === null) return null;
  return new Date(row.nth_newest.getTime() + WINDOW_MS[window]);
}

/**
 * Undefined when the window's spend (recorded costs plus holds) leaves room for this answer's hold;
 * otherwise when it will, the moment enough of the oldest spending leaves the window; null for a
 * ceiling of 0. Compared in SQL as numeric, so cents add up exactly.
 */
async function spendRefusal(
  tx: Queryable,
  request: ReserveRequest,
  window: LimitWindow,
  since: Date,
  ceilingUsd: number,
  holdUsd: number,
): Promise<Date | null | undefined> {
  const { rows } = await tx.query<{ refused: boolean; frees_from: Date | null }>(
    `with spending as (
       select reserved_at as at, hold as amount from reservations
        where person = $1 and bot = $2 and reserved_at > $3 and hold > 0
       union all
       select started_at, cost from usage
        where person = $1 and bot = $2 and started_at > $3 and cost > 0
     ),
     total as (select coalesce(sum(amount), 0) as spent from spending),
     leaving as (select at, sum(amount) over (order by at rows unbounded preceding) as gone from spending)
     select (spent >= $4::numeric or spent + $5::numeric > $4::numeric) as refused,
            (select at from leaving
              where spent - gone < $4::numeric and spent - gone + $5::numeric <= $4::numeric
              order by at limit 1) as frees_from
       from total`,
    [request.person, request.bot, since, ceilingUsd, holdUsd],
  );
  const row = onlyRow(rows, 'Adding up spend');
  if (!row.refused) return undefined;
  if (ceilingUsd === 0 || row.frees_from === null) return null;
  return new Date(row.frees_from.getTime() + WINDOW_MS[window]);
}
