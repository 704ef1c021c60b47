import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import type { Queryable } from '../../../server/db/queryable';
import { rememberAsPerson } from '../../../server/apps/memory/remembered';
import { EmbedderWidthError, forgetMemory, listMemories, recall, recallExactly, registerEmbedder, rememberLine } from '../../../server/db/memories';
import { EXACT_RECALL_MAX, recaller } from '../../../server/memory/context';
import type { RecallQuery } from '../../../server/db/memories';
import { seededRandom } from '../../helpers/random';
import { axis, DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody, towards } from './fixtures';

describe('memories', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
    await db.asServer(async (tx) => {
      await registerEmbedder(tx, { name: 'endpoint', dimensions: 384 });
      await registerEmbedder(tx, { name: 'words', dimensions: 100 });
    });
  }, OPENING_MS);
  afterAll(() => db.close());

  const remember = (person: string, text: string, embedding: Float32Array, options: { bot?: string; embedder?: string } = {}) =>
    db.asServer((tx) => rememberLine(tx, { person, bot: options.bot ?? 'demo', text, embedder: options.embedder ?? 'hash-v1', embedding }));
  const recallFor = (person: string, query: Partial<RecallQuery> = {}) =>
    db.asServer((tx) => recall(tx, { person, bot: 'demo', embedder: 'hash-v1', embedding: axis(0), limit: 5, maxDistance: 0.5, ...query }));

  it('recalls the nearest of the person’s memories for that bot and embedder, nearest first', async () => {
    const ana = somebody();
    const bob = somebody();
    await remember(ana, 'far', towards(0, 1, Math.PI / 3)); // distance 0.5
    await remember(ana, 'near', towards(0, 1, 0.2));
    await remember(ana, 'exact', axis(0));
    await remember(ana, 'for another bot', axis(0), { bot: 'coach' });
    await remember(ana, 'by another embedder', axis(0), { embedder: 'endpoint' });
    await remember(bob, "bob's", axis(0));
    const recalled = await recallFor(ana);
    expect(recalled.map((m) => m.text)).toEqual(['exact', 'near', 'far']);
    expect(recalled[0]?.distance).toBeCloseTo(0, 6);
    expect(recalled[1]?.distance).toBeCloseTo(1 - Math.cos(0.2), 6);
  });

  it('recalls nothing past the distance floor, however near it is compared with the rest', async () => {
    const ana = somebody();
    await remember(ana, 'unrelated', axis(7));
    await remember(ana, 'slightly related', towards(0, 1, 1.2)); // distance ≈ 0.64
    expect(await recallFor(ana, { maxDistance: 0.5 })).toEqual([]);
    expect((await recallFor(ana, { maxDistance: 0.7 })).map((m) => m.text)).toEqual(['slightly related']);
  });

  it('answers at most the limit', async () => {
    const ana = somebody();
    for (let i = 0; i < 8; i++) await remember(ana, `memory ${i}`, towards(0, 1, i * 0.05));
    expect((await recallFor(ana, { limit: 3 })).map((m) => m.text)).toEqual(['memory 0', 'memory 1', 'memory 2']);
  });

  it('recalls the person’s own memories from a haystack of other people’s', async () => {
    const ana = somebody();
    await db.asServer(async (tx) => {
      for (let i = 0; i < 300; i++) {
        await rememberLine(tx, { person: somebody('crowd'), bot: 'demo', text: 'crowd', embedder: 'hash-v1', embedding: towards(0, 1 + (i % 50), 0.01 * (i % 7)) });
      }
    });
    await remember(ana, 'mine', towards(0, 3, 0.3));
    expect((await recallFor(ana)).map((m) => m.text)).toEqual(['mine']);
  });

  it('searches with the iterative scan and a wide candidate list in the recall’s own transaction, never leaving them on the connection', async () => {
    // Behind a transaction pooler a connection is every instance's: a setting left on it is not on the next one.
    const ana = somebody();
    await remember(ana, 'kept', axis(0));
    const settings = (tx: Queryable) =>
      tx.query<{ scan: string | null; ef: string | null }>("select current_setting('hnsw.iterative_scan', true) as scan, current_setting('hnsw.ef_search', true) as ef");
    const during = await db.asPerson(ana, async (tx) => {
      await recall(tx, { person: ana, bot: 'demo', embedder: 'hash-v1', embedding: axis(0), limit: 3, maxDistance: 1 });
      return (await settings(tx)).rows;
    });
    expect(during).toEqual([{ scan: 'relaxed_order', ef: '200' }]);
    const after = (await db.asPerson(ana, settings)).rows[0];
    expect(after?.ef).not.toBe('200');
  });

  it('keeps nothing for a zero vector, finds nothing for one, and refuses a vector of the wrong width', async () => {
    const ana = somebody();
    expect(await remember(ana, '…', new Float32Array(384))).toBeNull();
    expect(await recallFor(ana, { embedding: new Float32Array(384) })).toEqual([]);
    await expect(remember(ana, 'short', new Float32Array(3))).rejects.toThrow(RangeError);
    await expect(remember(ana, 'broken', axis(0).map((v, i) => (i === 1 ? Number.NaN : v)))).rejects.toThrow(RangeError);
    await expect(recallFor(ana, { limit: 0 })).rejects.toThrow(RangeError);
    await expect(recallFor(ana, { maxDistance: 3 })).rejects.toThrow(RangeError);
  });

  it('accepts a plain array of numbers as well as a Float32Array', async () => {
    const ana = somebody();
    await db.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'array', embedder: 'hash-v1', embedding: Array.from(axis(0)) }));
    expect((await recallFor(ana, { embedding: Array.from(axis(0)) })).map((m) => m.text)).toEqual(['array']);
  });

  it('keeps a narrower embedder’s vector at its own width, and recalls it only in its own space', async () => {
    const ana = somebody();
    const kept = await remember(ana, 'in words', towards(0, 1, 0.1), { embedder: 'words' });
    expect(kept).toMatchObject({ embedder: 'words', dimensions: 100 });
    const { rows } = await db.asServer((tx) => tx.query<{ width: number }>('select vector_dims(embedding) as width from memories where id = $1', [kept?.id]));
    expect(rows[0]?.width).toBe(100);
    await remember(ana, 'in hash', axis(0));
    const inWords = await recallFor(ana, { embedder: 'words' });
    expect(inWords.map((m) => [m.text, m.dimensions])).toEqual([['in words', 100]]);
    expect(inWords[0]?.distance).toBeCloseTo(1 - Math.cos(0.1), 6);
    // The same query given at the space's own width, and with its width named.
    expect((await recallFor(ana, { embedder: 'words', dimensions: 100, embedding: axis(0).slice(0, 100) })).map((m) => m.text)).toEqual(['in words']);
    expect((await recallFor(ana)).map((m) => m.text)).toEqual(['in hash']);
  });

  it('refuses an unregistered embedder, a vector with values past its width, and one name at two widths', async () => {
    const ana = somebody();
    await expect(remember(ana, 'who made this?', axis(0), { embedder: 'nobody-v1' })).rejects.toThrow(/not registered/);
    expect(await recallFor(ana, { embedder: 'nobody-v1' })).toEqual([]);
    await expect(remember(ana, 'too wide', axis(200), { embedder: 'words' })).rejects.toThrow(/past its 100 dimensions/);
    await expect(recallFor(ana, { embedder: 'words', embedding: axis(200) })).rejects.toThrow(RangeError);
    await expect(db.asServer((tx) => registerEmbedder(tx, { name: 'words', dimensions: 384 }))).rejects.toThrow(EmbedderWidthError);
    await db.asServer((tx) => registerEmbedder(tx, { name: 'words', dimensions: 100 }));
    await expect(db.asServer((tx) => registerEmbedder(tx, { name: 'wide', dimensions: 385 }))).rejects.toThrow(RangeError);
  });

  it('keeps the width through the person’s own door (confab_remember) too', async () => {
    const ana = somebody();
    const id = await db.asPerson(ana, (tx) => rememberAsPerson(tx, { bot: 'demo', text: 'said to remember', embedder: 'words', embedding: axis(3) }));
    const listed = await db.asPerson(ana, (tx) => listMemories(tx, { bot: 'demo' }));
    expect(listed).toMatchObject([{ id, embedder: 'words', dimensions: 100 }]);
    expect((await recallFor(ana, { embedder: 'words', embedding: axis(3) })).map((m) => m.text)).toEqual(['said to remember']);
  });

  it('recalls exactly as through the index, comparing every one of the person’s memories, and says how many it compared', async () => {
    const ana = somebody();
    await remember(ana, 'far', towards(0, 1, Math.PI / 3));
    await remember(ana, 'near', towards(0, 1, 0.2));
    await remember(ana, 'exact', axis(0));
    await remember(ana, 'unrelated', axis(9));
    await remember(ana, 'for another bot', axis(0), { bot: 'coach' });
    await remember(somebody(), "somebody else's", axis(0));
    const query: RecallQuery = { person: ana, bot: 'demo', embedder: 'hash-v1', embedding: axis(0), limit: 5, maxDistance: 0.5 };
    const exactly = await db.asServer((tx) => recallExactly(tx, query));
    expect(exactly.recalled.map((m) => m.text)).toEqual(['exact', 'near', 'far']);
    expect(exactly.recalled).toEqual(await db.asServer((tx) => recall(tx, query)));
    expect(exactly.compared).toBe(4);
    // The limit first, then the floor, as recall has it.
    expect((await db.asServer((tx) => recallExactly(tx, { ...query, limit: 2 }))).recalled.map((m) => m.text)).toEqual(['exact', 'near']);
    expect(await db.asServer((tx) => recallExactly(tx, { ...query, person: somebody() }))).toEqual({ recalled: [], compared: 0 });
    expect(await db.asServer((tx) => recallExactly(tx, { ...query, embedder: 'never-registered', dimensions: undefined }))).toEqual({ recalled: [], compared: 0 });
  });

  it('recalls a person with few memories exactly, and one with more than EXACT_RECALL_MAX through the index once it has counted them', async () => {
    const few = somebody();
    const many = somebody();
    await remember(few, 'one thing', axis(0));
    await db.asServer(async (tx) => {
      for (let i = 0; i <= EXACT_RECALL_MAX; i++) {
        await rememberLine(tx, { person: many, bot: 'demo', text: `remark ${i}`, embedder: 'hash-v1', embedding: towards(0, 1 + (i % 300), 0.3 + (i % 7) * 0.1) });
      }
    });
    const recallFor = recaller();
    const sent: string[] = [];
    /** `tx`, noting each recall statement it sends and whether it ran in a transaction. */
    const noting = (tx: Queryable, how: string): Queryable => ({
      query: (sql, params) => {
        const kind = sql.includes('with mine') ? 'exact' : sql.includes('with nearest') ? 'index' : undefined;
        if (kind !== undefined) sent.push(`${kind} ${how}`);
        return tx.query(sql, params);
      },
    });
    const spied = {
      asPerson: <T>(person: string, fn: (tx: Queryable) => Promise<T>) => db.asPerson(person, (tx) => fn(noting(tx, `as ${person === many ? 'many' : 'few'}`))),
    };
    const recallOnce = (person: string) => recallFor(spied, { person, bot: 'demo', embedder: 'hash-v1', embedding: axis(0), limit: 5, maxDistance: 1 });
    const first = await recallOnce(many);
    const second = await recallOnce(many);
    await recallOnce(few);
    await recallOnce(few);
    // Each as the person it recalls for, under row level security.
    expect(sent).toEqual(['exact as many', 'index as many', 'exact as few', 'exact as few']);
    // The index may miss a near one now and then; here it finds the same five.
    expect(second.map((m) => m.text)).toEqual(first.map((m) => m.text));
  });

  it('lists the person’s memories for one bot newest first, and forgets one so it is never recalled again', async () => {
    const ana = somebody();
    await remember(ana, 'older', axis(0));
    await remember(ana, 'newer', axis(0));
    await remember(ana, 'for the coach', axis(0), { bot: 'coach' });
    const listed = await db.asPerson(ana, (tx) => listMemories(tx, { bot: 'demo' }));
    expect(listed.map((m) => m.text)).toEqual(['newer', 'older']);
    const older = listed[1]?.id ?? '';
    expect(await db.asPerson(ana, (tx) => forgetMemory(tx, older))).toBe(true);
    expect(await db.asPerson(ana, (tx) => forgetMemory(tx, older))).toBe(false);
    expect(await db.asPerson(ana, (tx) => forgetMemory(tx, 'not-a-uuid'))).toBe(false);
    expect((await recallFor(ana)).map((m) => m.text)).toEqual(['newer']);
  });
});

describe('recall through the approximate index', { timeout: DB_TEST_MS }, () => {
  it.each([
    ['hash-v1', 384],
    ['words', 100],
  ] as const)('finds the person’s rows past a crowd of nearer ones, rather than answering none (%s, %i wide)', async (embedder, width) => {
    // A database of its own: the HNSW graph is built from this test's rows alone.
    const own = await openMemoryDatabase();
    const ana = somebody();
    const random = seededRandom(4);
    const inSpace = (v: Float32Array) => v.map((x, i) => (i < width ? x : 0));
    await own.asServer(async (tx) => {
      await registerEmbedder(tx, { name: embedder, dimensions: width });
      // 200 other people's memories, every one nearer the query than the person's own.
      for (let i = 0; i < 200; i++) {
        const near = inSpace(axis(0).map((v) => v + (random() - 0.5) * 0.05));
        await rememberLine(tx, { person: somebody('crowd'), bot: 'demo', text: 'crowd', embedder, embedding: near });
      }
      await rememberLine(tx, { person: ana, bot: 'demo', text: 'mine', embedder, embedding: towards(0, 50, 0.6) });
    });
    const rolledBack = new Error('rolled back');
    const seen: { plan: string; texts: string[] } = { plan: '', texts: [] };
    // Without the per-person index the planner has only the HNSW index to order by; dropped for this
    // transaction alone, which is then rolled back.
    await expect(
      own.asServer(async (tx) => {
        await tx.query('drop index memories_owner');
        await tx.query('set local enable_seqscan = off');
        // The plan of the very statement recall sends.
        const explained: Queryable = {
          async query(sql, params) {
            if (!/^\s*(select set_config|set )/.test(sql)) {
              const plan = await tx.query<{ 'QUERY PLAN': string }>(`explain ${sql}`, params);
              seen.plan = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
            }
            return tx.query(sql, params);
          },
        };
        seen.texts = (await recall(explained, { person: ana, bot: 'demo', embedder, embedding: axis(0), limit: 5, maxDistance: 0.5 })).map((m) => m.text);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    await own.close();
    expect(seen.plan).toContain(`memories_nearest_${width}`);
    expect(seen.texts).toEqual(['mine']);
  });
});
