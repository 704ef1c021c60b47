/**
 * Conversations: one thread is one conversation with one bot. Run these in the person's transaction
 * (`asPerson`); the policies confine them to that person's threads, so none takes a person to read by.
 */
import type { Queryable } from './queryable';
import { isUuid, onlyRow } from './rows';

export interface Thread {
  id: string;
  person: string;
  bot: string;
  createdAt: Date;
}

export interface ListedThread {
  id: string;
  bot: string;
  /** The first thing the person said in it, trimmed to one line of at most `TITLE_MAX_CHARS`. */
  title: string;
  createdAt: Date;
  /** When its newest line was saved. */
  lastLineAt: Date;
}

/** Longest title, in characters (UTF-16 code units), including the closing ellipsis. */
export const TITLE_MAX_CHARS = 80;

/** Starts a conversation; `person` must be the transaction's person or the policy refuses it. */
export async function createThread(tx: Queryable, thread: { person: string; bot: string }): Promise<Thread> {
  const { rows } = await tx.query<{ id: string; person: string; bot: string; created_at: Date }>(
    'insert into threads (person, bot) values ($1, $2) returning id, person, bot, created_at',
    [thread.person, thread.bot],
  );
  const row = onlyRow(rows, 'Creating a thread');
  return { id: row.id, person: row.person, bot: row.bot, createdAt: row.created_at };
}

/**
 * The person's conversations with one bot, newest line first. A thread in which the person has said
 * nothing is not listed: it has no title, and a list must never show "Untitled" — nor a conversation
 * that was only ever a greeting.
 */
export async function listThreads(tx: Queryable, filter: { bot: string }): Promise<ListedThread[]> {
  const { rows } = await tx.query<{ id: string; bot: string; created_at: Date; first_said: string; last_line_at: Date }>(
    `select t.id, t.bot, t.created_at, first.text as first_said, last.created_at as last_line_at
       from threads t
       cross join lateral (
         select l.text from lines l where l.thread_id = t.id and l.who = 'person' order by l.seq limit 1
       ) first
       cross join lateral (
         select l.created_at, l.seq from lines l where l.thread_id = t.id order by l.seq desc limit 1
       ) last
      where t.bot = $1
      order by last.seq desc`,
    [filter.bot],
  );
  return rows.map((row) => ({ id: row.id, bot: row.bot, title: titleOf(row.first_said), createdAt: row.created_at, lastLineAt: row.last_line_at }));
}

/** The bot a conversation of the person's is with, or null when there is no such conversation of theirs. */
export async function botOfThread(tx: Queryable, id: string): Promise<string | null> {
  if (!isUuid(id)) return null;
  const { rows } = await tx.query<{ bot: string }>('select bot from threads where id = $1', [id]);
  return rows[0]?.bot ?? null;
}

/** Deletes a conversation and its lines; false when there is no such thread of the person's. */
export async function deleteThread(tx: Queryable, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rows } = await tx.query('delete from threads where id = $1 returning id', [id]);
  return rows.length > 0;
}

/**
 * A title from what somebody said: its first non-blank line, spaces collapsed, cut at a word boundary
 * to fit `TITLE_MAX_CHARS` with an ellipsis when it had to be cut.
 */
export function titleOf(said: string): string {
  const line = said.split(/\r\n|\r|\n/).map((l) => l.replace(/\s+/g, ' ').trim()).find((l) => l !== '') ?? '';
  if (line.length <= TITLE_MAX_CHARS) return line;
  // Never split a surrogate pair: half an emoji is not a character.
  const room = line.slice(0, TITLE_MAX_CHARS - 1).replace(/[\uD800-\uDBFF]$/, '');
  const space = room.lastIndexOf(' ');
  // A word longer than half the room is cut mid-word rather than leaving a stub of a title.
  const cut = space >= TITLE_MAX_CHARS / 2 ? room.slice(0, space) : room;
  return `${cut.replace(/[\s,;:.–—-]+$/, '')}…`;
}
