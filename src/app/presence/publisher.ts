/**
 * Publishing, while this page is the active one: what it says goes to the window (and this
 * browser's other tabs at once), its live state to the person's other pages. Events go one
 * publication at a time, in order; the live state has a lane of its own, so a line never waits
 * behind it, and goes at most every `liveEveryMs`.
 */
import { EVENTS_PER_POST_MAX } from '../../../common/presence/protocol';
import type { LivePhase, LiveState, PageRef, Seat, WindowEvent } from '../../../common/presence/protocol';
import type { PresenceChannel } from '../../platform/presenceChannel';
import type { PresenceClient } from '../../platform/presenceClient';
import { isRetryable } from '../../platform/outbox';
import type { ConversationView } from '../createConversation';
import type { PresenceClock, PresenceLogLine } from './ports';

export interface PublisherPorts {
  bot: string;
  me: PageRef;
  client: Pick<PresenceClient, 'publish'>;
  clock: PresenceClock;
  /** The least time between two live states published, in ms. */
  liveEveryMs: number;
  /** This browser's channel between the person's tabs, once known. */
  channel: () => PresenceChannel | null;
  isActive: () => boolean;
  /** The referee's seat in a publication's answer. */
  told: (seat: Seat) => void;
  disposed: () => boolean;
  /** Where a line for whoever looks after the page goes (never what was said). */
  log: (line: PresenceLogLine) => void;
}

export interface Publisher {
  publish: (events: readonly WindowEvent[]) => void;
  /** The conversation's view now, published as the live state. */
  live: (view: ConversationView, conversation: string) => void;
  stop: () => void;
}

/** The HTTP status a refusal was answered with, for a log line; null when none came. */
const statusOf = (error: unknown): number | null => {
  const status = typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  return typeof status === 'number' ? status : null;
};

export function publisher(ports: PublisherPorts): Publisher {
  const { bot, me, client, clock, liveEveryMs, disposed } = ports;
  let outgoing: WindowEvent[] = [];
  let outgoingLive: LiveState | null = null;
  let sendingEvents = false;
  let sendingLive = false;
  let lastLiveAtMs = -Infinity;
  let cancelLive: (() => void) | null = null;
  let failures = 0;
  let lastLive = '';
  /**
   * Events still to go one publication each: a refused publication of several is sent again event
   * by event, so only the event the server will not take is dropped.
   */
  let alone = 0;

  function told(answer: { seat: Seat | null }): void {
    if (answer.seat !== null) ports.told(answer.seat);
  }

  function send(): void {
    if (sendingEvents || disposed() || outgoing.length === 0) return;
    sendingEvents = true;
    const events = outgoing.splice(0, alone > 0 ? 1 : EVENTS_PER_POST_MAX);
    client.publish({ bot, page: me.page, events, live: null }).then(
      (answer) => {
        sendingEvents = false;
        failures = 0;
        alone = Math.max(0, alone - events.length);
        told(answer);
        send();
      },
      (error: unknown) => {
        sendingEvents = false;
        if (!isRetryable(error)) {
          // The server will never take this publication: retried at the head of the queue it would
          // hold back everything after it for ever. One event alone is dropped (the outbox still
          // keeps its line on the server's thread); several are tried again one by one.
          if (events.length === 1) {
            alone = Math.max(0, alone - 1);
            ports.log({ event: 'presence.event-dropped', status: statusOf(error) });
          } else {
            outgoing = [...events, ...outgoing];
            alone = events.length;
          }
          send();
          return;
        }
        // Kept lines wait to be sent again (the outbox keeps them on the server's thread anyway).
        outgoing = [...events, ...outgoing];
        failures += 1;
        clock.after(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)), send);
      },
    );
  }

  function sendLive(): void {
    if (sendingLive || disposed() || outgoingLive === null) return;
    sendingLive = true;
    const live = outgoingLive;
    outgoingLive = null;
    lastLiveAtMs = clock.nowMs();
    client.publish({ bot, page: me.page, events: [], live }).then(
      (answer) => {
        sendingLive = false;
        told(answer);
        scheduleLive();
      },
      () => {
        // A live state that could not go is stale by the next one.
        sendingLive = false;
        scheduleLive();
      },
    );
  }

  /** Sends the latest live state once `liveEveryMs` has passed since the last went, and none is in flight. */
  function scheduleLive(): void {
    if (outgoingLive === null || cancelLive !== null || disposed()) return;
    const waitMs = Math.max(0, lastLiveAtMs + liveEveryMs - clock.nowMs());
    if (waitMs === 0 && !sendingLive) {
      sendLive();
      return;
    }
    cancelLive = clock.after(Math.max(waitMs, sendingLive ? liveEveryMs : 0), () => {
      cancelLive = null;
      if (sendingLive) scheduleLive();
      else sendLive();
    });
  }

  return {
    publish(events) {
      if (disposed() || events.length === 0) return;
      ports.channel()?.post({ type: 'events', from: me.page, events: [...events] });
      outgoing.push(...events);
      send();
    },
    live(view, conversation) {
      if (disposed() || !ports.isActive()) return;
      const state = liveStateOf(view, conversation);
      const said = JSON.stringify(state);
      if (said === lastLive) return;
      lastLive = said;
      ports.channel()?.post({ type: 'live', from: me.page, live: state });
      outgoingLive = state;
      scheduleLive();
    },
    stop() {
      cancelLive?.();
    },
  };
}

const PHASES: readonly LivePhase[] = ['listening', 'thinking', 'speaking', 'greeting', 'announcing', 'confirming'];

/** The live state of a conversation's view. */
export function liveStateOf(view: ConversationView, conversation: string): LiveState {
  const last = view.lines.at(-1);
  const answering = view.phase !== 'listening' && view.phase !== 'confirming' && last?.role === 'assistant';
  return {
    conversation,
    liveLine: view.liveLine,
    phase: PHASES.includes(view.phase) ? view.phase : 'listening',
    draft: answering ? { utteranceId: last.utteranceId, text: last.text } : null,
  };
}
