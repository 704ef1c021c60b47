import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetAbout } from '../../../server/apps/memory/remembered';
import type { Database } from '../../../server/db/database';
import { forgetMemory, listMemories } from '../../../server/db/memories';
import { memoryContext, memoryWriter } from '../../../server/memory/context';
import { hashEmbedder } from '../../../server/memory/embed';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

/** Recall reads the database on every turn: nothing a person forgot is recalled again, however it was forgotten. */
describe('recall from the database', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  const turn = (person: string, question: string) => ({ person, bot: 'demo', memory: 'person+recall' as const, messages: [{ role: 'user' as const, content: question }] });
  const toldNote = async (context: ReturnType<typeof memoryContext>, person: string, question: string) =>
    (await context(turn(person, question))).find((m) => m.role === 'system' && m.content.startsWith('Things this person told you'))?.content ?? '';

  it('stops recalling a memory as soon as another transaction forgets it, one at a time or by the memory app', async () => {
    const context = memoryContext(db, hashEmbedder);
    const remember = memoryWriter(db, hashEmbedder);
    const ana = somebody();
    await remember({ person: ana, bot: 'demo', memory: 'person+recall', question: 'My sister is called Ana' });
    await remember({ person: ana, bot: 'demo', memory: 'person+recall', question: 'My sister lives in Porto' });
    // Recalled first, so a server that kept a copy would have read it by now.
    expect(await toldNote(context, ana, 'where does my sister live')).toContain('My sister lives in Porto');
    const [porto] = (await db.asPerson(ana, (tx) => listMemories(tx, { bot: 'demo' }))).filter((m) => m.text.includes('Porto'));
    expect(await db.asPerson(ana, (tx) => forgetMemory(tx, porto?.id ?? ''))).toBe(true);
    const after = await toldNote(context, ana, 'where does my sister live');
    expect(after).not.toContain('Porto');
    expect(after).toContain('My sister is called Ana');
    await db.asPerson(ana, (tx) => forgetAbout(tx, { bot: 'demo', about: 'sister' }));
    expect(await toldNote(context, ana, 'where does my sister live')).toBe('');
  });

  it('says no change to a memory on confab_memories any more (migration 012 drops 010’s trigger and function)', async () => {
    const { rows } = await db.asServer((tx) =>
      tx.query<{ name: string }>(
        `select tgname::text as name from pg_trigger where tgname = 'memories_changed'
         union all select proname::text from pg_proc where proname = 'confab_memory_changed'`,
      ),
    );
    expect(rows).toEqual([]);
    const heard: string[] = [];
    const stop = await db.listen?.('confab_memories', { payload: (p) => heard.push(p) });
    const remember = memoryWriter(db, hashEmbedder);
    const ben = somebody();
    await remember({ person: ben, bot: 'demo', memory: 'person+recall', question: 'I keep bees on the roof' });
    await db.asPerson(ben, (tx) => forgetAbout(tx, { bot: 'demo', about: 'bees' }));
    // A notification is delivered as its transaction commits; one more round trip makes sure.
    await db.asServer((tx) => tx.query('select 1'));
    await stop?.();
    expect(stop).toBeDefined();
    expect(heard).toEqual([]);
  });
});
