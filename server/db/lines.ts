/**
 * The lines of a conversation, saved one by one as they are said — a conversation has no end to save
 * it at. Run these in the person's transaction (`asPerson`).
 */
import { cutChoices, isChoices } from '../../common/conversation/choices';
import type { Choices } from '../../common/conversation/choices';
import { BOT_MAY_READ, markIfForgotten } from './forgotten';
import type { Queryable } from './queryable';
import { RefusedError } from './errors';
import { isUuid, jsonOf, onlyRow } from './rows';

export type Speaker = 'person' | 'assistant';

export interface Line {
  id: string;
  threadId: string;
  who: Speaker;
  text: string;
  /** The page's own id for the line; saving the same one again returns this line. */
  clientId: string;
  /** The assistant was talked over before it finished this line. */
  interrupted: boolean;
  /** The choices the answer ended in, cut from its text as it was kept; null when it offered none. */
  choices: Choices | null;
  /** Which of them was taken (`choices.ts` in this folder), or null while none is. */
  taken: number | null;
  createdAt: Date;
}

export interface NewLine {
  threadId: string;
  /** The transaction's person; a line in anybody else's name, or thread, is refused. */
  person: string;
  who: Speaker;
  text: string;
  clientId: string;
  interrupted?: boolean;
}

interface LineRow {
  id: string;
  thread_id: string;
  who: Speaker;
  text: string;
  client_id: string;
  interrupted: boolean;
  choices: unknown;
  taken?: number | null;
  created_at: Date;
}

const COLUMNS = 'id, thread_id, who, text, client_id, interrupted, choices, created_at';
/** The choice taken of a line's offer, beside its columns. */
const TAKEN = '(select c.choice from choices c where c.line_id = lines.id) as taken';

/**
 * Saves a line, or answers the line already saved under the same `clientId` in that thread — a retry
 * after a lost response must not say a thing twice. An answer whose last lines offer choices is kept
 * as its words, the choices apart (`cutChoices`), unless it was talked over. Throws `RefusedError`
 * when the thread is not the person's or does not exist (the same answer for both).
 */
export async function addLine(tx: Queryable, line: NewLine): Promise<Line> {
  if (!isUuid(line.threadId)) throw new RefusedError('Adding a line failed: no such thread.');
  const cut = line.who === 'assistant' && line.interrupted !== true ? cutChoices(line.text) : null;
  const text = cut?.words ?? line.text;
  const inserted = await tx.query<LineRow>(
    `insert into lines (thread_id, person, who, text, client_id, interrupted, choices)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb)
     on conflict (thread_id, client_id) do nothing
     returning ${COLUMNS}`,
    [line.threadId, line.person, line.who, text, line.clientId, line.interrupted ?? false, cut === null ? null : JSON.stringify(cut.choices)],
  );
  const row = inserted.rows[0];
  if (row !== undefined) {
    // Said after something was forgotten, and mentioning it: the person reads it, no bot does.
    await markIfForgotten(tx, { id: row.id, person: line.person, threadId: line.threadId, text });
    return fromRow(row);
  }
  const existing = await tx.query<LineRow>(`select ${COLUMNS}, ${TAKEN} from lines where thread_id = $1 and client_id = $2`, [line.threadId, line.clientId]);
  return fromRow(onlyRow(existing.rows, 'Finding the line saved under that clientId'));
}

/** A conversation's lines in the order they were said; none when the thread is not the person's. */
export async function listLines(tx: Queryable, threadId: string): Promise<Line[]> {
  if (!isUuid(threadId)) return [];
  const { rows } = await tx.query<LineRow>(`select ${COLUMNS}, ${TAKEN} from lines where thread_id = $1 order by seq`, [threadId]);
  return rows.map(fromRow);
}

/** Most earlier questions `pastQuestions` answers. */
const PAST_QUESTIONS_MAX = 200;

/**
 * What the person asked one bot before, across all their conversations with it: their latest
 * `limit` lines, returned oldest first so the live conversation sits nearest the question. For
 * `memory: person`. Always the person's own history, whoever runs it — the person is in the query.
 */
export async function pastQuestions(tx: Queryable, query: { person: string; bot: string; limit: number }): Promise<string[]> {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > PAST_QUESTIONS_MAX) {
    throw new RangeError(`pastQuestions limit is ${query.limit}; give a whole number from 1 to ${PAST_QUESTIONS_MAX}.`);
  }
  // Newest first, as the index reads them; turned to oldest first here. Words the person told this
  // bot to forget are not handed back to it as a question (`BOT_MAY_READ`).
  const { rows } = await tx.query<{ text: string }>(
    `select l.text from lines l join threads t on t.id = l.thread_id
      where l.person = $1 and l.who = 'person' and t.bot = $2
        and ${BOT_MAY_READ}
      order by l.seq desc
      limit $3`,
    [query.person, query.bot, query.limit],
  );
  return rows.map((row) => row.text).reverse();
}

function choicesOf(value: unknown): Choices | null {
  const choices = value === null ? null : jsonOf(value);
  return isChoices(choices) ? { question: choices.question, items: [...choices.items] } : null;
}

function fromRow(row: LineRow): Line {
  return {
    id: row.id,
    threadId: row.thread_id,
    who: row.who,
    text: row.text,
    clientId: row.client_id,
    interrupted: row.interrupted,
    choices: choicesOf(row.choices),
    taken: row.taken ?? null,
    createdAt: row.created_at,
  };
}
