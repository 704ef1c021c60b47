import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import { listMemories, recall, registerEmbedder, rememberLine } from '../../../server/db/memories';
import { memoryContext } from '../../../server/memory/context';
import { EMBEDDING_WIDTH, hashEmbedder } from '../../../server/memory/embed';
import type { Embedder } from '../../../server/memory/embed';
import { reembedMemories } from '../../../server/memory/reembed';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from '../db/fixtures';

/** A 3-wide embedder by topic: family, food, anything else; nothing for a text without letters. */
const topics: Embedder = {
  name: 'topics-3d-v1',
  dimensions: 3,
  meaning: true,
  maxDistance: 0.2,
  embed(text) {
    const v = new Float32Array(EMBEDDING_WIDTH);
    if (!/[a-z]/i.test(text)) return Promise.resolve(v);
    v[/sister|sibling|brother/i.test(text) ? 0 : /tea|food|eat/i.test(text) ? 1 : 2] = 1;
    return Promise.resolve(v);
  },
};

describe('re-embedding on a change of embedder', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
    await db.asServer((tx) => registerEmbedder(tx, { name: topics.name, dimensions: 3 }));
  }, OPENING_MS);
  afterAll(() => db.close());

  it('moves every memory of another embedder into the new space, logging progress, and recall then finds them by meaning', async () => {
    const ana = somebody();
    const bob = somebody();
    const keep = async (person: string, text: string) =>
      db.asServer(async (tx) => rememberLine(tx, { person, bot: 'demo', text, embedder: hashEmbedder.name, embedding: await hashEmbedder.embed(text) }));
    await keep(ana, 'My sister is called Ana.');
    await keep(ana, 'I drink green tea every morning.');
    await keep(bob, 'My brother lives in Leeds.');
    await keep(ana, '1234 5678 90');
    const lines: { event: string; [field: string]: unknown }[] = [];
    let now = 0;
    const result = await reembedMemories(db, topics, { log: (line) => lines.push(line), batch: 2, progressEveryMs: 1, clock: () => (now += 1) });
    expect(result).toEqual({ total: 4, moved: 3, skipped: 1 });
    expect(lines.map((l) => l.event)).toEqual(['memory.reembed.started', 'memory.reembed.progress', 'memory.reembed.progress', 'memory.reembed.finished']);
    expect(lines[0]).toMatchObject({ to: topics.name, from: { 'hash-v1': 4 }, memories: 4 });
    expect(JSON.stringify(lines)).not.toMatch(/sister|tea|Leeds/);
    const listed = await db.asPerson(ana, (tx) => listMemories(tx, { bot: 'demo' }));
    expect(listed.map((m) => [m.text, m.embedder, m.dimensions])).toEqual([
      ['1234 5678 90', 'hash-v1', 384],
      ['I drink green tea every morning.', topics.name, 3],
      ['My sister is called Ana.', topics.name, 3],
    ]);
    // The memory context now recalls by the new space's meaning, at its width and floor.
    const context = memoryContext(db, topics);
    const notes = await context({ person: ana, bot: 'demo', memory: 'person+recall', messages: [{ role: 'user', content: "What's my sibling's name?" }] });
    expect(notes[0]?.content).toMatch(/My sister is called Ana\./);
    expect(notes[0]?.content).not.toMatch(/tea/);
    // Bob's memory is only in the new space now; nothing is left for the old one but what the new
    // one could not embed, which a second pass leaves where it is.
    const brother = await db.asServer(async (tx) => recall(tx, { person: bob, bot: 'demo', embedder: topics.name, embedding: await topics.embed('sibling'), limit: 5, maxDistance: 0.2 }));
    expect(brother.map((m) => m.text)).toEqual(['My brother lives in Leeds.']);
    expect(await db.asServer(async (tx) => recall(tx, { person: bob, bot: 'demo', embedder: hashEmbedder.name, embedding: await hashEmbedder.embed('My brother lives in Leeds.'), limit: 5, maxDistance: 2 }))).toEqual([]);
    expect(await reembedMemories(db, topics, { log: (line) => lines.push(line) })).toEqual({ total: 1, moved: 0, skipped: 1 });
  });

  it('stops when told to, leaving what moved moved and the batch it was embedding unmoved', async () => {
    const cleo = somebody();
    for (const text of ['My sister one', 'My sister two', 'My sister three']) {
      await db.asServer(async (tx) => rememberLine(tx, { person: cleo, bot: 'coach', text, embedder: hashEmbedder.name, embedding: await hashEmbedder.embed(text) }));
    }
    const stop = new AbortController();
    const lines: { event: string }[] = [];
    const slow: Embedder = {
      ...topics,
      embed(text, signal) {
        if (text === 'My sister two') stop.abort();
        return topics.embed(text, signal);
      },
    };
    const result = await reembedMemories(db, slow, { log: (line) => lines.push(line), batch: 1, signal: stop.signal });
    expect(result.moved).toBe(1);
    expect(lines.at(-1)?.event).toBe('memory.reembed.stopped');
    const moved = await db.asPerson(cleo, (tx) => listMemories(tx, { bot: 'coach' }));
    expect(moved.map((m) => [m.text, m.embedder])).toEqual([
      ['My sister three', hashEmbedder.name],
      ['My sister two', hashEmbedder.name],
      ['My sister one', topics.name],
    ]);
  });
});
