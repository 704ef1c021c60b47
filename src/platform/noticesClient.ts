/**
 * The page's calls for notices (what an app asks the person's open page to say at a time), under
 * the person's session like the threads: the ones coming due for a bot, and the claim that this
 * page is the one saying one. Only the first claim of a notice wins, so of several open pages
 * exactly one says it.
 */
import type { Notice } from '../../common/acting/protocol';
import { isRecord } from '../../common/isRecord';
import { failureOf, HttpError, httpClient, unreadableAnswer } from './http';
import type { Say } from './http';
import { sayWord } from './words';

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
      return sayWord('page-server.unreachable-plain', { what });
    case 'answered':
      return sayWord('page-server.busy-plain', { what, status: trouble.status });
    case 'not-json':
    case 'misshapen':
      return unreadableAnswer(what, trouble.kind);
  }
};

/** Notices over `fetcher` (the global fetch, or one that adds the person's token in Supabase mode). */
export function noticesClient(fetcher?: typeof fetch): NoticesClient {
  const http = httpClient(say, fetcher);
  return {
    async due(bot) {
      return (await http.json(sayWord('page-server.look-for-due'), `/api/notices?bot=${encodeURIComponent(bot)}`, {}, hasNotices)).notices;
    },
    async claim(noticeId) {
      const response = await http.send(sayWord('page-server.say-due'), `/api/notices/${encodeURIComponent(noticeId)}/delivered`, { method: 'POST' });
      await response.body?.cancel().catch(() => undefined);
      if (response.ok) return 'mine';
      if (response.status === 409) return 'taken';
      if (response.status === 404) return 'gone';
      throw new HttpError(sayWord('page-server.busy-plain', { what: sayWord('page-server.mark-due'), status: response.status }), { failure: failureOf(response.status), status: response.status });
    },
  };
}

function hasNotices(value: unknown): value is { notices: Notice[] } {
  return isRecord(value) && Array.isArray(value.notices) && value.notices.every(isNotice);
}

function isNotice(value: unknown): value is Notice {
  return isRecord(value) && typeof value.id === 'string' && typeof value.text === 'string' && typeof value.dueAtMs === 'number' && Number.isFinite(value.dueAtMs);
}
