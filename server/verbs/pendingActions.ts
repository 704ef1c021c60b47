/**
 * Pending actions: a `confirm` verb's call kept pending until the person answers. Run these in the person's
 * transaction (`asPerson`); the policies confine them to that person's rows, so a session can only
 * ever answer its own person's questions.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/queryable';
import { isUuid, onlyRow } from '../db/rows';

export interface PendingAction {
  id: string;
  person: string;
  bot: string;
  verb: string;
  /** The validated input, exactly as the person was asked about it. */
  input: unknown;
  question: string;
  timeZone: string;
  /** The page's key for the conversation it was asked in (kept in the column `conversation`). */
  conversationKey: string | null;
  expiresAtMs: number;
  /** The run waiting on the answer, when a run asked rather than a turn. */
  run?: string | null;
  /** The language the question was asked in; null or unset: the bot's own. */
  language?: string | null;
  /**
   * The digest of the turn, verb and target it was asked in (`pendingTargetOf`): one question per
   * target a turn asks, however often it is retried. Null for a run's question.
   */
  target?: string | null;
}

interface Row {
  id: string;
  person: string;
  bot: string;
  verb: string;
  input: unknown;
  question: string;
  time_zone: string;
  conversation: string | null;
  expires_at: Date;
  run: string | null;
  language: string | null;
  target: string | null;
}

/** The column `conversation` holds the conversation key; it keeps the name its migration gave it. */
const COLUMNS = 'id, person, bot, verb, input, question, time_zone, conversation, expires_at, run, language, target';

function actionOf(row: Row): PendingAction {
  return {
    id: row.id,
    person: row.person,
    bot: row.bot,
    verb: row.verb,
    input: typeof row.input === 'string' ? (JSON.parse(row.input) as unknown) : row.input,
    question: row.question,
    timeZone: row.time_zone,
    conversationKey: row.conversation,
    expiresAtMs: new Date(row.expires_at).getTime(),
    run: row.run,
    language: row.language,
    target: row.target,
  };
}

/**
 * What a verb call acts on, for telling two askings of one thing apart: its input with every
 * string lower-cased and its spaces folded ("Shopping " is "shopping"), keys sorted.
 */
function targetOf(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').trim());
  if (Array.isArray(value)) return `[${value.map(targetOf).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${targetOf(v)}`).join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

/** The digest naming one question of a turn: its turn key, the verb, and what the verb acts on (`targetOf`). */
function pendingTargetOf(turnKey: string, verb: string, input: unknown): string {
  return createHash('sha256').update(`${turnKey}\n${verb}\n${targetOf(input)}`).digest('hex');
}

/**
 * Keeps a call pending for the person's answer until `expiresAtMs`. With a `turnKey`, a turn asks
 * about one target once: asked again (a retried turn, the model asking twice), the question already
 * kept is answered — pending or already answered — and no second copy exists to approve.
 */
export async function keepPending(tx: Queryable, action: Omit<PendingAction, 'id' | 'target'> & { turnKey?: string }): Promise<PendingAction> {
  const target = action.turnKey === undefined ? null : pendingTargetOf(action.turnKey, action.verb, action.input);
  const { rows } = await tx.query<Row>(
    `insert into pending_actions (person, bot, verb, input, question, time_zone, conversation, expires_at, run, language, target)
     values ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8::double precision / 1000), $9, $10, $11)
     on conflict (person, target) where target is not null do nothing
     returning ${COLUMNS}`,
    [action.person, action.bot, action.verb, JSON.stringify(action.input), action.question, action.timeZone, action.conversationKey, action.expiresAtMs, action.run ?? null, action.language ?? null, target],
  );
  const kept = rows[0];
  if (kept !== undefined) return actionOf(kept);
  const { rows: earlier } = await tx.query<Row>(`select ${COLUMNS} from pending_actions where person = $1 and target = $2`, [action.person, target]);
  return actionOf(onlyRow(earlier, 'Finding the question this turn already asked'));
}

/**
 * Answers a pending action, once: it leaves `pending` for `answer` only if it is still pending and
 * not past its expiry at `nowMs`. Undefined when it is not the person's, already answered, or too late.
 */
export async function answerAction(tx: Queryable, id: string, answer: 'approved' | 'denied', nowMs: number): Promise<PendingAction | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await tx.query<Row>(
    `update pending_actions set state = $2
      where id = $1 and state = 'pending' and expires_at > to_timestamp($3::double precision / 1000)
      returning ${COLUMNS}`,
    [id, answer, nowMs],
  );
  const row = rows[0];
  return row === undefined ? undefined : actionOf(row);
}

/** The person's questions runs are waiting on with `bot`, still open at `nowMs`, oldest first: asked again on the next visit. */
export async function waitingRunActions(tx: Queryable, bot: string, nowMs: number): Promise<PendingAction[]> {
  const { rows } = await tx.query<Row>(
    `select ${COLUMNS} from pending_actions
      where bot = $1 and run is not null and state = 'pending' and expires_at > to_timestamp($2::double precision / 1000)
      order by expires_at limit 10`,
    [bot, nowMs],
  );
  return rows.map(actionOf);
}

/** Whom an action of the person's was asked through and in which language, answered or not; undefined when it is not theirs. */
export async function actionAsked(tx: Queryable, id: string): Promise<{ bot: string; language: string | null } | undefined> {
  if (!isUuid(id)) return undefined;
  const { rows } = await tx.query<{ bot: string; language: string | null }>('select bot, language from pending_actions where id = $1', [id]);
  return rows[0];
}
