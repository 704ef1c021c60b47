/**
 * What a person told a bot with `memory: person+recall`, kept with a vector of it. Only the server
 * writes (`rememberLine` under `asServer`: no policy lets a person insert or update); a person lists
 * and forgets their own under `asPerson`. A vector is only ever compared with vectors of the embedder
 * that made it: each memory keeps its embedder's name and width (migration 006), and recall filters
 * on both.
 */
import { forgetPhrases } from './forgotten';
import type { Queryable } from './queryable';
import { isUuid, iso, onlyRow } from './rows';

/**
 * Width of every vector handed to this module: an embedder narrower than this fills the leading
 * numbers and leaves the rest 0, and the table keeps only its registered width (migration 006).
 */
export const MEMORY_WIDTH = 384;

export interface Memory {
  id: string;
  bot: string;
  text: string;
  /** The embedder that made its vector, e.g. `hash-v1`. */
  embedder: string;
  /** How many numbers its vector holds: its embedder's width. */
  dimensions: number;
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
  /** The embedder's registered width; looked up in `embedders` when not given. */
  dimensions?: number;
  /** MEMORY_WIDTH wide, or exactly `dimensions` wide. */
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
const RECALL_MAX_LIMIT = 100;

/** Candidates the HNSW index keeps while searching (`hnsw.ef_search`); at least RECALL_MAX_LIMIT. */
const RECALL_EF_SEARCH = 200;

/**
 * How a recall searches, set for its own transaction (never for the connection: behind a
 * transaction pooler a connection is shared by every instance, and a setting made on one is not
 * on the next): the approximate index yields candidates before the person/bot/embedder filter, so
 * the iterative scan keeps fetching until `limit` rows pass it instead of answering too few; a
 * wider candidate list than pgvector's default 40 (a person with 10,000 memories got only 68–75 %
 * of their true nearest ones back at 40: npm run bench -- recall); and each statement planned for
 * its own values. One statement, so it costs a round trip and no more.
 */
const RECALL_SETTINGS_SQL = `select set_config('plan_cache_mode', 'force_custom_plan', true), set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', '${String(RECALL_EF_SEARCH)}', true)`;

/** An embedder's name is registered with another width than the one given. */
export class EmbedderWidthError extends Error {
  override readonly name = 'EmbedderWidthError';
}

/**
 * Records that `name` makes vectors `dimensions` wide, so memories of it may be kept. Server only;
 * idempotent. A name already registered with another width is refused: one name is one space.
 */
export async function registerEmbedder(tx: Queryable, embedder: { name: string; dimensions: number }): Promise<void> {
  if (!Number.isInteger(embedder.dimensions) || embedder.dimensions < 1 || embedder.dimensions > MEMORY_WIDTH) {
    throw new RangeError(`An embedder is ${embedder.dimensions} wide; give a whole number from 1 to ${MEMORY_WIDTH}.`);
  }
  await tx.query('insert into embedders (name, dimensions) values ($1, $2) on conflict (name) do nothing', [embedder.name, embedder.dimensions]);
  const width = await registeredWidth(tx, embedder.name);
  if (width !== embedder.dimensions) {
    throw new EmbedderWidthError(
      `The embedder ${embedder.name} is registered as ${width} wide, not ${embedder.dimensions}; an embedder whose vectors change needs a new name.`,
    );
  }
}

/** The registered width of `name`, or undefined when it is not registered. */
async function registeredWidth(tx: Queryable, name: string): Promise<number | undefined> {
  const { rows } = await tx.query<{ dimensions: number }>('select dimensions from embedders where name = $1', [name]);
  return rows[0]?.dimensions;
}

/**
 * Keeps what a person said to a bot. Server only. Answers null for a zero vector (nothing in the text
 * to embed): it could never be recalled, since its distance to anything is undefined. The embedder
 * must be registered (`registerEmbedder`); the table keeps its registered width.
 */
export async function rememberLine(
  tx: Queryable,
  memory: { person: string; bot: string; text: string; embedder: string; embedding: Float32Array | readonly number[] },
): Promise<Memory | null> {
  const vector = vectorLiteral(memory.embedding);
  if (vector === null) return null;
  const { rows } = await tx.query<MemoryRow>(
    `insert into memories (person, bot, text, embedder, embedding) values ($1, $2, $3, $4, $5::vector)
     returning id, bot, text, embedder, dimensions, created_at`,
    [memory.person, memory.bot, memory.text, memory.embedder, vector],
  );
  return fromRow(onlyRow(rows, 'Remembering a line'));
}

/**
 * The person's memories for that bot and embedder nearest to `embedding`, nearest first: at most
 * `limit`, none further than `maxDistance`. The nearest `limit` are found first and the floor applied
 * to them, so a floor that excludes everything costs no more than a recall that keeps everything.
 * An embedder that is not registered has no memories: the answer is empty.
 */
export async function recall(tx: Queryable, query: RecallQuery): Promise<Recalled[]> {
  const checked = await checkedRecall(tx, query);
  if (checked === null) return [];
  const { width, vector } = checked;
  // The recall settings (`RECALL_SETTINGS_SQL`) let the approximate index yield candidates before
  // the person/bot/embedder filter, and keep scanning until `limit` rows pass it.
  // The width is written into the statement, not passed: only a literal `dimensions = N` and
  // `vector(N)` let the planner use that width's partial index (migration 006). It is a checked
  // whole number, never text from a request.
  // The best plan depends on the person: the vector index for somebody with thousands of memories,
  // their own rows sorted for somebody with a few. A statement kept prepared (PGlite,
  // pgliteStatements.ts) would otherwise settle on one plan for everybody after five calls — the
  // owner index, which made a recall over 10,000 memories 3.3 times slower (npm run bench --
  // recall) — so this transaction plans each statement for its own values from here on.
  await tx.query(RECALL_SETTINGS_SQL);
  const { rows } = await tx.query<MemoryRow & { distance: number }>(
    `with nearest as materialized (
       select id, bot, text, embedder, dimensions, created_at, (embedding <=> $4::vector(${width}))::float8 as distance
         from memories
        where person = $1 and bot = $2 and embedder = $3 and dimensions = ${width}
        order by embedding::vector(${width}) <=> $4::vector(${width})
        limit $5
     )
     select * from nearest where distance <= $6 order by distance`,
    [query.person, query.bot, query.embedder, vector, query.limit, query.maxDistance],
  );
  return rows.map((row) => ({ ...fromRow(row), distance: row.distance }));
}

/**
 * `recall` by comparing the query with every one of the person's memories for that bot and embedder:
 * exact, and for somebody with a few hundred memories faster than walking the index, since the one
 * plan it has (their own rows, sorted by distance) suits everybody and is made once, not per call.
 * Also answers how many memories were compared, so a caller can tell when the index would be quicker.
 */
export async function recallExactly(tx: Queryable, query: RecallQuery): Promise<{ recalled: Recalled[]; compared: number }> {
  const checked = await checkedRecall(tx, query);
  if (checked === null) return { recalled: [], compared: 0 };
  const { width, vector } = checked;
  // The person's rows are read through their own index and sorted, each distance computed once; the
  // floor is applied to the nearest `limit`, as `recall` applies it. Every row kept is `width` wide
  // (the `dimensions` filter), so a row's vector is compared as stored, not cast and copied first.
  const { rows } = await tx.query<MemoryRow & { distance: number; compared: string }>(
    `with mine as materialized (
       select id, bot, text, embedder, dimensions, created_at, (embedding <=> $4::vector(${width}))::float8 as distance
         from memories
        where person = $1 and bot = $2 and embedder = $3 and dimensions = ${width}
     )
     select nearest.*, (select count(*) from mine) as compared
       from (select * from mine order by distance limit $5) nearest
      order by distance`,
    [query.person, query.bot, query.embedder, vector, query.limit],
  );
  const recalled = rows.filter((row) => row.distance <= query.maxDistance).map((row) => ({ ...fromRow(row), distance: row.distance }));
  return { recalled, compared: Number(rows[0]?.compared ?? 0) };
}

/** The person's memories for one bot, newest first. Run under `asPerson`. */
export async function listMemories(tx: Queryable, filter: { bot: string }): Promise<Memory[]> {
  const { rows } = await tx.query<MemoryRow>('select id, bot, text, embedder, dimensions, created_at from memories where bot = $1 order by seq desc', [filter.bot]);
  return rows.map(fromRow);
}

/**
 * Forgets one memory of the person's; false when there is no such memory of theirs. Run under
 * `asPerson`. What was said that mentions it (or `about`, the words `memory.forget` was asked to
 * forget) is no longer handed to the bot either (`forgetPhrases`).
 */
export async function forgetMemory(tx: Queryable, id: string, about?: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rows } = await tx.query<{ person: string; bot: string; text: string }>('delete from memories where id = $1 returning person, bot, text', [id]);
  const gone = rows[0];
  if (gone === undefined) return false;
  // The words go, and a digest of them stays, so the same words in the person's earlier questions
  // are not handed to the bot either (see `pastQuestions`).
  await tx.query("insert into forgotten (person, bot, digest) values ($1, $2, sha256(convert_to($3, 'UTF8'))) on conflict do nothing", [gone.person, gone.bot, gone.text]);
  await forgetPhrases(tx, { person: gone.person, bot: gone.bot, texts: about === undefined ? [gone.text] : [gone.text, about] });
  return true;
}

/** How many memories the turn `turn` (its key) has forgotten so far. Run under `asPerson`. */
export async function forgottenInTurn(tx: Queryable, turn: string): Promise<number> {
  const { rows } = await tx.query<{ n: number }>('select count(*)::int as n from turn_forgets where turn_key = $1', [turn]);
  return rows[0]?.n ?? 0;
}

/** Records that the turn `turn` forgot `memory` at `nowMs`; swept with the turn's steps. Run under `asPerson`. */
export async function keepForgottenInTurn(tx: Queryable, forgot: { person: string; turn: string; memory: string; nowMs: number }): Promise<void> {
  await tx.query('insert into turn_forgets (person, turn_key, memory, created_at) values ($1, $2, $3, $4) on conflict do nothing', [
    forgot.person,
    forgot.turn,
    forgot.memory,
    iso(forgot.nowMs),
  ]);
}

/**
 * The query's width and vector literal once its figures are checked; null when there is nothing to
 * compare (an embedder never registered, or a zero vector).
 */
async function checkedRecall(tx: Queryable, query: RecallQuery): Promise<{ width: number; vector: string } | null> {
  if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > RECALL_MAX_LIMIT) {
    throw new RangeError(`recall limit is ${query.limit}; give a whole number from 1 to ${RECALL_MAX_LIMIT}.`);
  }
  if (!(query.maxDistance >= 0 && query.maxDistance <= 2)) {
    throw new RangeError(`recall maxDistance is ${query.maxDistance}; give a cosine distance from 0 to 2.`);
  }
  const width = query.dimensions ?? (await registeredWidth(tx, query.embedder));
  if (width === undefined) return null;
  if (!Number.isInteger(width) || width < 1 || width > MEMORY_WIDTH) throw new RangeError(`recall dimensions is ${width}; give a whole number from 1 to ${MEMORY_WIDTH}.`);
  const vector = vectorLiteral(query.embedding, width);
  return vector === null ? null : { width, vector };
}

interface MemoryRow {
  id: string;
  bot: string;
  text: string;
  embedder: string;
  dimensions: number;
  created_at: Date;
}

function fromRow(row: MemoryRow): Memory {
  return { id: row.id, bot: row.bot, text: row.text, embedder: row.embedder, dimensions: row.dimensions, createdAt: row.created_at };
}

/**
 * pgvector's text form, `[0.1,0.2,…]`, of the leading `width` numbers (all of them by default); null
 * for a zero vector. A vector must be MEMORY_WIDTH or exactly `width` wide, with nothing but zeros
 * past `width`; anything else, or a value that is not a finite number, is a caller's mistake and
 * throws before any query.
 */
export function vectorLiteral(embedding: Float32Array | readonly number[], width = MEMORY_WIDTH): string | null {
  return checkedEmbedding(embedding, width) ? `[${Array.from(embedding.slice(0, width)).join(',')}]` : null;
}

/**
 * Whether `embedding` can be compared in a `width`-wide space: false for a zero vector (its distance
 * to anything is undefined); throws, as `vectorLiteral` does, for one no memory could be compared with.
 */
function checkedEmbedding(embedding: Float32Array | readonly number[], width = MEMORY_WIDTH): boolean {
  if (embedding.length !== MEMORY_WIDTH && embedding.length !== width) {
    throw new RangeError(`An embedding is ${embedding.length} wide; memories take ${MEMORY_WIDTH}-wide vectors${width === MEMORY_WIDTH ? '' : ` or ${width}-wide ones`}.`);
  }
  let zero = true;
  for (let i = 0; i < embedding.length; i++) {
    const value = embedding[i] ?? 0;
    if (!Number.isFinite(value)) throw new RangeError('An embedding holds a value that is not a finite number.');
    if (i >= width) {
      if (value !== 0) throw new RangeError(`An embedding of a ${width}-wide space has a value past its ${width} dimensions.`);
    } else if (value !== 0) zero = false;
  }
  return !zero;
}
