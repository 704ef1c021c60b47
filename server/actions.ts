/**
 * The person's answer to a pending action: `POST /api/actions/<id>/approve` or `/deny`, under their
 * own session (cookie or Supabase token) — the only way a `confirm` verb ever runs. No model output,
 * argument or request field can approve: approving takes the person's session and a pending action
 * of theirs that is still waiting, and is spent once.
 */
import { Hono } from 'hono';
import type { ActionSettled } from '../src/core/acting/protocol';
import type { Database } from './db/database';
import type { PersonEnv } from './person';
import { Approval } from './verbs/approval';
import type { Executor } from './verbs/executor';
import { answerAction } from './verbs/pendingActions';

export const DENIED_SENTENCE = "Okay, I've left it as it was.";
export const EXPIRED_SENTENCE = 'That question is no longer open, so nothing was changed. Ask again if you still want it.';
export const DONE_SENTENCE = 'Done.';

export interface ActionDeps {
  db: Database;
  executor: Executor;
  clock: () => number;
}

export function actionRoutes({ db, executor, clock }: ActionDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();

  routes.post('/actions/:id/approve', async (c) => {
    const person = c.get('person');
    const action = await db.asPerson(person, (tx) => answerAction(tx, c.req.param('id'), 'approved', clock()));
    if (action === undefined) return c.json<ActionSettled>({ outcome: 'expired', sentence: EXPIRED_SENTENCE });
    const caller = { person, bot: action.bot, via: 'person' as const, timeZone: action.timeZone };
    const outcome = await executor.execute({
      verb: action.verb,
      input: action.input,
      caller,
      approval: Approval.issue(action.id, action.verb),
      // The action is answered once, so its key is its own: a retried approval cannot run it twice.
      idempotencyKey: `action-${action.id}`,
      ...(action.conversationKey === null ? {} : { conversationKey: action.conversationKey }),
    });
    if (!outcome.ok) return c.json<ActionSettled>({ outcome: 'failed', sentence: outcome.error.sentence });
    const narration = await executor.narrate({ verb: action.verb, input: outcome.input, output: outcome.output }, caller);
    return c.json<ActionSettled>({ outcome: 'done', sentence: [DONE_SENTENCE, ...narration].join(' ') });
  });

  routes.post('/actions/:id/deny', async (c) => {
    const action = await db.asPerson(c.get('person'), (tx) => answerAction(tx, c.req.param('id'), 'denied', clock()));
    return c.json<ActionSettled>(action === undefined ? { outcome: 'expired', sentence: EXPIRED_SENTENCE } : { outcome: 'denied', sentence: DENIED_SENTENCE });
  });

  return routes;
}
