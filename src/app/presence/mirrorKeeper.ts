/**
 * The mirror a passive page shows: the active page's conversation as its events, its live state
 * and (when the window no longer has them all) its kept lines make it.
 */
import type { Line } from '../../../common/conversation/events';
import { EMPTY_MIRROR, mirrorReloaded } from '../../core/presence/mirror';
import type { Mirror } from '../../core/presence/mirror';
import type { ConversationRef } from '../../../common/presence/protocol';

export interface MirrorKeeperPorts {
  /** A kept conversation's lines, for a mirror that must be reloaded. */
  lines: (threadId: string) => Promise<Line[]>;
  onMirror: (mirror: Mirror) => void;
  /** The last window `seq` the page has. */
  lastSeq: () => number;
  disposed: () => boolean;
}

export interface MirrorKeeper {
  mirror: () => Mirror;
  set: (next: Mirror) => void;
  /** Reads the conversation's lines from the server, for a mirror that fell out of the window (or a reopened one). */
  reload: (conversation: ConversationRef | null) => Promise<void>;
  /** The page's own conversation as it goes quiet: the mirror goes on from it. */
  remember: (conversation: ConversationRef, lines: readonly Line[]) => void;
}

export function mirrorKeeper(ports: MirrorKeeperPorts): MirrorKeeper {
  let mirror: Mirror = EMPTY_MIRROR;
  let reloading: Promise<void> | null = null;

  function set(next: Mirror): void {
    if (next === mirror) return;
    mirror = next;
    ports.onMirror(mirror);
    if (mirror.needsLines) void reload(mirror.conversation);
  }

  function reload(conversation: ConversationRef | null): Promise<void> {
    const upTo = ports.lastSeq();
    reloading ??= (async () => {
      try {
        const lines = conversation?.threadId == null ? [] : await ports.lines(conversation.threadId);
        if (ports.disposed() || (mirror.conversation !== null && conversation !== null && mirror.conversation.conversation !== conversation.conversation)) return;
        set(mirrorReloaded(mirror, conversation, lines, upTo));
      } catch {
        // The lines will be there on the next reload; the window's events go on meanwhile.
        if (mirror.needsLines) set({ ...mirror, needsLines: false });
      } finally {
        reloading = null;
      }
    })();
    return reloading;
  }

  return {
    mirror: () => mirror,
    set,
    reload,
    remember(conversation, lines) {
      set(mirrorReloaded({ ...mirror, conversation }, conversation, lines, ports.lastSeq()));
    },
  };
}
