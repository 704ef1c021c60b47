/**
 * What presence is given (the ports: the server's client, this browser's lock and channel, the
 * clock) and whom it tells (the listeners): shared by presence.ts and its parts, in a file of their
 * own so that no part imports the whole.
 */
import type { PendingActionEvent } from '../../../common/acting/protocol';
import type { Line } from '../../../common/conversation/events';
import type { Mirror } from '../../core/presence/mirror';
import type { PageRef, WindowEvent } from '../../../common/presence/protocol';
import type { PageSeat } from '../../core/presence/seat';
import type { ActiveLock } from '../../platform/activeLock';
import type { PresenceChannel } from '../../platform/presenceChannel';
import type { PresenceClient } from '../../platform/presenceClient';

/** The clock and timers presence runs on. */
export interface PresenceClock {
  nowMs(): number;
  /** Calls `run` after `delayMs`; answers a way to cancel it. */
  after(delayMs: number, run: () => void): () => void;
}

export interface PresencePorts {
  bot: string;
  me: PageRef;
  client: PresenceClient;
  /**
   * This browser's active lock for the person (named by the tag the server's hello gives), or null
   * where there are no Web Locks (not a secure context).
   */
  lock: (you: string) => ActiveLock | null;
  /** This browser's channel between the person's tabs (named likewise), or null. */
  channel: (you: string) => PresenceChannel | null;
  /** A kept conversation's lines, for a mirror that must be reloaded. */
  lines: (threadId: string) => Promise<Line[]>;
  /** The last window `seq` this tab had before it was reloaded, or null. */
  since: number | null;
  clock: PresenceClock;
  /** Where a line for whoever looks after the page goes (never what was said). Default `console.warn`. */
  log?: (line: PresenceLogLine) => void;
}

/** A line for whoever looks after the page: what happened, by name, and its facts — never what was said. */
export interface PresenceLogLine {
  /** An event the server refused for good, dropped so that the ones after it are sent. */
  event: 'presence.event-dropped';
  /** The HTTP status it was refused with; null when none came. */
  status: number | null;
}

export interface PresenceListeners {
  /** The page became the active one (`true`) or passive. */
  onActive(active: boolean): void;
  /** The seat changed: for the page to show where the active page is. */
  onSeat(seat: PageSeat): void;
  /** The mirror changed: what a passive page shows. */
  onMirror(mirror: Mirror): void;
  /** Something finished away from the conversation: to be said between turns. */
  onNarration(sentence: string): void;
  /** Work that outlived a turn has ended: what it came to waits as a notice, to be fetched and said once. */
  onRunEnded(run: string): void;
  /** How work that outlives a turn is going, quiet for the debounce: said between turns in place of an older word of it. */
  onRunProgress(run: string, sentence: string): void;
  /** Work that outlived a turn asks before something destructive: to be asked between turns. */
  onRunAsks(action: PendingActionEvent): void;
  /** The server kept an answer's choices, or one was taken: for the conversation on this page, while it is the active one. */
  onOffers(event: OffersEvent): void;
}

/** What the server says of offers: an answer kept with its choices, a choice taken. */
export type OffersEvent = Extract<WindowEvent, { kind: 'offer' | 'choice' }>;
