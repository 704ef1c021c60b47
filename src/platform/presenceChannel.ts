/**
 * The BroadcastChannel between the tabs of this browser for one bot: the active tab posts
 * what is said and its live state, and the other tabs show it at once, ahead of the server's
 * stream (which carries the same, with sequence numbers). It decides nothing.
 */
import { isLiveState, isWindowEvent } from '../../common/presence/protocol';
import type { LiveState, WindowEvent } from '../../common/presence/protocol';

export type ChannelMessage = { type: 'events'; from: string; events: WindowEvent[] } | { type: 'live'; from: string; live: LiveState };

export interface PresenceChannel {
  post(message: ChannelMessage): void;
  on(listener: (message: ChannelMessage) => void): () => void;
  close(): void;
}

function isMessage(value: unknown): value is ChannelMessage {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as Record<string, unknown>;
  if (typeof message.from !== 'string') return false;
  if (message.type === 'events') return Array.isArray(message.events) && (message.events as unknown[]).every(isWindowEvent);
  return message.type === 'live' && isLiveState(message.live);
}

/** The channel `name`, or null where the browser has no BroadcastChannel. */
export function presenceChannel(name: string): PresenceChannel | null {
  if (typeof BroadcastChannel === 'undefined') return null;
  const channel = new BroadcastChannel(name);
  const listeners = new Set<(message: ChannelMessage) => void>();
  channel.onmessage = (event: MessageEvent<unknown>) => {
    if (!isMessage(event.data)) return;
    for (const listener of listeners) listener(event.data);
  };
  return {
    post: (message) => {
      channel.postMessage(message);
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      listeners.clear();
      channel.close();
    },
  };
}
