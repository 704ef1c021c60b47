/**
 * Presence for one bot's page over this browser's adapters: the server's stream, the person's Web
 * Lock and BroadcastChannel for the bot, the kept lines a mirror reloads. What presence says goes
 * to `events`, so the parts that listen to it can be made after it.
 */
import type { Emitter } from '../../core/emitter';
import type { ConversationApi } from '../../platform/conversationApi';
import { pageIdentity } from '../../platform/pageIdentity';
import type { PageIdentity } from '../../platform/pageIdentity';
import { presenceChannel } from '../../platform/presenceChannel';
import { presenceClient } from '../../platform/presenceClient';
import { webActiveLock } from '../../platform/activeLock';
import { openPresence, presenceListenersTo } from '../presence';
import type { PagePresence, PresenceEvents } from '../presence';
import { pageTimers } from './pageOpening';
import { linesOf } from './pageConversation';

export interface PagePresencePorts {
  bot: string;
  api: Pick<ConversationApi, 'lines'>;
  fetch: typeof fetch | undefined;
  events: Pick<Emitter<PresenceEvents>, 'emit'>;
}

export function openPagePresence(ports: PagePresencePorts): { presence: PagePresence; identity: PageIdentity } {
  const { bot, api } = ports;
  const identity = pageIdentity(bot);
  const presence = openPresence(
    {
      bot,
      me: identity.me,
      client: presenceClient(ports.fetch),
      // One lock and one channel per person and bot in this browser.
      lock: (you) => webActiveLock(`confab.active.${you}.${bot}`),
      channel: (you) => presenceChannel(`confab.presence.${you}.${bot}`),
      lines: async (threadId) => linesOf(await api.lines(threadId)),
      since: identity.since,
      clock: pageTimers,
    },
    presenceListenersTo(ports.events),
  );
  return { presence, identity };
}
