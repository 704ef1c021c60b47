/**
 * What a person told a bot with `memory: person+recall`, kept with a 384-wide vector of it. Only the
 * server writes (`rememberLine` under `asServer`: no policy lets a person insert or update); a person
 * lists and forgets their own under `asPerson`. A vector is only ever compared with vectors of the
 * embedder that made it.
 */
import type { Queryable } from './database';
import { isUuid, onlyRow } from './rows';

/** Width of every stored vector, fixed by the schema (`vector(384)`). */
export const MEMORY_WIDTH = 384;

export interface Memory {
  id: string;
  bot: string;
  text: string;
  /** The embedder that made its vector, e.g. `hash-v1`. */
  embedder: string;
  createdAt: Date;
}

export interface Recalled extends Memory {
  /** Cosine distance to the query, 0 (same direction) to 2 (opposite). */
  distance: number;
}

export interface RecallQuery {
  person: string;
  bot: string;
  /** Only memories this embedder made are compared. */
  embedder: string;
  embedding: Float32Array | readonly number[];
  /** Most memories to answer, 1 to `RECALL_MAX_LIMIT`. */
  limit: number;
  /**
   * The floor: a memory further than this cosine distance is not recalled, however near it is
   * compared with the rest. A nearest neighbour always exists; an unrelated one is worse than none.
   */
  maxDistance: number;
}

/** Most memories one recall may answer. */
export const RECALL_MAX_LIMIT = 100;

/** Candidates the HNSW index keeps while searching (`hnsw.ef_search`); at least RECALL_MAX_LIMIT. */
const RECALL_EF_SEARCH = 200;

/**
 * Keeps what a person said to a bot. Server only. Answers null for a zero vector (nothing in the text
 * to embed): it could never be recalled, since its distance to anything is undefined.
 */
export async function rememberLine(
  tx: Queryable,
  memory: { person: string; bot: string; text: string; embedder: string; embedding: Float32Array | readonly number[] },
): Promise<Memory | null> {
  const vector = vectorLiteral(memory.embedding);
  if (vector === null) return null;
  const { rows } = await tx.query<MemoryRow>(
    `insert into memories (person, bot, text, embedder, embedding) values ($1, $2, $3, $4, $5::vector)
     returning id, bot, text, embedder, created_at`,
    [memory.person, memory.bot, memory.text, memory.embedder, vector],
  );
  return fromRow(onlyRow(rows, 'Remembering a line'));
}

/**
 * The person's memories for that bot and embedder nearest to `embedding`, nearest first: at most
 * `limit`, none further than `maxDistance`. The nearest `limit` are found first and the floor applied
 * to them, so a floor that excludes everything costs no more than a recall that keeps everything.
 */
export async function recall(tx: Queryable, query: RecallQuery): Promise<Recalled[]> {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > RECALL_MAX_LIMIT) {
    throw new RangeError(`recall limit is ${query.limit}; give a whole number from 1 to ${RECALL_MAX_LIMIT}.`);
  }
  if (!(query.maxDistance >= 0 && query.maxDistance <= 2)) {
    throw new RangeError(`recall maxDistance is ${query.maxDistance}; give a cosine distance from 0 to 2.`);
  }
  const vector = vectorLiteral(query.embedding);
  if (vector === null) return [];
  // For this transaction only, in one statement: the approximate index yields candidates before the
  // person/bot/embedder filter, and the iterative scan keeps fetching until `limit` rows pass it,
  // instead of answering too few; and a wider candidate list than pgvector's default 40, at which a
  // person with 10,000 memories got only 68–75 % of their true nearest ones back (npm run bench -- recall).
  await tx.query("select set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', $1, true)", [String(RECALL_EF_SEARCH)]);
  const { rows } = await tx.query<MemoryRow & { distance: number }>(
    `with nearest as materialized (
       select id, bot, text, embedder, created_at, (embedding <=> $4::vector)::float8 as distance
         from memories
        where person = $1 and bot = $2 and embedder = $3
        order by embedding <=> $4::vector
        limit $5
     )
     select * from nearest where distance <= $6 order by distance`,
    [query.person, query.bot, query.embedder, vector, query.limit, query.maxDistance],
  );
  return rows.map((row) => ({ ...fromRow(row), distance: row.distance }));
}

/** The person's memories for one bot, newest first. Run under `asPerson`. */
export async function listMemories(tx: Queryable, filter: { bot: string }): Promise<Memory[]> {
  const { rows } = await tx.query<MemoryRow>('select id, bot, text, embedder, created_at from memories where bot = $1 order by seq desc', [filter.bot]);
  return rows.map(fromRow);
}

/** Forgets one memory of the person's; false when there is no such memory of theirs. Run under `asPerson`. */
export async function forgetMemory(tx: Queryable, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rows } = await tx.query<{ person: string; bot: string; text: string }>('delete from memories where id = $1 returning person, bot, text', [id]);
  const gone = rows[0];
  if (gone === undefined) return false;
  // The words go, and a digest of them stays, so the same words in the person's earlier questions
  // are not handed to the bot either (see `pastQuestions`).
  await tx.query("insert into forgotten (person, bot, digest) values ($1, $2, sha256(convert_to($3, 'UTF8'))) on conflict do nothing", [gone.person, gone.bot, gone.text]);
  return true;
}

interface MemoryRow {
  id: string;
  bot: string;
  text: string;
  embedder: string;
  created_at: Date;
}

function fromRow(row: MemoryRow): Memory {
  return { id: row.id, bot: row.bot, text: row.text, embedder: row.embedder, createdAt: row.created_at };
}

/**
 * pgvector's text form, `[0.1,0.2,…]`; null for a zero vector. A wrong width or a value that is not a
 * finite number is a caller's mistake and throws before any query.
 */
function vectorLiteral(embedding: Float32Array | readonly number[]): string | null {
  if (embedding.length !== MEMORY_WIDTH) {
    throw new RangeError(`An embedding is ${embedding.length} wide; memories hold ${MEMORY_WIDTH}-wide vectors.`);
  }
  let zero = true;
  for (const value of embedding) {
    if (!Number.isFinite(value)) throw new RangeError('An embedding holds a value that is not a finite number.');
    if (value !== 0) zero = false;
  }
  return zero ? null : `[${Array.from(embedding).join(',')}]`;
}
