/**
 * What each answer used — provider, model, tokens and cost — recorded by the server once the answer is
 * done. A person may read their own rows (`usage_read`), never write them.
 */
import type { Queryable } from './queryable';
import { RefusedError } from './errors';
import { TALLIES_KEPT_MS, TALLY_GRAINS, tallyStarts } from './reservations';
import { isUuid, msOf, onlyRow } from './rows';

export interface UsageRecord {
  /** The admission from `reserveAnswer`; recording settles its spend hold. Omit for an answer never reserved. */
  reservationId?: string;
  person: string;
  bot: string;
  /** Which configured provider answered, e.g. `openai` or `stand-in`. */
  provider: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** US dollars, from the configured price table; 0 for the stand-in. */
  costUsd: number;
  /** When the answer began; its spend counts in the windows from here. */
  startedAt: Date;
}

export interface Spend {
  /** Answers with usage recorded. */
  answers: number;
  /** US dollars. */
  costUsd: number;
  /** Prompt and completion tokens together. */
  tokens: number;
}

/**
 * Records one answer's usage and, in the same statement, replaces its reservation's spend hold with that
 * cost and adds the cost to the person's running totals. Server only. A reservation of another person's is refused (`RefusedError`), and so is a
 * second record for one reservation (`DatabaseError`, unique violation).
 */
export async function recordUsage(tx: Queryable, usage: UsageRecord): Promise<{ id: string }> {
  for (const [field, value] of [['promptTokens', usage.promptTokens], ['completionTokens', usage.completionTokens]] as const) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${field} is ${value}; give a whole number of tokens, 0 or more.`);
  }
  if (usage.reservationId !== undefined && !isUuid(usage.reservationId)) throw new RefusedError('Recording usage failed: no such reservation.');
  if (!(Number.isFinite(usage.costUsd) && usage.costUsd >= 0)) throw new RangeError(`costUsd is ${usage.costUsd}; give US dollars, 0 or more.`);
  const started = usage.startedAt.getTime();
  // The cost joins its minute's, hour's and day's totals (reservations.ts counts windows from them);
  // totals no window can reach any more are dropped as the person's next answers are recorded.
  const { rows } = await tx.query<{ id: string }>(
    `with settled as (
       update reservations set hold = 0 where id = $1::uuid and person = $2 returning id
     ),
     tallied as (
       insert into tallies (person, bot, grain, starts_at, spent)
       select $2, $3, g.grain, g.starts_at, $8 from unnest($10::text[], $11::timestamptz[]) as g(grain, starts_at) where $8::numeric > 0
       on conflict (person, bot, grain, starts_at) do update set spent = tallies.spent + excluded.spent
     ),
     expired as (
       delete from tallies where person = $2 and bot = $3 and grain = any($10::text[]) and starts_at < $12
     )
     insert into usage (reservation_id, person, bot, provider, model, prompt_tokens, completion_tokens, cost, started_at)
     values ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9)
     returning id`,
    [
      usage.reservationId ?? null,
      usage.person,
      usage.bot,
      usage.provider,
      usage.model,
      usage.promptTokens,
      usage.completionTokens,
      usage.costUsd,
      usage.startedAt,
      TALLY_GRAINS,
      tallyStarts(started),
      new Date(started - TALLIES_KEPT_MS),
    ],
  );
  return { id: onlyRow(rows, 'Recording usage').id };
}

/** What the person's answers used since a moment, from every bot or from one. */
export async function spendSince(tx: Queryable, query: { person: string; bot?: string; since: Date }): Promise<Spend> {
  const { rows } = await tx.query<{ answers: number; cost_usd: number; tokens: number }>(
    `select count(*)::int as answers,
            coalesce(sum(cost), 0)::float8 as cost_usd,
            coalesce(sum(prompt_tokens + completion_tokens), 0)::float8 as tokens
       from usage
      where person = $1 and ($2::text is null or bot = $2) and started_at >= $3`,
    [query.person, query.bot ?? null, query.since],
  );
  const row = onlyRow(rows, 'Adding up usage');
  return { answers: row.answers, costUsd: row.cost_usd, tokens: row.tokens };
}

/** One answer's recorded cost, as `GET /api/me/usage` counts it. */
export interface CostRow {
  bot: string;
  /** When the answer began, ms since the epoch: where its cost counts. */
  atMs: number;
  costUsd: number;
}

/** Every recorded cost of the person's that began after `since`, oldest first. */
export async function costsSince(tx: Queryable, person: string, since: Date): Promise<CostRow[]> {
  const { rows } = await tx.query<{ bot: string; at: Date | string; cost: number }>(
    'select bot, started_at as at, cost::float8 as cost from usage where person = $1 and started_at > $2 order by started_at',
    [person, since],
  );
  return rows.map((row) => ({ bot: row.bot, atMs: msOf(row.at), costUsd: row.cost }));
}
