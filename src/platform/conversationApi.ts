/**
 * The page's calls to its server for one person's side of a conversation: the grant, the bots, the
 * threads and their lines, the memories, the person's answer to an action waiting for their yes.
 * Every answer is checked for the shape the page relies on.
 *
 * A failure says which kind it is, because the page treats them differently: `unreachable` (no
 * network, the server down, a 5xx, 408 or 429) is worth trying again later — lines wait in the
 * outbox; `refused` (any other 4xx) will fail the same way every time and is said to the person.
 */
import type { ActionSettled } from '../core/acting/protocol';
import type { PublicBot } from '../core/bot';
import { isRecord } from '../core/isRecord';

/** How long one call may take before it counts as the server being unreachable. */
export const REQUEST_TIMEOUT_MS = 15_000;

/** Why a call failed: worth retrying later, or refused for good. */
export type ApiFailure = 'unreachable' | 'refused';

export class ConversationApiError extends Error {
  override readonly name = 'ConversationApiError';
  constructor(
    message: string,
    readonly failure: ApiFailure,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Whether a failure is worth retrying later (the server was unreachable or overloaded). */
export function retryable(error: unknown): boolean {
  return error instanceof ConversationApiError && error.failure === 'unreachable';
}

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
  createdAt: string;
}

export interface LineToSave {
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
  /**
   * The person's answer to a pending action: `POST /api/actions/<id>/approve` (`approve`) or
   * `/deny`. Answers what came of it, with the sentence to say.
   */
  settleAction(actionId: string, approve: boolean): Promise<ActionSettled>;
}

/**
 * The API over `fetcher` (the global fetch, or one that adds the person's access token in Supabase
 * mode; the person cookie needs nothing).
 */
export function conversationApi(fetcher: typeof fetch = (input, init) => fetch(input, init)): ConversationApi {
  async function call(what: string, path: string, init: { method?: string; body?: unknown; keepalive?: boolean } = {}): Promise<unknown> {
    let response: Response;
    try {
      response = await fetcher(path, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { accept: 'application/json', ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        credentials: 'same-origin',
        // A request that never answers would hold up every line queued behind it.
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        ...(init.keepalive === true ? { keepalive: true } : {}),
      });
    } catch (cause) {
      throw new ConversationApiError(`Confab’s server could not be reached to ${what}; it will be tried again when the connection is back.`, 'unreachable', undefined, { cause });
    }
    if (response.status === 204) return undefined;
    if (!response.ok) {
      const said = await errorSentence(response);
      const retry = response.status >= 500 || response.status === 408 || response.status === 429;
      const message = retry
        ? `Confab’s server could not ${what} just now (${response.status}); it will be tried again.`
        : `Confab’s server would not ${what}: ${said ?? `it answered ${response.status}`}`;
      throw new ConversationApiError(message, retry ? 'unreachable' : 'refused', response.status);
    }
    try {
      return await response.json();
    } catch (cause) {
      throw new ConversationApiError(`Confab’s server answered something that is not JSON when asked to ${what}; reload to get the matching page.`, 'refused', response.status, { cause });
    }
  }

  const shaped = <T>(what: string, value: unknown, check: (v: unknown) => v is T): T => {
    if (!check(value)) throw new ConversationApiError(`Confab’s server answered in a shape this page does not understand when asked to ${what}; reload to get the matching page.`, 'refused');
    return value;
  };

  return {
    async start(bot) {
      return shaped('start the conversation', await call('start the conversation', '/api/start', { body: { bot } }), isStart);
    },
    async bots() {
      const body = shaped('list the bots', await call('list the bots', '/api/bots'), hasArray('bots', isPublicBot));
      return body.bots;
    },
    async createThread(bot) {
      return shaped('keep a new conversation', await call('keep a new conversation', '/api/threads', { body: { bot } }), hasId);
    },
    async threads(bot) {
      const body = shaped('list your conversations', await call('list your conversations', `/api/threads?bot=${encodeURIComponent(bot)}`), hasArray('threads', isThreadSummary));
      return body.threads;
    },
    async lines(threadId) {
      const body = shaped('open that conversation', await call('open that conversation', `/api/threads/${encodeURIComponent(threadId)}/lines`), hasArray('lines', isSavedLine));
      return body.lines;
    },
    async addLine(threadId, line, options = {}) {
      const init = options.keepalive === true ? { body: line, keepalive: true } : { body: line };
      return shaped('save a line', await call('save a line', `/api/threads/${encodeURIComponent(threadId)}/lines`, init), isSavedLine);
    },
    async forgetThread(threadId) {
      await call('forget that conversation', `/api/threads/${encodeURIComponent(threadId)}`, { method: 'DELETE' });
    },
    async memories(bot) {
      const body = shaped('list what it remembers', await call('list what it remembers', `/api/memories?bot=${encodeURIComponent(bot)}`), hasArray('memories', isMemory));
      return body.memories;
    },
    async forgetMemory(memoryId) {
      await call('forget that memory', `/api/memories/${encodeURIComponent(memoryId)}`, { method: 'DELETE' });
    },
    async settleAction(actionId, approve) {
      const what = approve ? 'do what you confirmed' : 'leave it as it was';
      return shaped(what, await call(what, `/api/actions/${encodeURIComponent(actionId)}/${approve ? 'approve' : 'deny'}`, { method: 'POST' }), isActionSettled);
    },
  };
}

/** The server's `{ "error": "…" }` sentence, if it sent one. */
async function errorSentence(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.json();
    if (isRecord(body) && typeof body.error === 'string') return body.error;
    if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string') return body.error.message;
  } catch {
    // Not JSON: the status alone is said.
  }
  return undefined;
}

const strings = (value: Record<string, unknown>, ...keys: string[]) => keys.every((key) => typeof value[key] === 'string');

function hasId(value: unknown): value is { id: string } {
  return isRecord(value) && strings(value, 'id');
}

function hasArray<K extends string, T>(key: K, item: (v: unknown) => v is T) {
  return (value: unknown): value is Record<K, T[]> => isRecord(value) && Array.isArray(value[key]) && (value[key] as unknown[]).every(item);
}

export function isPublicBot(value: unknown): value is PublicBot {
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
  return isRecord(value) && strings(value, 'id', 'text', 'clientId') && (value.who === 'person' || value.who === 'assistant');
}

const OUTCOMES: readonly string[] = ['done', 'denied', 'expired', 'failed'] satisfies ActionSettled['outcome'][];

function isActionSettled(value: unknown): value is ActionSettled {
  return isRecord(value) && typeof value.outcome === 'string' && OUTCOMES.includes(value.outcome) && typeof value.sentence === 'string';
}

function isMemory(value: unknown): value is Memory {
  return isRecord(value) && strings(value, 'id', 'text');
}
