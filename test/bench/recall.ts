/**
 * Recall over a full memories table: how long does the nearest-neighbour read a `person+recall` bot
 * makes before every answer take when the table holds 100 000 memories?
 *
 * The table: 1 000 ordinary persons × 3 bots × 30 remarks each, and one heavy person with 10 000
 * remarks to the demo bot — generated varied sentences (test/helpers/benchRemarks.ts) with the
 * vectors of the embedder the server picks by default (`chooseEmbedder`, CONFAB_EMBEDDER unset: the
 * 100-wide `words` embedder where its word vectors load), in an in-memory PGlite with the real
 * migrations. Bulk loading drops the hnsw indexes, inserts 1 000 rows per statement (one `unnest` of
 * parameter arrays) and builds them again with the migration's own definitions (the same indexes;
 * built row by row as memories arrive it took some four times as long here), then ANALYZE, as a
 * long-running database would have.
 *
 * Timed: recall as the person (`asPerson`, under row level security) exactly as the memory context
 * makes it, from the database (`recaller`: every memory
 * compared for a person with few, the index for one with thousands, once a recall has counted them;
 * limit RECALL_LIMIT, the embedder's width and floor), for
 * questions and remarks from the same vocabulary, over three kinds of person: the heavy one, ordinary
 * ones (random person and bot), and new ones with no memories at all (every person's first turn).
 * The embedding is timed apart, and so is an empty transaction (`select 1` under `asServer`),
 * interleaved with the recalls: what PGlite costs before any memory is read. The plans are read with
 * EXPLAIN ANALYZE of the very statements sent, and the heavy person's answers are compared
 * with an exact search (index scans off): the share of the exact nearest the index found too,
 * counting one at the same distance as found (the remarks repeat themselves, as people do).
 */
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../server/db/database';
import type { Database } from '../../server/db/database';
import type { Queryable } from '../../server/db/queryable';
import { resolve } from 'node:path';
import { recall, registerEmbedder, vectorLiteral } from '../../server/db/memories';
import type { RecallQuery, Recalled } from '../../server/db/memories';
import { chooseEmbedder } from '../../server/memory/chooseEmbedder';
import { RECALL_LIMIT, recallFloorOf, recaller } from '../../server/memory/context';
import { widthOf } from '../../server/memory/embed';
import type { Embedder } from '../../server/memory/embed';
import { question, remark } from '../helpers/benchRemarks';
import { seededRandom } from '../helpers/random';
import type { Random } from '../helpers/random';
import { roundMs, spread } from '../helpers/benchTimings';

const SEED = 0x5eed_4ec1;
const BOTS = ['demo', 'coach', 'tutor'] as const;
const PER_PERSON_BOT = 30;
const HEAVY = 'person-heavy';

/** How full the table is: the ordinary persons, and the heavy person's remarks. */
export interface RecallScale {
  persons: number;
  heavyMemories: number;
}

/** 100 000 memories: the table. */
export const FULL_SCALE: Readonly<RecallScale> = Object.freeze({ persons: 1_000, heavyMemories: 10_000 });

const memoriesOf = (scale: RecallScale) => scale.persons * BOTS.length * PER_PERSON_BOT + scale.heavyMemories;
const BATCH_ROWS = 1_000;
/** Queries per kind of person; 700 in all. */
const QUERIES = { heavy: 250, ordinary: 350, fresh: 100 } as const;
/** Untimed queries first, so the figures are not the first compile's. */
const WARM_UP = 30;
/** Heavy-person queries checked against an exact search. */
const EXACT_CHECKS = 100;
const TARGET_P95_MS = 20;
/** Migration 006's indexes, one per width, dropped for the bulk load and rebuilt after it. */
const INDEXES = {
  memories_nearest_384: 'create index memories_nearest_384 on memories using hnsw ((embedding::vector(384)) vector_cosine_ops) where dimensions = 384',
  memories_nearest_100: 'create index memories_nearest_100 on memories using hnsw ((embedding::vector(100)) vector_cosine_ops) where dimensions = 100',
} as const;

/** pgvector's text form of the embedder's own width, as the table keeps it. */
function vectorText(v: Float32Array, width: number): string {
  const text = vectorLiteral(v, width);
  if (text === null) throw new Error('A generated remark had nothing to embed.');
  return text;
}

interface Row {
  person: string;
  bot: string;
  text: string;
}

function* rows(random: Random, scale: RecallScale): Generator<Row> {
  for (let p = 0; p < scale.persons; p++) {
    for (const bot of BOTS) {
      for (let i = 0; i < PER_PERSON_BOT; i++) yield { person: personName(p), bot, text: remark(random) };
    }
  }
  for (let i = 0; i < scale.heavyMemories; i++) yield { person: HEAVY, bot: 'demo', text: remark(random) };
}

const personName = (i: number) => `person-${String(i).padStart(4, '0')}`;

async function insertBatch(db: Database, embedder: Embedder, batch: readonly Row[]): Promise<void> {
  const vectors: string[] = [];
  for (const row of batch) vectors.push(vectorText(await embedder.embed(row.text), widthOf(embedder)));
  await db.asServer((tx) =>
    tx.query(
      `insert into memories (person, bot, text, embedder, embedding)
       select person, bot, text, $4, embedding::vector from unnest($1::text[], $2::text[], $3::text[], $5::text[]) as given (person, bot, text, embedding)`,
      [batch.map((r) => r.person), batch.map((r) => r.bot), batch.map((r) => r.text), embedder.name, vectors],
    ),
  );
}

interface Load {
  insertMs: number;
  indexMs: number;
  analyzeMs: number;
}

async function load(db: Database, embedder: Embedder, random: Random, scale: RecallScale): Promise<Load> {
  await db.asServer(async (tx) => {
    await registerEmbedder(tx, { name: embedder.name, dimensions: widthOf(embedder) });
    for (const index of Object.keys(INDEXES)) await tx.query(`drop index ${index}`);
  });
  let started = performance.now();
  let batch: Row[] = [];
  for (const row of rows(random, scale)) {
    batch.push(row);
    if (batch.length === BATCH_ROWS) {
      await insertBatch(db, embedder, batch);
      batch = [];
    }
  }
  if (batch.length > 0) await insertBatch(db, embedder, batch);
  const insertMs = performance.now() - started;
  started = performance.now();
  await db.asServer(async (tx) => {
    // The graph of 100 000 384-wide vectors is some 200 MB; built in memory it takes a fraction of the time.
    await tx.query("select set_config('maintenance_work_mem', '512MB', true)");
    for (const sql of Object.values(INDEXES)) await tx.query(sql);
  });
  const indexMs = performance.now() - started;
  started = performance.now();
  await db.asServer((tx) => tx.query('analyze memories'));
  return { insertMs, indexMs, analyzeMs: performance.now() - started };
}

type Kind = keyof typeof QUERIES;

function queryFor(embedder: Embedder, kind: Kind, random: Random, embedding: Float32Array, persons: number): RecallQuery {
  const base = { embedder: embedder.name, dimensions: widthOf(embedder), embedding, limit: RECALL_LIMIT, maxDistance: recallFloorOf(embedder) };
  if (kind === 'heavy') return { ...base, person: HEAVY, bot: 'demo' };
  const bot = BOTS[Math.floor(random() * BOTS.length)] ?? 'demo';
  if (kind === 'fresh') return { ...base, person: `person-new-${Math.floor(random() * 1e9)}`, bot };
  return { ...base, person: personName(Math.floor(random() * persons)), bot };
}

/** Half questions, half remarks like the ones stored (the person saying something again). */
const textFor = (random: Random) => (random() < 0.5 ? question(random) : remark(random));

/** `tx`, with every statement but settings run first as EXPLAIN ANALYZE, its plan kept. */
function explaining(tx: Queryable, plans: string[][]): Queryable {
  return {
    async query(sql, params) {
      if (!/^\s*(select set_config|set )/.test(sql)) {
        const { rows: lines } = await tx.query<{ 'QUERY PLAN': string }>(`explain (analyze, costs off) ${sql}`, params);
        plans.push(lines.map((line) => line['QUERY PLAN']));
      }
      return tx.query(sql, params);
    },
  };
}

/** The plan's scan, sort and limit lines and its execution time; the sort key, a whole vector, left out. */
function planSummary(plan: readonly string[]): string[] {
  return plan.map((line) => line.trim()).filter((line) => /Scan|Sort(?! Key)|Limit|Execution Time/.test(line));
}

/** Recall as the exact search would answer it: no index scans, so every row of the person is compared. */
async function exactRecall(db: Database, query: RecallQuery): Promise<Recalled[]> {
  return db.asServer(async (tx) => {
    await tx.query("select set_config('enable_indexscan', 'off', true)");
    await tx.query("select set_config('enable_bitmapscan', 'off', true)");
    return recall(tx, query);
  });
}

export async function run(): Promise<{ bench: 'recall'; memories: number; p95Ms: number; [figure: string]: unknown }> {
  const db = await openDatabase({ dataDir: 'memory://' });
  try {
    return { bench: 'recall', ...(await recallOver(db, FULL_SCALE)), engine: 'PGlite in memory (memory://), pgvector hnsw, one connection', seed: SEED };
  } finally {
    await db.close();
  }
}

/**
 * The table loaded at `scale` into `db` (freshly migrated, no memories yet), then recall timed over it;
 * `npm run bench -- scale-out` measures it on Postgres beside PGlite this way.
 */
export async function recallOver(db: Database, scale: RecallScale): Promise<{ memories: number; p95Ms: number; [figure: string]: unknown }> {
  const random = seededRandom(SEED);
  const { embedder } = await chooseEmbedder({ kind: 'auto' }, { dataDir: resolve(process.env.CONFAB_DATA_DIR || '.data'), log: () => undefined });
  const loaded = await load(db, embedder, random, scale);
  const { rows: counted } = await db.asServer((tx) => tx.query<{ n: number }>('select count(*)::int as n from memories'));
  const memories = counted[0]?.n ?? 0;
  if (memories !== memoriesOf(scale)) throw new Error(`The load left ${memories} memories, not ${memoriesOf(scale)}.`);

  // As the memory context recalls: exactly while a person has few memories, through the index past that.
  const recallFor = recaller();
  for (let i = 0; i < WARM_UP; i++) {
    const kind: Kind = i % 3 === 0 ? 'heavy' : i % 3 === 1 ? 'ordinary' : 'fresh';
    const embedding = await embedder.embed(textFor(random));
    await recallFor(db, queryFor(embedder, kind, random, embedding, scale.persons));
  }

  // Kinds interleaved, so a slow stretch of the machine falls on all of them alike.
  const order: Kind[] = [];
  for (const [kind, n] of Object.entries(QUERIES) as [Kind, number][]) for (let i = 0; i < n; i++) order.push(kind);
  order.sort(() => random() - 0.5);
  const timings: Record<Kind, number[]> = { heavy: [], ordinary: [], fresh: [] };
  const found: Record<Kind, number[]> = { heavy: [], ordinary: [], fresh: [] };
  const embedMs: number[] = [];
  const emptyMs: number[] = [];
  const heavyQueries: { query: RecallQuery; found: Recalled[] }[] = [];
  for (const kind of order) {
    const text = textFor(random);
    let started = performance.now();
    const embedding = await embedder.embed(text);
    embedMs.push(performance.now() - started);
    const query = queryFor(embedder, kind, random, embedding, scale.persons);
    started = performance.now();
    const recalled = await recallFor(db, query);
    timings[kind].push(performance.now() - started);
    started = performance.now();
    await db.asServer((tx) => tx.query('select 1'));
    emptyMs.push(performance.now() - started);
    found[kind].push(recalled.length);
    if (kind === 'heavy' && heavyQueries.length < EXACT_CHECKS) heavyQueries.push({ query, found: recalled });
  }

  // How many of the exact search's answers the index found too: the exact k-th counts as found when
  // the index answered at least k memories as near, so a tie at the same distance counts.
  let exactFound = 0;
  let exactTotal = 0;
  for (const { query, found: approximate } of heavyQueries) {
    const exact = await exactRecall(db, query);
    exactTotal += exact.length;
    exactFound += exact.filter((m, k) => approximate.filter((a) => a.distance <= m.distance + 1e-6).length > k).length;
  }

  const plans: Record<Kind, string[]> = { heavy: [], ordinary: [], fresh: [] };
  for (const kind of Object.keys(plans) as Kind[]) {
    const kept: string[][] = [];
    const embedding = await embedder.embed(question(random));
    const explained = {
      asPerson: <T>(person: string, fn: (tx: Queryable) => Promise<T>) => db.asPerson(person, (tx) => fn(explaining(tx, kept))),
    };
    await recallFor(explained, queryFor(embedder, kind, random, embedding, scale.persons));
    plans[kind] = planSummary(kept.flat());
  }
  const hnswUsed = Object.fromEntries(Object.entries(plans).map(([kind, lines]) => [kind, lines.some((l) => l.includes(`memories_nearest_${widthOf(embedder)}`))]));

  const all = [...timings.heavy, ...timings.ordinary, ...timings.fresh];
  const overall = spread(all);
  const mean = (values: readonly number[]) => roundMs(values.reduce((s, v) => s + v, 0) / Math.max(1, values.length));
  return {
    memories,
    p95Ms: overall.p95,
    p50Ms: overall.p50,
    maxMs: overall.max,
    queries: all.length,
    targetP95Ms: TARGET_P95_MS,
    embedder: embedder.name,
    dimensions: widthOf(embedder),
    limit: RECALL_LIMIT,
    maxDistance: recallFloorOf(embedder),
    byPerson: {
      heavy: { memories: scale.heavyMemories, ...spread(timings.heavy), recalledMean: mean(found.heavy) },
      ordinary: { memoriesPerBot: PER_PERSON_BOT, ...spread(timings.ordinary), recalledMean: mean(found.ordinary) },
      fresh: { memories: 0, ...spread(timings.fresh), recalledMean: mean(found.fresh) },
    },
    embedMs: spread(embedMs),
    emptyTransactionMs: spread(emptyMs),
    hnswUsed,
    plans,
    heavyAgreementWithExact: exactTotal === 0 ? null : roundMs(exactFound / exactTotal, 3),
    load: {
      persons: scale.persons + 1,
      bots: BOTS.length,
      batchRows: BATCH_ROWS,
      insertMs: Math.round(loaded.insertMs),
      rowsPerSecond: Math.round(memories / (loaded.insertMs / 1000)),
      hnswBuildMs: Math.round(loaded.indexMs),
      analyzeMs: Math.round(loaded.analyzeMs),
    },
  };
}
