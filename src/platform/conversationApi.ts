/**
 * The page's calls to its server for one person's side of a conversation: the grant, the bots, the
 * threads and their lines, the memories, the person's answer to an action waiting for their yes.
 * Every answer is checked for the shape the page relies on. A failure is an `HttpError`: an
 * unreachable server is tried again later (lines wait in the outbox), a refusal is said.
 */
import { isPendingAction } from '../../common/acting/protocol';
import type { PendingActionEvent } from '../../common/acting/protocol';
import type { ActionSettled } from '../../common/acting/protocol';
import type { PublicBot } from '../../common/bot';
import { isChoices } from '../../common/conversation/choices';
import type { Choices } from '../../common/conversation/choices';
import { isRecord } from '../../common/isRecord';
import { failureOf, HttpError, httpClient, unreadableAnswer } from './http';
import type { Say } from './http';
import { sayWord } from './words';

// The outbox and the page ask this of a failed call (see http.ts for which failures pass).
export { retryable } from './http';

/** A grant for talking to one bot, from `POST /api/start`. */
export interface Start {
  grant: string;
  /** When the grant stops working, ms since the epoch. */
  expiresAt: number;
  bot: PublicBot;
}

export interface ThreadSummary {
  id: string;
  bot: string;
  /** The first thing the person said, trimmed to one line. */
  title: string;
  createdAt: string;
  /** When its newest line was said. */
  lastLineAt: string;
}

export interface SavedLine {
  id: string;
  threadId: string;
  who: 'person' | 'assistant';
  text: string;
  clientId: string;
  interrupted: boolean;
  /** The choices an answer ended in, kept apart from its words; null (or, from an older server, absent) when none. */
  choices?: Choices | null;
  /** Which of them was taken; null while none is. */
  taken?: number | null;
  createdAt: string;
}

/** What pressing a choice came to: taken, with the words the offer said; or gone, another press having taken `taken` first. */
export type Chosen = { outcome: 'taken'; words: string } | { outcome: 'gone'; taken: number };

interface LineToSave {
  who: 'person' | 'assistant';
  text: string;
  /** The page's own id for the line: saving it twice keeps one. */
  clientId: string;
  /** The assistant was talked over; `text` is what was spoken. */
  interrupted?: boolean;
}

export interface Memory {
  id: string;
  bot: string;
  text: string;
  createdAt: string;
}

export interface ConversationApi {
  start(bot: string): Promise<Start>;
  bots(): Promise<PublicBot[]>;
  createThread(bot: string): Promise<{ id: string }>;
  threads(bot: string): Promise<ThreadSummary[]>;
  lines(threadId: string): Promise<SavedLine[]>;
  /**
   * Keeps one line. `keepalive`: the request outlives the page (sent as it closes or reloads); the
   * browser caps such a body at 64 KB, which a line never reaches.
   */
  addLine(threadId: string, line: LineToSave, options?: { keepalive?: boolean }): Promise<SavedLine>;
  forgetThread(threadId: string): Promise<void>;
  memories(bot: string): Promise<Memory[]>;
  forgetMemory(memoryId: string): Promise<void>;
  /** The words the person uses with the bot's apps (their lists' names), for the recogniser to expect. */
  phrases(bot: string): Promise<string[]>;
  /**
   * The person's answer to a pending action: `POST /api/actions/<id>/approve` (`approve`) or
   * `/deny`. Answers what came of it, with the sentence to say.
   */
  settleAction(actionId: string, approve: boolean): Promise<ActionSettled>;
  /** The questions the person's runs with `bot` wait on, to be asked again on this visit. */
  waitingActions(bot: string): Promise<PendingActionEvent[]>;
  /** Takes choice `choice` of the offer `offer` (its line's id), pressed or said: `POST /api/choices`. */
  choose(offer: string, choice: number, via: 'press' | 'voice'): Promise<Chosen>;
}

/** How this client says what went wrong: what is unreachable is tried again, so it says so. */
const say: Say = (what, trouble) => {
  switch (trouble.kind) {
    case 'unreachable':
      return sayWord('page-server.unreachable-retried', { what });
    case 'answered':
      if (trouble.failure === 'unreachable') return sayWord('page-server.busy-retried', { what, status: trouble.status });
      return trouble.said === undefined ? sayWord('page-server.refused-status', { what, status: trouble.status }) : sayWord('page-server.refused', { what, said: trouble.said });
    case 'not-json':
    case 'misshapen':
      return unreadableAnswer(what, trouble.kind);
  }
};

/**
 * The API over `fetcher` (the global fetch, or one that adds the person's access token in Supabase
 * mode; the person cookie needs nothing).
 */
export function conversationApi(fetcher?: typeof fetch): ConversationApi {
  const http = httpClient(say, fetcher);
  return {
    async start(bot) {
      return http.json(sayWord('page-server.start'), '/api/start', { body: { bot } }, isStart);
    },
    async bots() {
      return (await http.json(sayWord('page-server.list-bots'), '/api/bots', {}, hasArray('bots', isPublicBot))).bots;
    },
    async createThread(bot) {
      return http.json(sayWord('page-server.keep-conversation'), '/api/threads', { body: { bot } }, hasId);
    },
    async threads(bot) {
      return (await http.json(sayWord('page-server.list-conversations'), `/api/threads?bot=${encodeURIComponent(bot)}`, {}, hasArray('threads', isThreadSummary))).threads;
    },
    async lines(threadId) {
      return (await http.json(sayWord('page-server.open-conversation'), `/api/threads/${encodeURIComponent(threadId)}/lines`, {}, hasArray('lines', isSavedLine))).lines;
    },
    async addLine(threadId, line, options = {}) {
      const call = options.keepalive === true ? { body: line, keepalive: true } : { body: line };
      return http.json(sayWord('page-server.save-line'), `/api/threads/${encodeURIComponent(threadId)}/lines`, call, isSavedLine);
    },
    async forgetThread(threadId) {
      await http.json(sayWord('page-server.forget-conversation'), `/api/threads/${encodeURIComponent(threadId)}`, { method: 'DELETE' });
    },
    async memories(bot) {
      return (await http.json(sayWord('page-server.list-memories'), `/api/memories?bot=${encodeURIComponent(bot)}`, {}, hasArray('memories', isMemory))).memories;
    },
    async phrases(bot) {
      const isText = (value: unknown): value is string => typeof value === 'string';
      return (await http.json(sayWord('page-server.read-phrases'), `/api/bots/${encodeURIComponent(bot)}/phrases`, {}, hasArray('phrases', isText))).phrases;
    },
    async forgetMemory(memoryId) {
      await http.json(sayWord('page-server.forget-memory'), `/api/memories/${encodeURIComponent(memoryId)}`, { method: 'DELETE' });
    },
    async waitingActions(bot) {
      return (await http.json(sayWord('page-server.read-waiting'), `/api/actions/waiting?bot=${encodeURIComponent(bot)}`, {}, hasArray('actions', isPendingAction))).actions;
    },
    async choose(offer, choice, via) {
      const what = sayWord('page-server.choose');
      const response = await http.send(what, '/api/choices', { body: { offer, choice, via } });
      const body: unknown = await response.json().catch(() => null);
      if (response.ok && isRecord(body) && typeof body.words === 'string') return { outcome: 'taken', words: body.words };
      // Gone is an answer, not a failure: the page says so and shows the one that was taken.
      if (response.status === 409 && isRecord(body) && typeof body.taken === 'number') return { outcome: 'gone', taken: body.taken };
      if (response.ok || response.status === 409) throw new HttpError(unreadableAnswer(what, 'misshapen'), { failure: 'refused', status: response.status });
      const said = isRecord(body) && typeof body.error === 'string' ? body.error : undefined;
      const failure = failureOf(response.status);
      throw new HttpError(say(what, { kind: 'answered', status: response.status, said, failure }), { failure, status: response.status, ...(said === undefined ? {} : { said }) });
    },
    async settleAction(actionId, approve) {
      const what = sayWord(approve ? 'page-server.approve' : 'page-server.deny');
      return http.json(what, `/api/actions/${encodeURIComponent(actionId)}/${approve ? 'approve' : 'deny'}`, { method: 'POST' }, isActionSettled);
    },
  };
}

const strings = (value: Record<string, unknown>, ...keys: string[]) => keys.every((key) => typeof value[key] === 'string');

function hasId(value: unknown): value is { id: string } {
  return isRecord(value) && strings(value, 'id');
}

function hasArray<K extends string, T>(key: K, item: (v: unknown) => v is T) {
  return (value: unknown): value is Record<K, T[]> => isRecord(value) && Array.isArray(value[key]) && (value[key] as unknown[]).every(item);
}

function isPublicBot(value: unknown): value is PublicBot {
  if (!isRecord(value) || !strings(value, 'slug', 'name', 'memory') || !Array.isArray(value.languages)) return false;
  const voice = value.voice;
  return isRecord(voice) && strings(voice, 'by', 'visual', 'language') && Array.isArray(voice.voices) && typeof voice.gapMs === 'number';
}

function isStart(value: unknown): value is Start {
  return isRecord(value) && typeof value.grant === 'string' && typeof value.expiresAt === 'number' && isPublicBot(value.bot);
}

function isThreadSummary(value: unknown): value is ThreadSummary {
  return isRecord(value) && strings(value, 'id', 'bot', 'title');
}

function isSavedLine(value: unknown): value is SavedLine {
  return (
    isRecord(value) &&
    strings(value, 'id', 'text', 'clientId') &&
    (value.who === 'person' || value.who === 'assistant') &&
    (value.choices === undefined || value.choices === null || isChoices(value.choices)) &&
    (value.taken === undefined || value.taken === null || typeof value.taken === 'number')
  );
}

const OUTCOMES: readonly string[] = ['done', 'denied', 'expired', 'failed'] satisfies ActionSettled['outcome'][];

function isActionSettled(value: unknown): value is ActionSettled {
  return isRecord(value) && typeof value.outcome === 'string' && OUTCOMES.includes(value.outcome) && typeof value.sentence === 'string';
}

function isMemory(value: unknown): value is Memory {
  return isRecord(value) && strings(value, 'id', 'text');
}
