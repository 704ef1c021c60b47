/**
 * The drawer's lists: the person's conversations with this bot, and what it remembers of them (for
 * a bot that keeps memories). Each call refreshes or trims the lists it touches; a failure is a
 * sentence in the drawer, and the lists stay as they were.
 */
import type { PublicBot } from '../../common/bot';
import type { ConversationApi, Memory, ThreadSummary } from '../platform/conversationApi';
import { sentenceOf } from './sentenceOf';

/** What the drawer shows. */
export interface DrawerLists {
  threads: readonly ThreadSummary[];
  /** Null for bots that keep no memories; else the list, once asked for. */
  memories: readonly Memory[] | null;
  /** A sentence when a list could not be had or changed. */
  drawerProblem: string | null;
}

export interface DrawerPorts {
  api: Pick<ConversationApi, 'threads' | 'forgetThread' | 'memories' | 'forgetMemory'>;
  bot: Pick<PublicBot, 'slug' | 'memory'>;
  /** The lists as they are now. */
  lists: () => DrawerLists;
  update: (change: Partial<DrawerLists>) => void;
  /** A conversation was forgotten (the page starts a new one if it was the one on screen). */
  onForgotten: (threadId: string) => void;
}

export interface Drawer {
  refreshThreads: () => Promise<void>;
  forgetThread: (threadId: string) => Promise<void>;
  loadMemories: () => Promise<void>;
  forgetMemory: (memoryId: string) => Promise<void>;
}

export function drawer(ports: DrawerPorts): Drawer {
  const { api, bot, update } = ports;
  const failed = (error: unknown) => {
    update({ drawerProblem: sentenceOf(error) });
  };
  return {
    async refreshThreads() {
      try {
        update({ threads: await api.threads(bot.slug) });
      } catch (error) {
        failed(error);
      }
    },
    async forgetThread(threadId) {
      try {
        await api.forgetThread(threadId);
        update({ threads: ports.lists().threads.filter((t) => t.id !== threadId) });
        ports.onForgotten(threadId);
      } catch (error) {
        failed(error);
      }
    },
    async loadMemories() {
      if (bot.memory !== 'person+recall') return;
      try {
        update({ memories: await api.memories(bot.slug) });
      } catch (error) {
        failed(error);
      }
    },
    async forgetMemory(memoryId) {
      try {
        await api.forgetMemory(memoryId);
        update({ memories: (ports.lists().memories ?? []).filter((m) => m.id !== memoryId) });
      } catch (error) {
        failed(error);
      }
    },
  };
}
