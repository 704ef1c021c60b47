/**
 * What a bot may wake the person for, composed for the page: asked in the person's own zone (the
 * browser's) and in the language they chose, over the page's own API (the session's fetch adds the
 * access token in Supabase mode; a person cookie needs nothing).
 */
import type { ShownWake } from '../../common/wakes';
import { wakesApi } from '../platform/wakesApi';

export interface WakesPort {
  /** The bot's wakes and how the person has answered each. */
  list(bot: string, language: string): Promise<ShownWake[]>;
  /** Allows one (it runs for them from now), or not now / stop: the wake as it now is. */
  answer(bot: string, wake: string, allow: boolean, language: string): Promise<ShownWake>;
}

export function wakesPort(fetcher?: typeof fetch): WakesPort {
  const api = wakesApi(fetcher);
  const zone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
  return {
    list: (bot, language) => api.list(bot, zone(), language),
    answer: (bot, wake, allow, language) => api.answer(bot, wake, allow, zone(), language),
  };
}
