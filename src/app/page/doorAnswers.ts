/**
 * The door's answers for one bot's page: the grant and its renewal, and the answer to a turn
 * streamed through the chat door (a grant that ran out renewed once, unheard by the person).
 */
import type { ChatMessage } from '../../../common/conversation/events';
import { recentMessages, SENT_MESSAGES } from '../../../common/presence/compaction';
import type { ConversationApi, Start } from '../../platform/conversationApi';
import { AnswerError, streamAnswer } from '../../platform/doorClient';
import type { AnswerItem } from '../../platform/doorClient';

/** A grant is renewed this long before it runs out. */
const GRANT_MARGIN_MS = 60_000;

export interface DoorAnswersPorts {
  api: Pick<ConversationApi, 'start'>;
  slug: string;
  /** The grant the page opened with. */
  first: Pick<Start, 'grant' | 'expiresAt'>;
  /** How the page reaches its own API. */
  fetch: typeof fetch | undefined;
  /** The conversation's key now, read once per turn. */
  conversationKey: () => string;
  /** The reader's language setting now, read once per turn (sent as `x-confab-language`). */
  language: () => string;
  /** A verb ran during the turn (it may have made a notice). */
  onVerbRan: () => void;
}

export interface DoorAnswers {
  /** A grant with more than a minute left, renewed when it has less. */
  grant: () => Promise<string>;
  /** The answer to one turn, named by the id the page gave it when the person finished (`x-confab-turn`). */
  answer: (messages: readonly ChatMessage[], signal: AbortSignal, turn: string) => AsyncGenerator<AnswerItem>;
}

/** The person's IANA time zone as the browser has it, or undefined where it cannot say. */
function timeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export function doorAnswers(ports: DoorAnswersPorts): DoorAnswers {
  const { api, slug } = ports;
  let grant: { token: string; expiresAt: number } | null = { token: ports.first.grant, expiresAt: ports.first.expiresAt };

  async function freshGrant(): Promise<string> {
    if (grant !== null && grant.expiresAt - Date.now() > GRANT_MARGIN_MS) return grant.token;
    const started = await api.start(slug);
    grant = { token: started.grant, expiresAt: started.expiresAt };
    return started.grant;
  }

  async function* answer(messages: readonly ChatMessage[], signal: AbortSignal, turn: string): AsyncGenerator<AnswerItem> {
    // Read once per turn: a retried turn and a renewed grant go under the same key and turn id.
    const conversationKey = ports.conversationKey();
    const language = ports.language();
    let verbRan = false;
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          // Never the whole history: one message more than the door keeps, so it can mark the gap.
          for await (const item of streamAnswer({ grant: await freshGrant(), messages: recentMessages(messages, SENT_MESSAGES), signal, conversationKey, timeZone: timeZone(), turn, language }, ports.fetch)) {
            if (item.type === 'verb') verbRan = true;
            yield item;
          }
          return;
        } catch (error) {
          // A grant that ran out is renewed once; the person never hears about it.
          if (!(error instanceof AnswerError && error.failure === 'expired' && attempt === 0)) throw error;
          grant = null;
        }
      }
    } finally {
      // A verb may have made a notice: look for it now, not in a minute.
      if (verbRan) ports.onVerbRan();
    }
  }

  return { grant: freshGrant, answer };
}
