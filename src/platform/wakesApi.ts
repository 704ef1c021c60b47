/**
 * The page's calls for a bot's wakes (`server/runs/wakes.ts`), under the person's session: what the
 * bot may wake them for and how they have answered, and their answer. Each is asked in the person's
 * zone and language, so the time is said on their clock. A failure is an `HttpError` whose sentence
 * is the server's own (a bare cookie is told how to be let) or the page's word.
 */
import { isRecord } from '../../common/isRecord';
import { isShownWake } from '../../common/wakes';
import type { ShownWake } from '../../common/wakes';
import { httpClient, unreadableAnswer } from './http';
import type { Say } from './http';
import { sayWord } from './words';

export interface WakesApi {
  /** `GET /api/wakes`: the bot's wakes, said in `language` on the clock of `zone`. */
  list(bot: string, zone: string, language: string): Promise<ShownWake[]>;
  /** `POST /api/wakes`: allow it (it runs from now), or not now / stop it; the wake as it now is. */
  answer(bot: string, wake: string, allow: boolean, zone: string, language: string): Promise<ShownWake>;
}

const say: Say = (_what, trouble) => {
  switch (trouble.kind) {
    case 'unreachable':
      return sayWord('page-wakes.failed');
    case 'answered':
      return trouble.said ?? sayWord('page-wakes.failed');
    case 'not-json':
    case 'misshapen':
      return unreadableAnswer(sayWord('page-wakes.title'), trouble.kind);
  }
};

/** The API over `fetcher` (the global fetch, or one that adds the person's token in Supabase mode). */
export function wakesApi(fetcher?: typeof fetch): WakesApi {
  const http = httpClient(say, fetcher);
  const what = sayWord('page-wakes.title');
  return {
    async list(bot, zone, language) {
      const query = new URLSearchParams({ bot, zone, language });
      return (await http.json(what, `/api/wakes?${query.toString()}`, { method: 'GET' }, isWakeList)).wakes;
    },
    async answer(bot, wake, allow, zone, language) {
      return (await http.json(what, '/api/wakes', { method: 'POST', body: { bot, wake, allow, zone, language } }, isAnswered)).wake;
    },
  };
}

function isWakeList(value: unknown): value is { wakes: ShownWake[] } {
  return isRecord(value) && Array.isArray(value.wakes) && value.wakes.every(isShownWake);
}

function isAnswered(value: unknown): value is { wake: ShownWake } {
  return isRecord(value) && isShownWake(value.wake);
}
