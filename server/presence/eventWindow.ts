/**
 * The window: the last events of a person's conversation with a bot, each with its sequence
 * number, bounded (200 by default). The server keeps it in Postgres so it outlives a restart; this
 * module is the window's rules, which the server's SQL follows and the tests hold it to:
 *
 * - `seq` counts from 1 and is never reused; the oldest events fall out once it is full;
 * - a page that comes back says the last `seq` it has and is owed every event after it — unless
 *   that event has fallen out (or the server knows none so late), when it reloads the conversation
 *   from its lines instead;
 * - a page that opens afresh is owed the conversation on screen from its `conversation` event,
 *   or a reload when that event has fallen out.
 */
import { checkOption } from '../../common/options';
import type { Limit } from '../../common/options';
import type { Owed, Sequenced, WindowEvent } from '../../common/presence/protocol';

/** How many events the window keeps by default. */
export const WINDOW_CAPACITY = 200;

/** What a window's capacity may be: a whole number of events. */
export const CAPACITY_LIMIT: Limit = { min: 1, whole: true };

export interface EventWindow {
  /** Most events kept; the oldest go first. */
  capacity: number;
  /** The last `seq` given, 0 before the first event. */
  latestSeq: number;
  /** The events kept, oldest first. */
  events: readonly Sequenced[];
}

/** The first and last `seq` a window holds; `oldestSeq` is `latestSeq + 1` when it holds none. */
export interface WindowBounds {
  oldestSeq: number;
  latestSeq: number;
}

export function emptyWindow(capacity = WINDOW_CAPACITY): EventWindow {
  checkOption('eventWindow.capacity', capacity, CAPACITY_LIMIT);
  return { capacity, latestSeq: 0, events: [] };
}

/** The window with `event` kept at the next `seq`, and the oldest let go past capacity. */
export function append(window: EventWindow, event: WindowEvent, atMs: number): { window: EventWindow; sequenced: Sequenced } {
  const sequenced: Sequenced = { seq: window.latestSeq + 1, atMs, event };
  const events = [...window.events, sequenced].slice(-window.capacity);
  return { window: { ...window, latestSeq: sequenced.seq, events }, sequenced };
}

export function boundsOf(window: EventWindow): WindowBounds {
  return { oldestSeq: window.events[0]?.seq ?? window.latestSeq + 1, latestSeq: window.latestSeq };
}

/**
 * What a page is owed, and the first `seq` it is owed from (events from it on, when `events`).
 *
 * @param since the last `seq` the page has, or null for a page that opens afresh
 * @param conversationSeq the `seq` of the latest `conversation` event, or null when there was none
 */
export function owedTo(bounds: WindowBounds, since: number | null, conversationSeq: number | null): { owed: Owed; fromSeq: number } {
  const { oldestSeq, latestSeq } = bounds;
  const next = latestSeq + 1;
  if (since === null) {
    if (conversationSeq === null || conversationSeq > latestSeq) return { owed: 'nothing', fromSeq: next };
    return conversationSeq >= oldestSeq ? { owed: 'events', fromSeq: conversationSeq } : { owed: 'reload', fromSeq: next };
  }
  // Later than anything kept: this server's window is not the one the page saw (it was wiped).
  if (since > latestSeq) return { owed: 'reload', fromSeq: next };
  if (since === latestSeq) return { owed: 'nothing', fromSeq: next };
  return since + 1 >= oldestSeq ? { owed: 'events', fromSeq: since + 1 } : { owed: 'reload', fromSeq: next };
}

/** The events from `fromSeq` on, oldest first. */
export function eventsFrom(window: EventWindow, fromSeq: number): Sequenced[] {
  return window.events.filter((e) => e.seq >= fromSeq);
}

/** The `seq` of the latest `conversation` event the window holds, or null. */
export function latestConversationSeq(window: EventWindow): number | null {
  return [...window.events].reverse().find((e) => e.event.kind === 'conversation')?.seq ?? null;
}
