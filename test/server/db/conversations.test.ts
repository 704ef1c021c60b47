import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import type { Queryable } from '../../../server/db/queryable';
import { addLine, listLines, pastQuestions } from '../../../server/db/lines';
import type { Speaker } from '../../../server/db/lines';
import { forgetMemory, listMemories, rememberLine } from '../../../server/db/memories';
import { TITLE_MAX_CHARS, createThread, deleteThread, listThreads, titleOf } from '../../../server/db/threads';
import { hashEmbedder } from '../../../server/memory/embed';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from './fixtures';

describe('threads and lines', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  let clientIds = 0;
  const say = (tx: Queryable, person: string, threadId: string, who: Speaker, text: string) =>
    addLine(tx, { threadId, person, who, text, clientId: `c${(clientIds += 1)}` });

  it('lists only threads the person has said something in, titled with the first thing they said', async () => {
    const ana = somebody();
    const listed = await db.asPerson(ana, async (tx) => {
      await createThread(tx, { person: ana, bot: 'demo' });
      const greeted = await createThread(tx, { person: ana, bot: 'demo' });
      await say(tx, ana, greeted.id, 'assistant', 'Hello! What shall we talk about?');
      const spoken = await createThread(tx, { person: ana, bot: 'demo' });
      await say(tx, ana, spoken.id, 'assistant', 'Hello! What shall we talk about?');
      await say(tx, ana, spoken.id, 'person', '  My sister   Ana\nis visiting next week.');
      await say(tx, ana, spoken.id, 'person', 'Where should we eat?');
      return { spoken: spoken.id, threads: await listThreads(tx, { bot: 'demo' }) };
    });
    expect(listed.threads.map((t) => [t.id, t.title])).toEqual([[listed.spoken, 'My sister Ana']]);
  });

  it('lists the most recently spoken-in thread first, one bot at a time', async () => {
    const ana = somebody();
    const ids = await db.asPerson(ana, async (tx) => {
      const first = await createThread(tx, { person: ana, bot: 'demo' });
      const second = await createThread(tx, { person: ana, bot: 'demo' });
      const elsewhere = await createThread(tx, { person: ana, bot: 'coach' });
      await say(tx, ana, first.id, 'person', 'First.');
      await say(tx, ana, second.id, 'person', 'Second.');
      await say(tx, ana, elsewhere.id, 'person', 'To the coach.');
      await say(tx, ana, first.id, 'assistant', 'Back to the first.');
      return { first: first.id, second: second.id, elsewhere: elsewhere.id };
    });
    const demo = await db.asPerson(ana, (tx) => listThreads(tx, { bot: 'demo' }));
    expect(demo.map((t) => t.id)).toEqual([ids.first, ids.second]);
    const coach = await db.asPerson(ana, (tx) => listThreads(tx, { bot: 'coach' }));
    expect(coach.map((t) => t.title)).toEqual(['To the coach.']);
  });

  it('keeps lines in the order they were said, with who said them and whether they were cut off', async () => {
    const ana = somebody();
    const lines = await db.asPerson(ana, async (tx) => {
      const thread = await createThread(tx, { person: ana, bot: 'demo' });
      for (let i = 0; i < 5; i++) await say(tx, ana, thread.id, i % 2 === 0 ? 'person' : 'assistant', `Line ${i}`);
      await addLine(tx, { threadId: thread.id, person: ana, who: 'assistant', text: 'I was say', clientId: 'cut', interrupted: true });
      return listLines(tx, thread.id);
    });
    expect(lines.map((l) => [l.who, l.text, l.interrupted])).toEqual([
      ['person', 'Line 0', false],
      ['assistant', 'Line 1', false],
      ['person', 'Line 2', false],
      ['assistant', 'Line 3', false],
      ['person', 'Line 4', false],
      ['assistant', 'I was say', true],
    ]);
  });

  it('answers the line already saved when the same clientId comes again, without a duplicate', async () => {
    const ana = somebody();
    const { thread, first, again } = await db.asPerson(ana, async (tx) => {
      const t = await createThread(tx, { person: ana, bot: 'demo' });
      const line = { threadId: t.id, person: ana, who: 'person' as const, text: 'Only once.', clientId: 'retry-me' };
      return { thread: t.id, first: await addLine(tx, line), again: await addLine(tx, { ...line, text: 'Only once, edited.' }) };
    });
    expect(again).toEqual(first);
    expect(await db.asPerson(ana, (tx) => listLines(tx, thread))).toHaveLength(1);
  });

  it('dedupes a retry that arrives in a later transaction too, and lets two threads use one clientId', async () => {
    const ana = somebody();
    const [a, b] = await db.asPerson(ana, (tx) => Promise.all([createThread(tx, { person: ana, bot: 'demo' }), createThread(tx, { person: ana, bot: 'demo' })]));
    const line = (threadId: string) => ({ threadId, person: ana, who: 'person' as const, text: 'Hi.', clientId: 'same' });
    const first = await db.asPerson(ana, (tx) => addLine(tx, line(a.id)));
    const retried = await db.asPerson(ana, (tx) => addLine(tx, line(a.id)));
    const other = await db.asPerson(ana, (tx) => addLine(tx, line(b.id)));
    expect(retried.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
  });

  it('deletes a thread with its lines, and says so only once', async () => {
    const ana = somebody();
    const thread = await db.asPerson(ana, async (tx) => {
      const t = await createThread(tx, { person: ana, bot: 'demo' });
      await say(tx, ana, t.id, 'person', 'Forget this conversation.');
      return t.id;
    });
    expect(await db.asPerson(ana, (tx) => deleteThread(tx, thread))).toBe(true);
    expect(await db.asPerson(ana, (tx) => deleteThread(tx, thread))).toBe(false);
    expect(await db.asPerson(ana, (tx) => deleteThread(tx, 'not-a-uuid'))).toBe(false);
    expect((await db.asServer((tx) => tx.query('select id from lines where thread_id = $1', [thread]))).rows).toEqual([]);
  });

  it("gives what the person asked a bot before, across threads, oldest first and bounded, never another's", async () => {
    const ana = somebody();
    const bob = somebody();
    await db.asPerson(ana, async (tx) => {
      const one = await createThread(tx, { person: ana, bot: 'demo' });
      const two = await createThread(tx, { person: ana, bot: 'demo' });
      const coach = await createThread(tx, { person: ana, bot: 'coach' });
      await say(tx, ana, one.id, 'person', 'Q1');
      await say(tx, ana, one.id, 'assistant', 'A1');
      await say(tx, ana, two.id, 'person', 'Q2');
      await say(tx, ana, coach.id, 'person', 'To the coach');
      await say(tx, ana, one.id, 'person', 'Q3');
    });
    await db.asPerson(bob, async (tx) => {
      const t = await createThread(tx, { person: bob, bot: 'demo' });
      await say(tx, bob, t.id, 'person', "Bob's question");
    });
    expect(await db.asServer((tx) => pastQuestions(tx, { person: ana, bot: 'demo', limit: 10 }))).toEqual(['Q1', 'Q2', 'Q3']);
    expect(await db.asServer((tx) => pastQuestions(tx, { person: ana, bot: 'demo', limit: 2 }))).toEqual(['Q2', 'Q3']);
    expect(await db.asPerson(ana, (tx) => pastQuestions(tx, { person: bob, bot: 'demo', limit: 10 }))).toEqual([]);
    await expect(db.asServer((tx) => pastQuestions(tx, { person: ana, bot: 'demo', limit: 0 }))).rejects.toThrow(RangeError);
  });

  it('leaves out of the earlier questions the words the person told that bot to forget, and only those', async () => {
    const ana = somebody();
    const bob = somebody();
    const secret = 'My bank PIN is 4321.';
    for (const person of [ana, bob]) {
      await db.asPerson(person, async (tx) => {
        const t = await createThread(tx, { person, bot: 'demo' });
        await say(tx, person, t.id, 'person', secret);
        await say(tx, person, t.id, 'person', 'What is the weather?');
      });
    }
    const embedding = await hashEmbedder.embed(secret);
    await db.asServer((tx) => rememberLine(tx, { person: ana, bot: 'demo', text: secret, embedder: 'hash-v1', embedding }));
    const [memory] = await db.asPerson(ana, (tx) => listMemories(tx, { bot: 'demo' }));
    expect(await db.asPerson(ana, (tx) => forgetMemory(tx, memory?.id ?? ''))).toBe(true);
    expect(await db.asServer((tx) => pastQuestions(tx, { person: ana, bot: 'demo', limit: 10 }))).toEqual(['What is the weather?']);
    expect(await db.asServer((tx) => pastQuestions(tx, { person: bob, bot: 'demo', limit: 10 }))).toEqual([secret, 'What is the weather?']);
    // The words themselves are kept nowhere but in the person's own transcript.
    const kept = await db.asServer((tx) => tx.query<{ n: number }>('select count(*)::int as n from forgotten where person = $1', [ana]));
    expect(kept.rows[0]?.n).toBe(1);
    expect(JSON.stringify((await db.asServer((tx) => tx.query('select * from forgotten where person = $1', [ana]))).rows)).not.toContain('PIN');
  });
});

describe('a title', () => {
  it('is the first non-blank line, spaces collapsed', () => {
    expect(titleOf('\n\n   What is   the time?\nAnd the date?')).toBe('What is the time?');
  });

  it('is cut at a word to fit, with an ellipsis', () => {
    const said = 'Tell me everything you know about the history of the lighthouse at the end of the harbour road, please';
    const title = titleOf(said);
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
    expect(title).toBe('Tell me everything you know about the history of the lighthouse at the end of…');
  });

  it('cuts a single endless word rather than leaving nothing', () => {
    expect(titleOf('a'.repeat(200))).toBe(`${'a'.repeat(TITLE_MAX_CHARS - 1)}…`);
  });

  it('never splits an emoji', () => {
    const title = titleOf(`${'x'.repeat(TITLE_MAX_CHARS - 2)}😀😀😀`);
    expect(title).toBe(`${'x'.repeat(TITLE_MAX_CHARS - 2)}…`);
  });
});
