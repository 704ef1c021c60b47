import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import { RefusedError } from '../../../server/db/errors';
import { addLine, listLines } from '../../../server/db/lines';
import { forgetMemory, listMemories, rememberLine } from '../../../server/db/memories';
import { reserveAnswer } from '../../../server/db/reservations';
import { recordUsage } from '../../../server/db/usage';
import { createThread, deleteThread, listThreads } from '../../../server/db/threads';
import { axis, DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from './fixtures';

/**
 * Row level security is the boundary between people: every cross-person read finds nothing and every
 * cross-person write is refused or touches nothing, whatever the query asks for.
 */
describe('row level security', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let ana: string;
  let bob: string;
  let anaThread: string;
  let anaLine: string;
  let anaMemory: string;
  let anaReservation: string;

  beforeAll(async () => {
    db = await openMemoryDatabase();
    ana = somebody('ana');
    bob = somebody('bob');
    const thread = await db.asPerson(ana, (tx) => createThread(tx, { person: ana, bot: 'demo' }));
    anaThread = thread.id;
    anaLine = (await db.asPerson(ana, (tx) => addLine(tx, { threadId: anaThread, person: ana, who: 'person', text: 'My sister is Ana too.', clientId: 'a1' }))).id;
    const memory = await db.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'My sister is Ana too.', embedder: 'hash-v1', embedding: axis(0) }));
    anaMemory = memory?.id ?? '';
    const admitted = await db.asServer((tx) => reserveAnswer(tx, { person: ana, bot: 'demo', limits: {}, now: new Date() }));
    if (!admitted.ok) throw new Error('an answer with no limits was refused');
    anaReservation = admitted.reservationId;
    await db.asServer((tx) =>
      recordUsage(tx, { reservationId: anaReservation, person: ana, bot: 'demo', provider: 'stand-in', model: 'script', promptTokens: 10, completionTokens: 20, costUsd: 0.01, startedAt: new Date() }),
    );
  }, OPENING_MS);

  afterAll(() => db.close());

  describe('reads', () => {
    it("lists none of another person's threads, and reads none of their lines", async () => {
      expect(await db.asPerson(bob, (tx) => listThreads(tx, { bot: 'demo' }))).toEqual([]);
      expect(await db.asPerson(bob, (tx) => listLines(tx, anaThread))).toEqual([]);
      expect(await db.asPerson(ana, (tx) => listLines(tx, anaThread))).toHaveLength(1);
    });

    it('finds nothing even when a query asks for the other person by name', async () => {
      const rows = await db.asPerson(bob, async (tx) => ({
        threads: (await tx.query('select id from threads where person = $1', [ana])).rows,
        lines: (await tx.query('select id from lines where person = $1', [ana])).rows,
        memories: (await tx.query('select id from memories where person = $1', [ana])).rows,
        usage: (await tx.query('select id from usage where person = $1', [ana])).rows,
      }));
      expect(rows).toEqual({ threads: [], lines: [], memories: [], usage: [] });
    });

    it("lists none of another person's memories, and reads their own usage only", async () => {
      expect(await db.asPerson(bob, (tx) => listMemories(tx, { bot: 'demo' }))).toEqual([]);
      expect(await db.asPerson(ana, (tx) => listMemories(tx, { bot: 'demo' }))).toHaveLength(1);
      expect((await db.asPerson(ana, (tx) => tx.query('select id from usage'))).rows).toHaveLength(1);
      expect((await db.asPerson(bob, (tx) => tx.query('select id from usage'))).rows).toEqual([]);
    });

    it('lets no person read reservations or the migration ledger at all', async () => {
      await expect(db.asPerson(ana, (tx) => tx.query('select id from reservations'))).rejects.toBeInstanceOf(RefusedError);
      await expect(db.asPerson(ana, (tx) => tx.query('select version from schema_migrations'))).rejects.toBeInstanceOf(RefusedError);
    });
  });

  describe('writes', () => {
    it("refuses a line into another person's thread, in either person's name", async () => {
      await expect(db.asPerson(bob, (tx) => addLine(tx, { threadId: anaThread, person: bob, who: 'person', text: 'Injected.', clientId: 'b1' }))).rejects.toBeInstanceOf(
        RefusedError,
      );
      await expect(db.asPerson(bob, (tx) => addLine(tx, { threadId: anaThread, person: ana, who: 'assistant', text: 'Injected.', clientId: 'b2' }))).rejects.toBeInstanceOf(
        RefusedError,
      );
      expect(await db.asPerson(ana, (tx) => listLines(tx, anaThread))).toHaveLength(1);
    });

    it("refuses a line that reuses another person's clientId in their thread rather than answering their line", async () => {
      await expect(db.asPerson(bob, (tx) => addLine(tx, { threadId: anaThread, person: bob, who: 'person', text: 'Show me.', clientId: 'a1' }))).rejects.toBeInstanceOf(
        RefusedError,
      );
    });

    it('refuses a line into a thread that does not exist, the same way', async () => {
      const nowhere = '00000000-0000-4000-8000-000000000000';
      await expect(db.asPerson(bob, (tx) => addLine(tx, { threadId: nowhere, person: bob, who: 'person', text: 'Hello?', clientId: 'n1' }))).rejects.toBeInstanceOf(RefusedError);
      await expect(db.asPerson(bob, (tx) => addLine(tx, { threadId: 'not-a-uuid', person: bob, who: 'person', text: 'Hello?', clientId: 'n2' }))).rejects.toBeInstanceOf(RefusedError);
    });

    it("refuses a thread, or a line in one's own thread, in somebody else's name", async () => {
      await expect(db.asPerson(bob, (tx) => createThread(tx, { person: ana, bot: 'demo' }))).rejects.toBeInstanceOf(RefusedError);
      const bobThread = await db.asPerson(bob, (tx) => createThread(tx, { person: bob, bot: 'demo' }));
      await expect(db.asPerson(bob, (tx) => addLine(tx, { threadId: bobThread.id, person: ana, who: 'person', text: 'In her name.', clientId: 'x1' }))).rejects.toBeInstanceOf(
        RefusedError,
      );
    });

    it("deletes none of another person's threads or memories", async () => {
      expect(await db.asPerson(bob, (tx) => deleteThread(tx, anaThread))).toBe(false);
      expect(await db.asPerson(bob, (tx) => forgetMemory(tx, anaMemory))).toBe(false);
      const raw = await db.asPerson(bob, async (tx) => ({
        threads: (await tx.query('delete from threads where person = $1 returning id', [ana])).rows,
        memories: (await tx.query('delete from memories where person = $1 returning id', [ana])).rows,
      }));
      expect(raw).toEqual({ threads: [], memories: [] });
      expect(await db.asPerson(ana, (tx) => listLines(tx, anaThread))).toHaveLength(1);
      expect(await db.asPerson(ana, (tx) => listMemories(tx, { bot: 'demo' }))).toHaveLength(1);
    });

    it("neither reads another person's forgotten digests nor writes one in their name", async () => {
      await db.asServer((tx) => tx.query("insert into forgotten (person, bot, digest) values ($1, 'demo', sha256('x'::bytea))", [ana]));
      expect((await db.asPerson(bob, (tx) => tx.query('select digest from forgotten'))).rows).toEqual([]);
      expect((await db.asPerson(ana, (tx) => tx.query('select digest from forgotten'))).rows).toHaveLength(1);
      await expect(db.asPerson(bob, (tx) => tx.query("insert into forgotten (person, bot, digest) values ($1, 'demo', sha256('y'::bytea))", [ana]))).rejects.toBeInstanceOf(RefusedError);
      await expect(db.asPerson(ana, (tx) => tx.query('delete from forgotten'))).rejects.toBeInstanceOf(RefusedError);
    });

    it('refuses every update of lines, threads and memories — nobody edits what was said', async () => {
      for (const sql of [
        "update lines set text = 'edited' where id = $1",
        "update threads set bot = 'other' where id = $1",
        "update memories set text = 'edited' where id = $1",
        'delete from lines where id = $1',
      ]) {
        for (const [person, id] of [
          [ana, anaLine],
          [bob, anaLine],
        ] as const) {
          const target = sql.includes('threads') ? anaThread : sql.includes('memories') ? anaMemory : id;
          await expect(db.asPerson(person, (tx) => tx.query(sql, [target]))).rejects.toBeInstanceOf(RefusedError);
        }
      }
    });

    it('refuses a memory written by a person, even in their own name — only the server writes memories', async () => {
      await expect(db.asPerson(ana, (tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'You promised me a pony.', embedder: 'hash-v1', embedding: axis(1) }))).rejects.toBeInstanceOf(
        RefusedError,
      );
      await expect(db.asPerson(bob, (tx) => rememberLine(tx, { person: ana, bot: 'demo', text: 'You promised me a pony.', embedder: 'hash-v1', embedding: axis(1) }))).rejects.toBeInstanceOf(
        RefusedError,
      );
    });

    it('refuses usage and reservations written by a person', async () => {
      await expect(
        db.asPerson(bob, (tx) => recordUsage(tx, { person: bob, bot: 'demo', provider: 'x', model: 'y', promptTokens: 0, completionTokens: 0, costUsd: 0, startedAt: new Date() })),
      ).rejects.toBeInstanceOf(RefusedError);
      await expect(db.asPerson(bob, (tx) => reserveAnswer(tx, { person: bob, bot: 'demo', limits: {}, now: new Date() }))).rejects.toBeInstanceOf(RefusedError);
    });

    it("refuses to settle another person's reservation with usage in one's own name", async () => {
      const admitted = await db.asServer((tx) => reserveAnswer(tx, { person: ana, bot: 'demo', limits: {}, now: new Date() }));
      if (!admitted.ok) throw new Error('an answer with no limits was refused');
      await expect(
        db.asServer((tx) =>
          recordUsage(tx, { reservationId: admitted.reservationId, person: bob, bot: 'demo', provider: 'x', model: 'y', promptTokens: 0, completionTokens: 0, costUsd: 0, startedAt: new Date() }),
        ),
      ).rejects.toBeInstanceOf(RefusedError);
    });
  });

  describe('the transaction', () => {
    it('forgets the person and the role when it ends, so the next one starts as the server again', async () => {
      await db.asPerson(ana, (tx) => tx.query('select 1'));
      const after = await db.asServer(async (tx) => (await tx.query<{ who: string; person: string | null }>("select current_user as who, current_setting('app.person', true) as person")).rows[0]);
      expect(after?.who).not.toBe('confab_person');
      expect(after?.person ?? '').toBe('');
    });

    it('refuses to run as nobody', async () => {
      await expect(db.asPerson('', (tx) => tx.query('select 1'))).rejects.toThrow(TypeError);
    });

    it('rolls back everything when the function throws', async () => {
      const carol = somebody('carol');
      await expect(
        db.asPerson(carol, async (tx) => {
          await createThread(tx, { person: carol, bot: 'demo' });
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect((await db.asServer((tx) => tx.query('select id from threads where person = $1', [carol]))).rows).toEqual([]);
    });
  });
});
