import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import type { Queryable } from '../../../server/db/queryable';
import { DatabaseError } from '../../../server/db/errors';
import { pastQuestions } from '../../../server/db/lines';
import { openDatabase } from '../../../server/db/database';
import { recall, rememberLine } from '../../../server/db/memories';
import { reserveAnswer } from '../../../server/db/reservations';
import { pgliteStatements } from '../../../server/db/pgliteStatements';
import type { PgliteStatements } from '../../../server/db/pgliteStatements';
import { axis, DB_TEST_MS, OPENING_MS, somebody, towards } from './fixtures';

/** The session's named statements as Postgres counts them: how often each was planned for its values or once for all. */
async function preparedPlans(db: Database): Promise<{ statement: string; generic: number; custom: number }[]> {
  const { rows } = await db.asServer((tx) =>
    tx.query<{ statement: string; generic_plans: string; custom_plans: string }>('select statement, generic_plans, custom_plans from pg_prepared_statements where not from_sql'),
  );
  return rows.map((row) => ({ statement: row.statement, generic: Number(row.generic_plans), custom: Number(row.custom_plans) }));
}

describe('statements prepared once per PGlite session', { timeout: DB_TEST_MS }, () => {
  let pglite: PGlite;
  let statements: PgliteStatements;
  beforeAll(async () => {
    pglite = await PGlite.create({ dataDir: 'memory://', extensions: { vector } });
    statements = pgliteStatements(pglite, 3);
    await pglite.exec('create table notes (id serial primary key, who text not null unique, said jsonb, tags text[], at timestamptz)');
  }, OPENING_MS);
  afterAll(() => pglite.close());

  /** `fn` with the statements, inside one PGlite transaction, as the database's session runs them. */
  const inTransaction = <T>(fn: (query: PgliteStatements['query']) => Promise<T>) => pglite.transaction(() => fn((sql, params) => statements.query(sql, params)));

  it('binds each value by its parameter’s type and reads rows as PGlite’s own query does', async () => {
    const at = new Date('2026-12-01T10:00:00.000Z');
    const sql = 'insert into notes (who, said, tags, at) values ($1, $2, $3, $4) returning who, said, tags, at';
    const mine = await inTransaction((query) => query(sql, ['ana', { words: ['it’s', "o'clock"], n: 1 }, ['a', 'b,c', 'd"e'], at]));
    const theirs = await pglite.query('select who, said, tags, at from notes where who = $1', ['ana']);
    expect(mine.rows).toEqual(theirs.rows);
    expect(mine.rows[0]).toEqual({ who: 'ana', said: { words: ['it’s', "o'clock"], n: 1 }, tags: ['a', 'b,c', 'd"e'], at });
    const nothing = await inTransaction((query) => query('select said, tags from notes where who = $1 and $2::text is null', ['ana', null]));
    expect(nothing.rows).toEqual([{ said: { words: ['it’s', "o'clock"], n: 1 }, tags: ['a', 'b,c', 'd"e'] }]);
  });

  it('parses a text once and runs it again by name', async () => {
    const sql = 'select count(*)::int as n from notes where who = $1';
    const before = statements.size;
    for (const who of ['ana', 'bob', 'ana']) await inTransaction((query) => query(sql, [who]));
    const { rows } = await pglite.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements where statement = $1', [sql]);
    expect(rows[0]?.n).toBe(1);
    expect(statements.size).toBeLessThanOrEqual(Math.max(before + 1, 3));
  });

  it('keeps the session usable after a statement fails, and a failed text is not kept', async () => {
    const insert = 'insert into notes (who) values ($1)';
    await inTransaction((query) => query(insert, ['carl']));
    await expect(inTransaction((query) => query(insert, ['carl']))).rejects.toMatchObject({ code: '23505' });
    await expect(inTransaction((query) => query('selec nothing', []))).rejects.toMatchObject({ code: '42601' });
    const { rows } = await pglite.query<{ n: number }>("select count(*)::int as n from pg_prepared_statements where statement = 'selec nothing'");
    expect(rows[0]?.n).toBe(0);
    // The same statement again, in the next transaction: the failure left nothing behind.
    await inTransaction((query) => query(insert, ['dora']));
    expect((await pglite.query('select who from notes where who in ($1, $2) order by who', ['carl', 'dora'])).rows).toEqual([{ who: 'carl' }, { who: 'dora' }]);
  });

  it('keeps a statement first parsed in a transaction that rolled back', async () => {
    const sql = 'select who from notes where who = $1 and id > $2';
    await expect(
      pglite.transaction(async () => {
        await statements.query(sql, ['carl', 0]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await inTransaction((query) => query(sql, ['carl', 0]))).rows).toEqual([{ who: 'carl' }]);
  });

  it('closes the least recently used statement when it holds its most, and prepares it again when asked', async () => {
    const texts = [1, 2, 3, 4].map((n) => `select ${n} as n, $1::text as who`);
    for (const sql of texts) await inTransaction((query) => query(sql, ['x']));
    expect(statements.size).toBe(3);
    const kept = (await pglite.query<{ statement: string }>('select statement from pg_prepared_statements where not from_sql')).rows.map((r) => r.statement);
    expect(kept).toHaveLength(3);
    expect(kept).not.toContain(texts[0]);
    expect((await inTransaction((query) => query(texts[0] ?? '', ['y']))).rows).toEqual([{ n: 1, who: 'y' }]);
    expect(statements.size).toBe(3);
  });
});

describe('the database on PGlite, its statements kept prepared', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    // PGlite's own: what this suite reads is how PGlite keeps its statements, whichever database the run tests.
    db = await openDatabase({ dataDir: 'memory://' });
  }, OPENING_MS);
  afterAll(() => db.close());

  it('confines a person’s reads to their rows, whoever ran the same statement before', async () => {
    const ana = somebody();
    const bob = somebody();
    await db.asServer(async (tx) => {
      await rememberLine(tx, { person: ana, bot: 'demo', text: 'ana remembers this', embedder: 'hash-v1', embedding: axis(0) });
      await rememberLine(tx, { person: bob, bot: 'demo', text: 'bob remembers that', embedder: 'hash-v1', embedding: axis(1) });
    });
    const sql = 'select text from memories order by text';
    // As the server first, which sees everything; then as each person, on the same prepared text.
    expect((await db.asServer((tx) => tx.query(sql))).rows.length).toBeGreaterThanOrEqual(2);
    for (let i = 0; i < 7; i++) {
      expect((await db.asPerson(ana, (tx) => tx.query(sql))).rows).toEqual([{ text: 'ana remembers this' }]);
      expect((await db.asPerson(bob, (tx) => tx.query(sql))).rows).toEqual([{ text: 'bob remembers that' }]);
    }
  });

  it('reads outside a transaction one statement at a time, and never inside another caller’s transaction', async () => {
    const ana = somebody();
    const ids = await db.readAsServer((reader) => Promise.all([reader.query<{ id: string }>('select txid_current()::text as id'), reader.query<{ id: string }>('select txid_current()::text as id')]));
    // Each statement is a transaction of its own.
    expect(new Set(ids.map((r) => r.rows[0]?.id)).size).toBe(2);
    const count = (reader: Queryable) => reader.query<{ n: number }>('select count(*)::int as n from memories where person = $1', [ana]);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written: () => void = () => undefined;
    const open = new Promise<void>((resolve) => {
      written = resolve;
    });
    const abandoned = db.asServer(async (tx) => {
      await rememberLine(tx, { person: ana, bot: 'demo', text: 'written, then rolled back', embedder: 'hash-v1', embedding: axis(2) });
      written();
      await held;
      // Its last statement goes to the session after the read was asked: a read sent at once would
      // have run before it, inside this transaction, and counted the row about to be rolled back.
      await tx.query('select 1');
      throw new Error('rolled back on purpose');
    });
    await open;
    // Asked while that transaction is open, the read waits its turn.
    const reading = db.readAsServer(count);
    release();
    await expect(abandoned).rejects.toThrow('rolled back on purpose');
    expect((await reading).rows).toEqual([{ n: 0 }]);
    await expect(db.readAsServer((reader) => reader.query('select * from no_such_table'))).rejects.toBeInstanceOf(DatabaseError);
    await db.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'written and kept', embedder: 'hash-v1', embedding: axis(2) }));
    expect((await db.readAsServer(count)).rows).toEqual([{ n: 1 }]);
  });

  it('plans each recall for its own person’s values, while statements that suit one plan keep it', async () => {
    const persons = [somebody(), somebody(), somebody()];
    await db.asServer(async (tx) => {
      for (const [i, person] of persons.entries()) {
        await rememberLine(tx, { person, bot: 'demo', text: `remark ${i}`, embedder: 'hash-v1', embedding: towards(0, 1 + i, 0.1) });
      }
    });
    for (let i = 0; i < 12; i++) {
      const person = persons[i % persons.length] ?? '';
      await db.asServer(async (tx) => {
        await pastQuestions(tx, { person, bot: 'demo', limit: 20 });
        await recall(tx, { person, bot: 'demo', embedder: 'hash-v1', dimensions: 384, embedding: axis(0), limit: 5, maxDistance: 0.5 });
      });
    }
    const plans = await preparedPlans(db);
    const recallPlans = plans.find((p) => p.statement.includes('with nearest as materialized'));
    const pastPlans = plans.find((p) => p.statement.includes('from lines l join threads'));
    // Nearest neighbours: the vector index for somebody with thousands of memories, their own rows
    // for somebody with a few — never one plan for everybody.
    expect(recallPlans).toMatchObject({ generic: 0 });
    expect(recallPlans?.custom).toBeGreaterThanOrEqual(12);
    // Past questions read the same way for everybody: planned once and kept.
    expect(pastPlans?.generic).toBeGreaterThan(0);
  });

  it('plans admission once for everybody, from the first reservation on', async () => {
    for (let i = 0; i < 4; i++) {
      const person = somebody();
      await db.asServer((tx) => reserveAnswer(tx, { person, bot: 'demo', limits: { perMinute: { answers: 5 }, perDay: { spend: 1 } }, spendHoldUsd: 0.01, now: new Date() }));
    }
    const admission = (await preparedPlans(db)).find((p) => p.statement.includes('tallies where'));
    expect(admission).toMatchObject({ custom: 0 });
    expect(admission?.generic).toBeGreaterThanOrEqual(4);
  });
});
