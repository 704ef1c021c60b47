/**
 * The person's answer to a pending action: `POST /api/actions/<id>/approve` or `/deny`, under their
 * own session (cookie or Supabase token) — the only way a `confirm` verb ever runs. No model output,
 * argument or request field can approve: approving takes the person's session and a pending action
 * of theirs that is still waiting, and is spent once.
 */
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ActionSettled, PendingActionEvent } from '../src/core/acting/protocol';
import type { RunAnswers } from './runs/runService';
import type { Database } from './db/database';
import type { PersonEnv } from './person';
import { Approval } from './verbs/approval';
import type { Executor } from './verbs/executor';
import { answerAction, waitingRunActions } from './verbs/pendingActions';

export const DENIED_SENTENCE = "Okay, I've left it as it was.";
export const EXPIRED_SENTENCE = 'That question is no longer open, so nothing was changed. Ask again if you still want it.';
export const DONE_SENTENCE = 'Done.';

export interface ActionDeps {
  db: Database;
  executor: Executor;
  clock: () => number;
  /** Runs that asked (the confirmation gate of work that outlives a turn): told the answer, and asked whether they still ask. */
  runs?: RunAnswers;
  bots?: ReadonlyMap<string, unknown>;
}

export function actionRoutes({ db, executor, clock, runs, bots }: ActionDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();

  // The questions runs of the person's are waiting on with this bot: a page asks them when it becomes the active one.
  routes.get('/actions/waiting', async (c) => {
    const bot = c.req.query('bot') ?? '';
    if (bots !== undefined && !bots.has(bot)) throw new HTTPException(404, { message: `There is no bot called "${bot}".` });
    const waiting = await db.asPerson(c.get('person'), (tx) => waitingRunActions(tx, bot, clock()));
    return c.json({ actions: waiting.map((a): PendingActionEvent => ({ id: a.id, verb: a.verb, question: a.question, expiresAtMs: a.expiresAtMs })) });
  });

  routes.post('/actions/:id/approve', async (c) => {
    const person = c.get('person');
    const action = await db.asPerson(person, (tx) => answerAction(tx, c.req.param('id'), 'approved', clock()));
    if (action === undefined) return c.json<ActionSettled>({ outcome: 'expired', sentence: EXPIRED_SENTENCE });
    // A run's question closes when the run was cancelled meanwhile: nothing is done.
    if (action.run != null && !(await runs?.stillAsked(action))) return c.json<ActionSettled>({ outcome: 'expired', sentence: EXPIRED_SENTENCE });
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
    if (action.run != null) {
      await runs?.answered(action, outcome.ok ? { ok: true, output: outcome.output } : { ok: false, error: outcome.error.code, message: outcome.error.sentence }, `action-${action.id}`);
    }
    if (!outcome.ok) return c.json<ActionSettled>({ outcome: 'failed', sentence: outcome.error.sentence });
    const narration = await executor.narrate({ verb: action.verb, input: outcome.input, output: outcome.output }, caller);
    return c.json<ActionSettled>({ outcome: 'done', sentence: [DONE_SENTENCE, ...narration].join(' ') });
  });

  routes.post('/actions/:id/deny', async (c) => {
    const action = await db.asPerson(c.get('person'), (tx) => answerAction(tx, c.req.param('id'), 'denied', clock()));
    if (action?.run != null) await runs?.answered(action, { ok: false, error: 'denied', message: DENIED_SENTENCE }, null);
    return c.json<ActionSettled>(action === undefined ? { outcome: 'expired', sentence: EXPIRED_SENTENCE } : { outcome: 'denied', sentence: DENIED_SENTENCE });
  });

  return routes;
}
