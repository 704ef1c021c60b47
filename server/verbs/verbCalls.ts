/**
 * The table `verb_calls` (migration 003): one row per call that succeeded, and for a write its
 * idempotency key, a digest of its input and its result — recorded in the transaction of its
 * effect, so a retry finds the first result rather than repeating the effect. A remote write's row
 * is its claim, recorded before it calls out, its result to come (`output` null until then).
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/queryable';
import { VerbError } from './errors';
import { appOf } from './registry';
import type { Caller } from './verb';

/** Namespace of the per-key lock (first key of the two-key advisory lock); no other lock uses it. */
const IDEMPOTENCY_LOCK = 0x56_45_52_42; // "VERB"

/** One call to record. */
export interface CallRow {
  caller: Pick<Caller, 'person' | 'bot'>;
  /** `<app>.<verb>`. */
  verb: string;
  /** Its validated input, recorded only as its digest. */
  input: unknown;
  conversationKey: string | undefined;
  /** A write's idempotency key; unset for a read. */
  key: string | undefined;
  /** A keyed call's result. */
  output: unknown;
  /** A remote write's claim: recorded with no result yet, its call to come. */
  claimed?: true;
  /** When the call started, in ms since the epoch (the executor's clock, which the sweep measures against). */
  atMs: number;
}

export async function recordCall(tx: Queryable, row: CallRow): Promise<void> {
  // The column `conversation` holds the conversation key; it keeps the name migration 003 gave it.
  await tx.query(
    `insert into verb_calls (person, bot, verb, app, conversation, idem_key, input_digest, output, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [row.caller.person, row.caller.bot, row.verb, appOf(row.verb), row.conversationKey ?? null, row.key ?? null, digestOf(row.verb, row.input), row.key === undefined || row.claimed === true ? null : JSON.stringify(row.output), new Date(row.atMs).toISOString()],
  );
}

/**
 * The write recorded under `key` before this call, in `tx` under the key's lock: two calls with one
 * key at once (a retry racing its original, over Postgres) take turns here, so the second finds the
 * first's record rather than failing on the unique key. The same key with another input is
 * `key_reused`. A remote write's claim answers `output` null.
 */
export async function earlierWrite(tx: Queryable, person: string, verb: string, input: unknown, key: string): Promise<{ output: unknown } | undefined> {
  await tx.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [IDEMPOTENCY_LOCK, `${person}\n${key}`]);
  const { rows } = await tx.query<{ input_digest: string; output: unknown }>('select input_digest, output from verb_calls where idem_key = $1', [key]);
  const earlier = rows[0];
  if (earlier !== undefined && earlier.input_digest !== digestOf(verb, input)) throw new VerbError('key_reused');
  return earlier;
}

/** When the write under `key` was recorded (claimed), in ms since the epoch; undefined when it is not. */
export async function recordedAtMs(tx: Queryable, key: string): Promise<number | undefined> {
  const { rows } = await tx.query<{ created_at: Date | string }>('select created_at from verb_calls where idem_key = $1', [key]);
  const at = rows[0]?.created_at;
  return at === undefined ? undefined : new Date(at).getTime();
}

/** A remote write's result, on its claim. */
export async function recordClaimResult(tx: Queryable, person: string, key: string, output: unknown): Promise<void> {
  await tx.query('update verb_calls set output = $3 where person = $1 and idem_key = $2', [person, key, JSON.stringify(output)]);
}

/** Lets a remote write's claim go (its call failed), so a retry with its key tries again. */
export async function releaseClaim(tx: Queryable, person: string, key: string): Promise<void> {
  await tx.query('delete from verb_calls where person = $1 and idem_key = $2 and output is null', [person, key]);
}

/** Clears every key and result recorded before `beforeMs` (ms since the epoch), every person's; answers how many. */
export async function sweepCallKeys(tx: Queryable, beforeMs: number): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `with swept as (
       update verb_calls set idem_key = null, output = null
        where idem_key is not null and created_at < $1
       returning 1)
     select count(*)::int as n from swept`,
    [new Date(beforeMs).toISOString()],
  );
  return rows[0]?.n ?? 0;
}

/** The apps `caller` used in the conversation `conversationKey`, most recent first (eight at most). */
export async function appsUsed(tx: Queryable, caller: Pick<Caller, 'person' | 'bot'>, conversationKey: string): Promise<string[]> {
  const { rows } = await tx.query<{ app: string }>(
    `select app from verb_calls where person = $1 and bot = $2 and conversation = $3
      group by app order by max(seq) desc limit 8`,
    [caller.person, caller.bot, conversationKey],
  );
  return rows.map((row) => row.app);
}

/** The digests of the inputs `verb` was called with by `caller` in the conversation `conversationKey`. */
export async function inputDigests(tx: Queryable, caller: Pick<Caller, 'person' | 'bot'>, conversationKey: string, verb: string): Promise<string[]> {
  const { rows } = await tx.query<{ input_digest: string }>(
    `select distinct input_digest from verb_calls where person = $1 and bot = $2 and conversation = $3 and verb = $4`,
    [caller.person, caller.bot, conversationKey, verb],
  );
  return rows.map((row) => row.input_digest);
}

/** SHA-256 of the verb and its validated input, keys sorted: the same request digests the same. */
export function digestOf(verb: string, input: unknown): string {
  return createHash('sha256').update(`${verb}\n${canonical(input)}`).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}
