/**
 * Searching what was said in a person's conversations with one bot (`lines` joined to `threads`),
 * in their own transaction: row level security confines it to their lines. Words matched by
 * Postgres full text search with the English dictionary, so "birthdays" finds "birthday" and "my",
 * "the" are passed over. Lines that mention what the person told the bot to forget are never found
 * (`BOT_MAY_READ`), as they are never handed back to it as earlier questions either.
 */
import { BOT_MAY_READ } from '../../db/forgotten';
import type { Queryable } from '../../db/queryable';
import type { Speaker } from '../../db/lines';

export interface SaidLine {
  who: Speaker;
  text: string;
  /** When it was said, ms since the epoch. */
  saidAtMs: number;
}

export interface SaidQuery {
  bot: string;
  /** What to look for, as a person says it ("my sister's birthday"). */
  about: string;
  /** Every word (`all`) or any of them (`any`). */
  match: 'all' | 'any';
  /** Leave out the conversation with the bot's newest line: the one in which the question is asked. */
  skipLatestConversation: boolean;
  limit: number;
}

/** The lines that mention `about`, newest first. */
export async function findSaid(tx: Queryable, query: SaidQuery): Promise<SaidLine[]> {
  const words = query.match === 'all' ? "plainto_tsquery('english', $2)" : "replace(plainto_tsquery('english', $2)::text, ' & ', ' | ')::tsquery";
  const { rows } = await tx.query<{ who: Speaker; text: string; created_at: Date }>(
    `with latest as (
       select l.thread_id from lines l join threads t on t.id = l.thread_id where t.bot = $1 order by l.seq desc limit 1
     )
     select l.who, l.text, l.created_at
       from lines l join threads t on t.id = l.thread_id
      where t.bot = $1
        and to_tsvector('english', l.text) @@ ${words}
        and not ($3 and l.thread_id in (select thread_id from latest))
        and ${BOT_MAY_READ}
      order by l.seq desc
      limit $4`,
    [query.bot, query.about, query.skipLatestConversation, query.limit],
  );
  return rows.map((row) => ({ who: row.who, text: row.text, saidAtMs: row.created_at.getTime() }));
}
