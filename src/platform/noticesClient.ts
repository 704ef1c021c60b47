/**
 * The page's calls for notices (what an app asks the person's open page to say at a time), under
 * the person's session like the threads: the ones coming due for a bot, and the claim that this
 * page is the one saying one. Only the first claim of a notice wins, so of several open pages
 * exactly one says it.
 */
import type { Notice } from '../core/acting/protocol';
import { REQUEST_TIMEOUT_MS } from './conversationApi';

/** What came of claiming a notice: this page says it; another page already has; there is no such notice. */
export type NoticeClaim = 'mine' | 'taken' | 'gone';

/** Notices could not be had or claimed; worth trying again later. */
export class NoticesError extends Error {
  override readonly name = 'NoticesError';
  constructor(
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export interface NoticesClient {
  /** `GET /api/notices?bot=<slug>`: the undelivered notices overdue or due within a day. */
  due(bot: string): Promise<Notice[]>;
  /** `POST /api/notices/<id>/delivered`: 200 is `mine`, 409 `taken`, 404 `gone`. */
  claim(noticeId: string): Promise<NoticeClaim>;
}

/** Notices over `fetcher` (the global fetch, or one that adds the person's token in Supabase mode). */
export function noticesClient(fetcher: typeof fetch = (input, init) => fetch(input, init)): NoticesClient {
  async function call(what: string, path: string, method: 'GET' | 'POST'): Promise<Response> {
    try {
      return await fetcher(path, { method, headers: { accept: 'application/json' }, credentials: 'same-origin', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch (cause) {
      throw new NoticesError(`Confab’s server could not be reached to ${what}.`, undefined, { cause });
    }
  }

  return {
    async due(bot) {
      const response = await call('look for what is due', `/api/notices?bot=${encodeURIComponent(bot)}`, 'GET');
      if (!response.ok) throw new NoticesError(`Confab’s server could not look for what is due (${response.status}).`, response.status);
      let body: unknown;
      try {
        body = await response.json();
      } catch (cause) {
        throw new NoticesError('Confab’s server answered something that is not JSON when asked what is due.', response.status, { cause });
      }
      const notices = typeof body === 'object' && body !== null ? (body as { notices?: unknown }).notices : undefined;
      if (!Array.isArray(notices) || !notices.every(isNotice)) throw new NoticesError('Confab’s server answered what is due in a shape this page does not understand.', response.status);
      return notices;
    },
    async claim(noticeId) {
      const response = await call('say something due', `/api/notices/${encodeURIComponent(noticeId)}/delivered`, 'POST');
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return 'mine';
      if (response.status === 409) return 'taken';
      if (response.status === 404) return 'gone';
      throw new NoticesError(`Confab’s server could not mark something due as said (${response.status}).`, response.status);
    },
  };
}

function isNotice(value: unknown): value is Notice {
  if (typeof value !== 'object' || value === null) return false;
  const notice = value as Record<string, unknown>;
  return typeof notice.id === 'string' && typeof notice.text === 'string' && typeof notice.dueAtMs === 'number' && Number.isFinite(notice.dueAtMs);
}
