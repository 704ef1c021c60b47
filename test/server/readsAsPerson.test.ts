/**
 * The reads on the way to an answer's first token — the conversation's recent apps (executor), past
 * questions and recall (memory context), the checkpoint — run as the grant's person under
 * row level security: each goes through `asPerson` for that person and nothing else, and under it a
 * statement that named somebody else would still read none of their rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/db/database';
import type { Queryable } from '../../server/db/queryable';
import { addLine, pastQuestions } from '../../server/db/lines';
import { createThread } from '../../server/db/threads';
import { recall, recallExactly, rememberLine } from '../../server/db/memories';
import { keepCheckpoint, readCheckpoint } from '../../server/db/presence';
import { memoryContext } from '../../server/memory/context';
import { hashEmbedder } from '../../server/memory/embed';
import { checkpoints } from '../../server/presence/checkpoints';
import { createExecutor } from '../../server/verbs/executor';
import { createRegistry } from '../../server/verbs/registry';
import { testApps } from '../helpers/testApps';
import { DB_TEST_MS, OPENING_MS, axis, openMemoryDatabase, somebody } from './db/fixtures';

describe('reads on the way to the first token run as the person', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  beforeAll(async () => {
    db = await openMemoryDatabase();
  }, OPENING_MS);
  afterAll(() => db.close());

  /** `db` noting each transaction or read it opens, and as whom; only `asPerson` is let through. */
  function noted(opened: string[]): Database {
    return {
      asPerson: (person, fn) => {
        opened.push(`person ${person}`);
        return db.asPerson(person, fn);
      },
      asServer: () => Promise.reject(new Error('asServer was used')),
      readAsServer: () => Promise.reject(new Error('readAsServer was used')),
      close: () => Promise.resolve(),
    };
  }

  it('opens nothing but the grant’s person’s transaction for recent apps, past questions, recall and the checkpoint', async () => {
    const ana = somebody();
    const opened: string[] = [];
    const spy = noted(opened);
    const executor = createExecutor({ registry: createRegistry(testApps), db: spy, services: { embedder: hashEmbedder }, clock: Date.now, log: () => undefined });
    await executor.recentApps({ person: ana, bot: 'demo', via: 'model', timeZone: 'UTC' }, 'conversation-1');
    await memoryContext(spy, hashEmbedder)({ person: ana, bot: 'demo', memory: 'person+recall', messages: [{ role: 'user', content: 'what is my sister called' }] });
    await checkpoints({ db: spy, clock: Date.now }).latest(ana, 'demo', 'conversation-1');
    // Recent apps; past questions and recall, side by side; the checkpoint.
    expect(opened).toEqual([`person ${ana}`, `person ${ana}`, `person ${ana}`, `person ${ana}`]);
  });

  it('reads none of another person’s rows under a person’s transaction, even when the statement names them', async () => {
    const ana = somebody();
    const bob = somebody();
    await db.asServer((tx) => rememberLine(tx, { person: bob, bot: 'demo', text: "Bob's secret", embedder: 'hash-v1', embedding: axis(0) }));
    await db.asPerson(bob, async (tx) => {
      const thread = await createThread(tx, { person: bob, bot: 'demo' });
      await addLine(tx, { threadId: thread.id, person: bob, who: 'person', text: 'What does Bob ask?', clientId: 'line-1' });
      await tx.query("insert into verb_calls (person, bot, verb, app, conversation, input_digest) values ($1, 'demo', 'tally.add', 'tally', 'conversation-1', 'x')", [bob]);
      await keepCheckpoint(tx, bob, 'demo', 'conversation-1', "Person: Bob's line", Date.now());
    });
    const named = { person: bob, bot: 'demo', embedder: 'hash-v1', embedding: axis(0), limit: 5, maxDistance: 1 };
    // As the server, each statement names Bob and finds his rows…
    const asServer = await db.asServer(async (tx) => reads(tx, bob, named));
    expect(asServer).toEqual({ exact: ["Bob's secret"], index: ["Bob's secret"], asked: ['What does Bob ask?'], apps: ['tally'], checkpoint: "Person: Bob's line" });
    // …as Ana, the very same statements find nothing of his.
    const asAna = await db.asPerson(ana, async (tx) => reads(tx, bob, named));
    expect(asAna).toEqual({ exact: [], index: [], asked: [], apps: [], checkpoint: null });
    expect(await db.asPerson(ana, (tx) => tx.query<{ role: string }>('select current_user::text as role'))).toEqual({ rows: [{ role: 'confab_person' }] });
  });
});

/** The four reads' statements as the door makes them, naming `person`. */
async function reads(tx: Queryable, person: string, query: Parameters<typeof recall>[1]) {
  const exact = (await recallExactly(tx, query)).recalled.map((m) => m.text);
  const index = (await recall(tx, query)).map((m) => m.text);
  const asked = await pastQuestions(tx, { person, bot: 'demo', limit: 20 });
  const { rows } = await tx.query<{ app: string }>('select app from verb_calls where person = $1 and bot = $2 and conversation = $3 group by app', [person, 'demo', 'conversation-1']);
  const checkpoint = (await readCheckpoint(tx, person, 'demo', 'conversation-1'))?.summary ?? null;
  return { exact, index, asked, apps: rows.map((r) => r.app), checkpoint };
}
