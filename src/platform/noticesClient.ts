/**
 * The page's calls for notices (what an app asks the person's open page to say at a time), under
 * the person's session like the threads: the ones coming due for a bot, and the claim that this
 * page is the one saying one. Only the first claim of a notice wins, so of several open pages
 * exactly one says it.
 */
import type { Notice } from '../../core/acting/protocol';
import { isRecord } from '../../core/isRecord';
import { failureOf, HttpError, httpClient } from './http';
import type { Say } from './http';

/** What came of claiming a notice: this page says it; another page already has; there is no such notice. */
export type NoticeClaim = 'mine' | 'taken' | 'gone';

export interface NoticesClient {
  /** `GET /api/notices?bot=<slug>`: the undelivered notices overdue or due within a day. */
  due(bot: string): Promise<Notice[]>;
  /** `POST /api/notices/<id>/delivered`: 200 is `mine`, 409 `taken`, 404 `gone`. */
  claim(noticeId: string): Promise<NoticeClaim>;
}

/** How this client says what went wrong; only `due` reads an answer, so its words are the reading's. */
const say: Say = (what, trouble) => {
  switch (trouble.kind) {
    case 'unreachable':
      return `Confab’s server could not be reached to ${what}.`;
    case 'answered':
      return `Confab’s server could not ${what} (${trouble.status}).`;
    case 'not-json':
      return 'Confab’s server answered something that is not JSON when asked what is due.';
    case 'misshapen':
      return 'Confab’s server answered what is due in a shape this page does not understand.';
  }
};

/** Notices over `fetcher` (the global fetch, or one that adds the person's token in Supabase mode). */
export function noticesClient(fetcher?: typeof fetch): NoticesClient {
  const http = httpClient(say, fetcher);
  return {
    async due(bot) {
      return (await http.json('look for what is due', `/api/notices?bot=${encodeURIComponent(bot)}`, {}, hasNotices)).notices;
    },
    async claim(noticeId) {
      const response = await http.send('say something due', `/api/notices/${encodeURIComponent(noticeId)}/delivered`, { method: 'POST' });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return 'mine';
      if (response.status === 409) return 'taken';
      if (response.status === 404) return 'gone';
      throw new HttpError(`Confab’s server could not mark something due as said (${response.status}).`, { failure: failureOf(response.status), status: response.status });
    },
  };
}

function hasNotices(value: unknown): value is { notices: Notice[] } {
  return isRecord(value) && Array.isArray(value.notices) && value.notices.every(isNotice);
}

function isNotice(value: unknown): value is Notice {
  return isRecord(value) && typeof value.id === 'string' && typeof value.text === 'string' && typeof value.dueAtMs === 'number' && Number.isFinite(value.dueAtMs);
}
