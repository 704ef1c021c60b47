/**
 * When the server's embedder changes, the memories made by another one are embedded again with it,
 * in the background, from the words each memory keeps: recall compares like with like only, so a
 * memory left in the old space would never be recalled. Each memory moves with its own vector in
 * one statement (embedder, vector and width together, migration 006's trigger), so no row is ever
 * half in one space; a person's memories move a batch at a time, oldest first, and until a memory
 * has moved it is simply not recalled. Short transactions: the embedded database is one session,
 * and a person's turn must not wait behind the whole move.
 *
 * Progress is logged (counts only, never words). Servers sharing one database must share
 * `CONFAB_EMBEDDER`, or each moves the memories back to its own embedder.
 */
import type { Database } from '../db/database';
import { vectorLiteral } from '../db/memories';
import type { Embedder } from './embed';
import { widthOf } from './embed';
import type { EmbedderLog } from './chooseEmbedder';

export interface ReembedOptions {
  log: EmbedderLog;
  /** Memories embedded and moved per transaction. Default 200. */
  batch?: number;
  /** Least time between two progress lines, in ms. Default 5,000. */
  progressEveryMs?: number;
  /** Stops the move between batches (server shutdown); what moved stays moved. */
  signal?: AbortSignal;
  clock?: () => number;
}

export interface ReembedResult {
  /** Memories in another space when the move began. */
  total: number;
  moved: number;
  /** Memories whose words the new embedder gives no vector for (left where they were). */
  skipped: number;
}

interface Stale {
  id: string;
  seq: string;
  text: string;
  embedder: string;
}

export async function reembedMemories(db: Database, embedder: Embedder, options: ReembedOptions): Promise<ReembedResult> {
  const batch = options.batch ?? 200;
  const every = options.progressEveryMs ?? 5_000;
  const clock = options.clock ?? Date.now;
  const { rows: counted } = await db.asServer((tx) =>
    tx.query<{ embedder: string; n: number }>('select embedder, count(*)::int as n from memories where embedder <> $1 group by embedder order by embedder', [embedder.name]),
  );
  const total = counted.reduce((sum, row) => sum + row.n, 0);
  const result: ReembedResult = { total, moved: 0, skipped: 0 };
  if (total === 0) return result;
  const started = clock();
  options.log({ event: 'memory.reembed.started', to: embedder.name, from: Object.fromEntries(counted.map((row) => [row.embedder, row.n])), memories: total });
  let lastSaid = started;
  let after = '0';
  for (;;) {
    if (options.signal?.aborted) {
      options.log({ event: 'memory.reembed.stopped', to: embedder.name, ...result });
      return result;
    }
    const { rows } = await db.asServer((tx) =>
      tx.query<Stale>('select id, seq::text as seq, text, embedder from memories where embedder <> $1 and seq > $2::bigint order by seq limit $3', [
        embedder.name,
        after,
        batch,
      ]),
    );
    if (rows.length === 0) break;
    after = rows[rows.length - 1]?.seq ?? after;
    // Embedded before the transaction opens: an embedder may be a network call.
    const moves: { id: string; old: string; vector: string }[] = [];
    for (const row of rows) {
      let embedding: Float32Array;
      try {
        embedding = await embedder.embed(row.text, options.signal);
      } catch (error) {
        // Told to stop while embedding: nothing of this batch has moved yet.
        if (options.signal?.aborted) break;
        throw error;
      }
      const vector = vectorLiteral(embedding, widthOf(embedder));
      if (vector === null) result.skipped += 1;
      else moves.push({ id: row.id, old: row.embedder, vector });
    }
    if (options.signal?.aborted) continue;
    if (moves.length > 0) {
      // Only a row still in the space it was read in moves: one forgotten or moved meanwhile is left be.
      const { rows: moved } = await db.asServer((tx) =>
        tx.query<{ id: string }>(
          `update memories m set embedder = $1, embedding = given.vector::vector
             from unnest($2::uuid[], $3::text[], $4::text[]) as given (id, old, vector)
            where m.id = given.id and m.embedder = given.old
           returning m.id`,
          [embedder.name, moves.map((m) => m.id), moves.map((m) => m.old), moves.map((m) => m.vector)],
        ),
      );
      result.moved += moved.length;
    }
    if (clock() - lastSaid >= every) {
      lastSaid = clock();
      options.log({ event: 'memory.reembed.progress', to: embedder.name, done: result.moved + result.skipped, of: total });
    }
  }
  options.log({ event: 'memory.reembed.finished', to: embedder.name, ...result, ms: clock() - started });
  return result;
}
