/**
 * The entry page's one question: which bots can be talked to here.
 */
import type { PublicBot } from '../../common/bot';
import { conversationApi } from '../platform/conversationApi';

export type { PublicBot } from '../../common/bot';

/** The bots this server offers, by name; throws a sentence when the server cannot say. */
export function listBots(fetcher?: typeof fetch): Promise<PublicBot[]> {
  return conversationApi(fetcher).bots();
}
