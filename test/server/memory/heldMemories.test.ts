import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, ListenHandlers, Queryable } from '../../../server/db/database';
import { openDatabase } from '../../../server/db/database';
import { forgetMemory, recallExactly, registerEmbedder, rememberLine } from '../../../server/db/memories';
import type { RecallQuery } from '../../../server/db/memories';
import { rememberAsPerson } from '../../../server/apps/memory/remembered';
import { heldMemories } from '../../../server/memory/heldMemories';
import type { HeldMemories } from '../../../server/memory/heldMemories';
import { memoryWriter, recaller } from '../../../server/memory/context';
import { hashEmbedder } from '../../../server/memory/embed';
import { seededRandom } from '../../helpers/random';
import type { Random } from '../../helpers/random';
import { axis, DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody, towards, WIDTH } from '../db/fixtures';

/** A vector of `width` meaningful numbers (the rest zero), in MEMORY_WIDTH. */
function randomVector(random: Random, width = WIDTH): Float32Array {
  const vector = new Float32Array(WIDTH);
  for (let i = 0; i < width; i++) vector[i] = random() * 2 - 1;
  return vector;
}

/** `db`, counting the reads that reach it and able to run `during` inside the next one. */
function counting(db: Database) {
  const seen = { reads: 0, during: undefined as (() => Promise<void>) | undefined, handlers: undefined as ListenHandlers | undefined };
  const wrapped: Pick<Database, 'readAsServer' | 'listen'> = {
    readAsServer: <T>(fn: (reader: Queryable) => Promise<T>) => {
      seen.reads += 1;
      const during = seen.during;
      seen.during = undefined;
      return db.readAsServer(fn).then(async (result) => {
        // A change that commits after the read's snapshot and is heard before the read is used.
        if (during !== undefined) await during();
        return result;
      });
    },
    listen: async (channel, handlers) => {
      seen.handlers = handlers;
      const listen = db.listen;
      if (listen === undefined) throw new Error('The test database cannot listen.');
      return listen(channel, handlers);
    },
  };
  return { seen, wrapped };
}

/** Recalls until the memories are held (the first recall starts listening and is the database's). */
async function heldRecall(held: HeldMemories, query: RecallQuery) {
  await expect.poll(async () => (await held.recall(query)) !== undefined).toBe(true);
  return held.recall(query);
}

/** Memories held over `db` with its reads counted, once `query`'s person's are held; the reads it took. */
async function heldCounting(db: Database, query: RecallQuery) {
  const { seen, wrapped } = counting(db);
  const held = heldMemories(wrapped, { memoriesMax: 1000 });
  await heldRecall(held, query);
  return { seen, held, readsWhenHeld: seen.reads };
}

describe('memories held in process', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
    await db.asServer((tx) => registerEmbedder(tx, { name: 'words', dimensions: 100 }));
  }, OPENING_MS);
  afterAll(() => db.close());

  const remember = (person: string, text: string, embedding: Float32Array, embedder = 'hash-v1') =>
    db.asServer((tx) => rememberLine(tx, { person, bot: 'demo', text, embedder, embedding }));
  const queryOf = (person: string, embedding: Float32Array, more: Partial<RecallQuery> = {}): RecallQuery => ({
    person,
    bot: 'demo',
    embedder: 'hash-v1',
    dimensions: WIDTH,
    embedding,
    limit: 5,
    maxDistance: 0.9,
    ...more,
  });

  it.each([
    ['hash-v1', 384],
    ['words', 100],
  ] as const)('answers as the database’s exact recall does: the same memories, in the same order, at the same distances (%s, %i wide)', async (embedder, width) => {
    const random = seededRandom(width);
    const ana = somebody();
    for (let i = 0; i < 60; i++) await remember(ana, `remark ${String(i)}`, randomVector(random, width), embedder);
    await remember(somebody(), 'somebody else’s', randomVector(random, width), embedder);
    const held = heldMemories(db, { memoriesMax: 1000 });
    for (let q = 0; q < 20; q++) {
      const query = queryOf(ana, randomVector(random, width), { embedder, dimensions: width, limit: 1 + (q % 10), maxDistance: q % 2 === 0 ? 2 : 0.95 });
      const fromHeld = q === 0 ? await heldRecall(held, query) : await held.recall(query);
      const fromDatabase = await db.readAsServer((reader) => recallExactly(reader, query));
      expect(fromHeld?.compared).toBe(60);
      expect(fromHeld?.recalled.map((m) => m.text)).toEqual(fromDatabase.recalled.map((m) => m.text));
      fromHeld?.recalled.forEach((m, i) => {
        expect(m.distance).toBeCloseTo(fromDatabase.recalled[i]?.distance ?? Number.NaN, 5);
        expect(m).toMatchObject({ id: fromDatabase.recalled[i]?.id, bot: 'demo', embedder, dimensions: width });
      });
    }
    expect(held.held).toEqual({ owners: 1, vectors: 60 });
    await held.close();
  });

  it('reads a person’s memories once, and after that only what was added, hearing each change as it commits', async () => {
    const ana = somebody();
    await remember(ana, 'first', axis(0));
    const query = queryOf(ana, axis(0), { maxDistance: 2 });
    const { seen, held, readsWhenHeld } = await heldCounting(db, query);
    await held.recall(query);
    expect(seen.reads).toBe(readsWhenHeld);

    // Added by another transaction (here the memory app's own door, as a person): read at the next recall.
    await db.asPerson(ana, (tx) => rememberAsPerson(tx, { bot: 'demo', text: 'second', embedder: 'hash-v1', embedding: towards(0, 1, 0.1) }));
    expect((await held.recall(query))?.recalled.map((m) => m.text)).toEqual(['first', 'second']);
    expect(seen.reads).toBe(readsWhenHeld + 1);

    // Forgotten: gone at once, with nothing read.
    const second = (await held.recall(query))?.recalled[1]?.id ?? '';
    expect(await db.asPerson(ana, (tx) => forgetMemory(tx, second))).toBe(true);
    expect((await held.recall(query))?.recalled.map((m) => m.text)).toEqual(['first']);
    expect(seen.reads).toBe(readsWhenHeld + 1);
    await held.close();
  });

  it('is handed what this server kept itself, with nothing read', async () => {
    const ana = somebody();
    await remember(ana, 'first thing I said', axis(0));
    const { seen, held, readsWhenHeld } = await heldCounting(db, queryOf(ana, axis(1), { maxDistance: 2 }));
    const write = memoryWriter(db, hashEmbedder, held);
    await write({ person: ana, bot: 'demo', memory: 'person+recall', question: 'my sister is called Ana' });
    const recalled = await held.recall(queryOf(ana, await hashEmbedder.embed('my sister Ana'), { maxDistance: 2 }));
    expect(recalled?.recalled[0]?.text).toBe('my sister is called Ana');
    expect(recalled?.compared).toBe(2);
    expect(seen.reads).toBe(readsWhenHeld);
    await held.close();
  });

  it('does not keep a read that a change came during: the memory forgotten meanwhile is not recalled', async () => {
    const ana = somebody();
    const kept = await remember(ana, 'stays', axis(0));
    const gone = await remember(ana, 'forgotten while being read', towards(0, 1, 0.1));
    const { seen, wrapped } = counting(db);
    const held = heldMemories(wrapped, { memoriesMax: 1000 });
    const query = queryOf(ana, axis(0), { maxDistance: 2 });
    // Listening, with nothing held yet.
    await expect.poll(async () => (await held.recall(queryOf(somebody(), axis(0)))) !== undefined).toBe(true);
    seen.during = async () => {
      await db.asPerson(ana, (tx) => forgetMemory(tx, gone?.id ?? ''));
    };
    expect(await held.recall(query)).toBeUndefined();
    const after = await held.recall(query);
    expect(after?.recalled.map((m) => m.id)).toEqual([kept?.id]);
    await held.close();
  });

  it('holds nobody with more than memoriesMax memories, and lets the person recalled longest ago go past vectorsMax', async () => {
    const many = somebody();
    for (let i = 0; i < 4; i++) await remember(many, `remark ${String(i)}`, towards(0, 1 + i, 0.2));
    const held = heldMemories(db, { memoriesMax: 3, vectorsMax: 5 });
    await expect.poll(async () => (await held.recall(queryOf(somebody(), axis(0)))) !== undefined).toBe(true);
    expect(await held.recall(queryOf(many, axis(0)))).toBeUndefined();

    const ana = somebody();
    const bob = somebody();
    for (let i = 0; i < 3; i++) {
      await remember(ana, `ana ${String(i)}`, towards(0, 1 + i, 0.2));
      await remember(bob, `bob ${String(i)}`, towards(0, 1 + i, 0.2));
    }
    expect((await held.recall(queryOf(ana, axis(0))))?.compared).toBe(3);
    expect((await held.recall(queryOf(bob, axis(0))))?.compared).toBe(3);
    expect(held.held.vectors).toBeLessThanOrEqual(5);
    expect(held.held.vectors).toBe(3);
    // A memory added past memoriesMax lets the person go.
    await remember(bob, 'bob 3', axis(0));
    expect(await held.recall(queryOf(bob, axis(0)))).toBeUndefined();
    await held.close();
  });

  it('forgets everything held after a break in listening, and holds nothing without listening', async () => {
    const ana = somebody();
    await remember(ana, 'something', axis(0));
    const { seen, wrapped } = counting(db);
    const held = heldMemories(wrapped, { memoriesMax: 1000 });
    await heldRecall(held, queryOf(ana, axis(0)));
    expect(held.held.vectors).toBe(1);
    seen.handlers?.gap?.();
    expect(held.held).toEqual({ owners: 0, vectors: 0 });
    await held.close();

    const deaf = heldMemories({ readAsServer: (fn) => db.readAsServer(fn) }, { memoriesMax: 1000 });
    expect(await deaf.recall(queryOf(ana, axis(0)))).toBeUndefined();
    expect(await deaf.recall(queryOf(ana, axis(0)))).toBeUndefined();
  });

  it('lets recall read the database no more once a person’s memories are held', async () => {
    const ana = somebody();
    await remember(ana, 'one thing', axis(0));
    const held = heldMemories(db, { memoriesMax: 1000 });
    const recallFor = recaller(held);
    const sent: string[] = [];
    const noting = (tx: Queryable): Queryable => ({
      query: (sql, params) => {
        if (sql.includes('with mine')) sent.push('exact');
        return tx.query(sql, params);
      },
    });
    const spied = {
      asServer: <T>(fn: (tx: Queryable) => Promise<T>) => db.asServer((tx) => fn(noting(tx))),
      readAsServer: <T>(fn: (reader: Queryable) => Promise<T>) => db.readAsServer((reader) => fn(noting(reader))),
    };
    const query = queryOf(ana, axis(0));
    expect((await recallFor(spied, query)).map((m) => m.text)).toEqual(['one thing']);
    expect(sent).toEqual(['exact']);
    await expect.poll(() => held.held.owners).toBe(0);
    await heldRecall(held, query);
    expect((await recallFor(spied, query)).map((m) => m.text)).toEqual(['one thing']);
    expect(sent).toEqual(['exact']);
    await held.close();
  });
});

/**
 * Two Confab servers over one Postgres: a change one makes reaches the other's held memories when its
 * notification arrives, a few milliseconds after the commit. Here on one PGlite whose notifications
 * reach the holder late; and, when `CONFAB_TEST_DATABASE_URL` names one, on a real Postgres through
 * two pools (PGlite served by pglite-socket is one session: one connection's NOTIFY is not heard
 * on another's LISTEN, so it cannot stand in here).
 */
const realPostgres = process.env.CONFAB_TEST_DATABASE_URL;
const twoServers: { name: string; late: boolean; open: () => Promise<{ one: Database; two: Pick<Database, 'readAsServer' | 'listen'>; close: () => Promise<void> }> }[] = [
  {
    name: 'PGlite, heard 30 ms late',
    late: true,
    open: async () => {
      const db = await openMemoryDatabase();
      const listen = db.listen;
      const late: Pick<Database, 'readAsServer' | 'listen'> = {
        readAsServer: (fn) => db.readAsServer(fn),
        listen: (channel, handlers) => {
          if (listen === undefined) throw new Error('The test database cannot listen.');
          return listen(channel, {
            payload: (payload) => {
              setTimeout(() => {
                handlers.payload(payload);
              }, 30);
            },
          });
        },
      };
      return { one: db, two: late, close: () => db.close() };
    },
  },
  ...(realPostgres === undefined || realPostgres === ''
    ? []
    : [
        {
          name: 'CONFAB_TEST_DATABASE_URL',
          late: false,
          open: async () => {
            const [one, two] = await Promise.all([openDatabase({ url: realPostgres }), openDatabase({ url: realPostgres })]);
            return {
              one,
              two,
              close: async () => {
                await one.close();
                await two.close();
              },
            };
          },
        },
      ]),
];

describe.each(twoServers)('memories held by one server while another changes them: $name', { timeout: DB_TEST_MS }, ({ late, open }) => {
  it('answers from what it holds until the change is heard, then as the change says', async () => {
    const { one, two, close } = await open();
    try {
      const ana = somebody();
      const first = await one.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'first', embedder: 'hash-v1', embedding: axis(0) }));
      const held = heldMemories(two, { memoriesMax: 1000 });
      const query: RecallQuery = { person: ana, bot: 'demo', embedder: 'hash-v1', dimensions: WIDTH, embedding: axis(0), limit: 5, maxDistance: 2 };
      expect((await heldRecall(held, query))?.recalled.map((m) => m.text)).toEqual(['first']);
      await one.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'second', embedder: 'hash-v1', embedding: towards(0, 1, 0.1) }));
      // Not heard yet: answered as a recall a moment earlier would have been.
      if (late) expect((await held.recall(query))?.recalled.map((m) => m.text)).toEqual(['first']);
      await expect.poll(async () => (await held.recall(query))?.recalled.map((m) => m.text)).toEqual(['first', 'second']);
      await one.asPerson(ana, (tx) => forgetMemory(tx, first?.id ?? ''));
      await expect.poll(async () => (await held.recall(query))?.recalled.map((m) => m.text)).toEqual(['second']);
      await held.close();
    } finally {
      await close();
    }
  }, OPENING_MS);
});
