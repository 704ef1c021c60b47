/**
 * The entry page's one question: which bots can be talked to here — by this person, since a bot's
 * `for:` leaves out those that are not for them, so it is asked under their session.
 */
import type { PublicBot } from '../../common/bot';
import { conversationApi } from '../platform/conversationApi';
import { openSession } from './session';

export type { PublicBot } from '../../common/bot';

/** The bots this server offers this person, by name; throws a sentence when the server cannot say. */
export async function listBots(fetcher?: typeof fetch): Promise<PublicBot[]> {
  return conversationApi(fetcher ?? (await openSession()).fetch).bots();
}
