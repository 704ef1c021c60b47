import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../server/db/database';
import { RefusedError } from '../../../server/db/errors';
import { answerAction, keepPending } from '../../../server/verbs/pendingActions';
import { DB_TEST_MS, OPENING_MS, openMemoryDatabase, somebody } from './fixtures';

/** What a person's transaction may change about an action held for them: its state, nothing else. */
describe('pending actions as the person', { timeout: DB_TEST_MS }, () => {
  let db: Database;
  let ana: string;

  beforeAll(async () => {
    db = await openMemoryDatabase();
    ana = somebody('ana');
  }, OPENING_MS);
  afterAll(async () => {
    await db.close();
  });

  const pend = () =>
    db.asPerson(ana, (tx) =>
      keepPending(tx, { person: ana, bot: 'demo', verb: 'lists.clear', input: { list: 'shopping' }, question: 'Clear your shopping list? Say yes or no.', timeZone: 'UTC', conversationKey: null, expiresAtMs: Date.now() + 60_000 }),
    );

  it('refuses a change to what the person was asked about, column by column', async () => {
    const action = await pend();
    for (const set of ["input = '{\"list\":\"everything\"}'::jsonb", "verb = 'memory.forget'", "question = 'Anything?'", "expires_at = now() + interval '1 year'", "person = 'someone'", "bot = 'other'"]) {
      await expect(db.asPerson(ana, (tx) => tx.query(`update pending_actions set ${set} where id = $1`, [action.id])), set).rejects.toBeInstanceOf(RefusedError);
    }
    const { rows } = await db.asPerson(ana, (tx) => tx.query<{ input: unknown; verb: string }>('select input, verb from pending_actions where id = $1', [action.id]));
    expect(rows).toEqual([{ input: { list: 'shopping' }, verb: 'lists.clear' }]);
  });

  it('still lets the person answer it, once', async () => {
    const action = await pend();
    expect(await db.asPerson(ana, (tx) => answerAction(tx, action.id, 'approved', Date.now()))).toEqual(action);
    expect(await db.asPerson(ana, (tx) => answerAction(tx, action.id, 'denied', Date.now()))).toBeUndefined();
    const { rows } = await db.asPerson(ana, (tx) => tx.query<{ state: string }>('select state from pending_actions where id = $1', [action.id]));
    expect(rows).toEqual([{ state: 'approved' }]);
  });
});
