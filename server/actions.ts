/**
 * The person's answer to a pending action: `POST /api/actions/<id>/approve` or `/deny`, under their
 * own session (cookie or Supabase token) — the only way a `confirm` verb ever runs. No model output,
 * argument or request field can approve: approving takes the person's session and a pending action
 * of theirs that is still waiting, and is spent once.
 */
import { Hono } from 'hono';
import type { ActionSettled, PendingActionEvent } from '../common/acting/protocol';
import type { RunAnswers } from './runs/runService';
import type { Database } from './db/database';
import type { PersonEnv } from './person';
import { Approval } from './verbs/approval';
import { heardSentence } from './verbs/errors';
import type { Executor } from './verbs/executor';
import { actionAsked, answerAction, waitingRunActions } from './verbs/pendingActions';
import type { PendingAction } from './verbs/pendingActions';
import { shippedWords } from './words/loadWords';
import { refusal } from './words/requestWords';
import { say } from './words/words';
import type { Words } from './words/words';

export interface ActionDeps {
  db: Database;
  executor: Executor;
  clock: () => number;
  /** Runs that asked (the confirmation gate of work that outlives a turn): told the answer, and asked whether they still ask. */
  runs?: RunAnswers;
  bots?: ReadonlyMap<string, unknown>;
  /** What `bot` says in `language` (the question's; null: the bot's own); default: the shipped words. */
  wordsFor?: (bot: string, language: string | null) => Words;
}

export function actionRoutes({ db, executor, clock, runs, bots, wordsFor = (_bot, language) => shippedWords().wordsIn(language ?? 'en') }: ActionDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();
  // Said in the language the question was asked in; one that is not the person's has none: English.
  const noLongerOpen = async (person: string, id: string): Promise<ActionSettled> => {
    const asked = await db.asPerson(person, (tx) => actionAsked(tx, id));
    return { outcome: 'expired', sentence: say(asked === undefined ? shippedWords().wordsIn('en') : wordsFor(asked.bot, asked.language), 'acting.no-longer-open') };
  };

  // The questions runs of the person's are waiting on with this bot: a page asks them when it becomes the active one.
  routes.get('/actions/waiting', async (c) => {
    const bot = c.req.query('bot') ?? '';
    if (bots !== undefined && !bots.has(bot)) throw refusal(c, 404, 'requests.no-bot', { bot });
    const waiting = await db.asPerson(c.get('person'), (tx) => waitingRunActions(tx, bot, clock()));
    return c.json({ actions: waiting.map((a): PendingActionEvent => ({ id: a.id, verb: a.verb, question: a.question, expiresAtMs: a.expiresAtMs })) });
  });

  routes.post('/actions/:id/approve', async (c) => {
    const person = c.get('person');
    const action = await db.asPerson(person, (tx) => answerAction(tx, c.req.param('id'), 'approved', clock()));
    if (action === undefined) return c.json(await noLongerOpen(person, c.req.param('id')));
    // A run's question closes when the run was cancelled meanwhile: nothing is done.
    if (action.run != null && !(await runs?.stillAsked(action))) return c.json(await noLongerOpen(person, action.id));
    // The answer is said in the language the question was asked in, the app's consequence too.
    const caller = { person, bot: action.bot, via: 'person' as const, kind: c.get('personKind'), timeZone: action.timeZone, ...(action.language == null ? {} : { language: action.language }) };
    const outcome = await executor.execute({
      verb: action.verb,
      input: action.input,
      caller,
      approval: Approval.issue(action.id, action.verb),
      // The action is answered once, so its key is its own: a retried approval cannot run it twice.
      // A turn's question is keyed by what it asked about (turn, verb, target), so even two copies
      // of it — kept before questions were one per target — run once: the second yes replays the first.
      idempotencyKey: keyOfAnswer(action),
      ...(action.conversationKey === null ? {} : { conversationKey: action.conversationKey }),
    });
    if (action.run != null) {
      await runs?.answered(action, outcome.ok ? { ok: true, output: outcome.output } : { ok: false, error: outcome.error.code, message: outcome.error.sentence }, `action-${action.id}`);
    }
    if (!outcome.ok) return c.json<ActionSettled>({ outcome: 'failed', sentence: heardSentence(outcome.error, wordsFor(action.bot, action.language ?? null)) });
    const narration = await executor.narrate({ verb: action.verb, input: outcome.input, output: outcome.output }, caller);
    return c.json<ActionSettled>({ outcome: 'done', sentence: [say(wordsFor(action.bot, action.language ?? null), 'acting.done'), ...narration].join(' ') });
  });

  routes.post('/actions/:id/deny', async (c) => {
    const action = await db.asPerson(c.get('person'), (tx) => answerAction(tx, c.req.param('id'), 'denied', clock()));
    if (action === undefined) return c.json(await noLongerOpen(c.get('person'), c.req.param('id')));
    const leftAsItWas = say(wordsFor(action.bot, action.language ?? null), 'acting.left-as-it-was');
    if (action.run != null) await runs?.answered(action, { ok: false, error: 'denied', message: leftAsItWas }, null);
    return c.json<ActionSettled>({ outcome: 'denied', sentence: leftAsItWas });
  });

  return routes;
}

/** The write key an approved action runs under: its target's when a turn asked it, else its own id's. */
function keyOfAnswer(action: PendingAction): string {
  return action.target == null ? `action-${action.id}` : `action-${action.target.slice(0, 40)}`;
}
