/**
 * One active page across a person's tabs and devices, for the page: which of their pages for this
 * bot holds the microphone and the speaker (the active page), and what the others (passive) show. It plugs the adapters —
 * the server's stream, claim and publishing (src/platform/presenceClient.ts), this browser's Web
 * Lock (voiceLock.ts) and BroadcastChannel (presenceChannel.ts) — into the pure decisions of
 * src/core/presence: the page's seat, the mirror, the window's `since`, debounced narration.
 *
 * The page (src/app/page/activePage.ts) is told when it becomes active or passive (`onActive`) and
 * does the rest: a page that goes passive stops listening and speaking (an answer under way is
 * cut, kept as interrupted) and shows the mirror; a page that becomes active carries the
 * conversation on from the mirror. While it is active, what it says is published: kept lines and spoken pieces to the
 * window (and this browser's other tabs at once), its live state to the person's other pages.
 */
import type { ConversationPorts, ConversationView } from './createConversation';
import type { Line } from '../core/conversation/events';
import type { Emitter } from '../core/emitter';
import { dueAt, heard, SILENT } from '../core/presence/narration';
import type { Narration } from '../core/presence/narration';
import { applyEvent, EMPTY_MIRROR, mirrorEvent, mirrorLive, mirrorReloaded, mirrorView } from '../core/presence/mirror';
import type { Mirror } from '../core/presence/mirror';
import { narratable } from '../core/presence/narration';
import type { ConversationRef, LivePhase, LiveState, PageRef, PresenceMessage, Seat, WindowEvent } from '../core/presence/protocol';
import { hasVoice, seatAfter, UNSEATED } from '../core/presence/seat';
import type { PageSeat, SeatEvent } from '../core/presence/seat';
import type { PresenceChannel } from '../platform/presenceChannel';
import type { PresenceClient, PresenceStreamHandle } from '../platform/presenceClient';
import type { VoiceLock } from '../platform/voiceLock';

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
   * This browser's voice lock for the person (named by the tag the server's hello gives), or null
   * where there are no Web Locks (not a secure context).
   */
  lock: (you: string) => VoiceLock | null;
  /** This browser's channel between the person's tabs (named likewise), or null. */
  channel: (you: string) => PresenceChannel | null;
  /** A kept conversation's lines, for a mirror that must be reloaded. */
  lines: (threadId: string) => Promise<Line[]>;
  /** The last window `seq` this tab had before it was reloaded, or null. */
  since: number | null;
  clock: PresenceClock;
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
}

/** What presence says, as events: for the page's parts, made after presence, that listen to it. */
export type PresenceEvents = { active: boolean; seat: PageSeat; mirror: Mirror; narration: string };

/** Listeners that pass on what presence says to `events`. */
export function presenceListenersTo(events: Pick<Emitter<PresenceEvents>, 'emit'>): PresenceListeners {
  return {
    onActive: (active) => {
      events.emit('active', active);
    },
    onSeat: (seat) => {
      events.emit('seat', seat);
    },
    onMirror: (mirror) => {
      events.emit('mirror', mirror);
    },
    onNarration: (sentence) => {
      events.emit('narration', sentence);
    },
  };
}

export interface PresenceOptions {
  /** How long the page waits for the referee's first word before it speaks for itself, in ms. Default 3 000. */
  readyMs: number;
  /** The least time between two live states published, in ms. Default 150. */
  liveEveryMs: number;
  /** How long a burst of narration must be quiet before it is said, in ms. Default 500. */
  debounceMs: number;
}

export const PRESENCE_PAGE_DEFAULTS: Readonly<PresenceOptions> = Object.freeze({ readyMs: 3_000, liveEveryMs: 150, debounceMs: 500 });

export interface PagePresence {
  /** Resolves once the page knows whether it is the active one (the referee said, or it waited `readyMs`). */
  readonly ready: Promise<void>;
  seat(): PageSeat;
  isActive(): boolean;
  mirror(): Mirror;
  /** The last window `seq` this page has, to hand its reload. */
  lastSeq(): number;
  /** The person's gesture here makes this page the active one ("Use this one", holding to talk, typing). */
  takeOver(): void;
  /** The page's own conversation as it goes quiet: the mirror goes on from it. */
  remember(conversation: ConversationRef, lines: readonly Line[]): void;
  /** Publishes what the active page said (to the window and this browser's tabs). */
  publish(events: readonly WindowEvent[]): void;
  /** The conversation's view now, published as the live state (to the server at most every `liveEveryMs`). */
  live(view: ConversationView, conversation: string): void;
  /** The conversation's ports, with what is kept and spoken published as it is. */
  tap(ports: ConversationPorts, conversation: () => string): ConversationPorts;
  /** Says `text` between turns, a burst as one sentence. */
  narrate(text: string): void;
  dispose(): void;
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

export function openPresence(ports: PresencePorts, listeners: PresenceListeners, options: Partial<PresenceOptions> = {}): PagePresence {
  const { readyMs, liveEveryMs, debounceMs } = { ...PRESENCE_PAGE_DEFAULTS, ...options };
  const { me, bot, client, clock } = ports;
  /** This browser's lock and channel for the person, once the server's hello has said who they are. */
  let lock: VoiceLock | null = null;
  let channel: PresenceChannel | null = null;
  let person: string | null = null;
  let seat: PageSeat = UNSEATED;
  let mirror: Mirror = EMPTY_MIRROR;
  let lastSeq = ports.since ?? 0;
  let disposed = false;
  let narration: Narration = SILENT;
  let cancelNarration: (() => void) | null = null;
  let announceReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    announceReady = resolve;
  });
  let isReady = false;
  const becomeReady = () => {
    if (isReady) return;
    isReady = true;
    announceReady();
  };

  // ---- the seat: which page is active -----------------------------------------------------------

  /** A claim the referee has not answered yet: sent again when the stream opens again. */
  let claimPending = false;

  function claim(): void {
    claimPending = true;
    client.claim(bot, me).then(
      (told) => {
        claimPending = false;
        apply({ type: 'told', seat: told });
      },
      () => {
        // Unreachable: the page stays the active one it became, and claims again when the stream is back.
      },
    );
  }

  function apply(event: SeatEvent): void {
    if (disposed) return;
    const before = seat;
    seat = seatAfter(seat, event, me);
    if (seat === before) return;
    const had = hasVoice(before);
    const has = hasVoice(seat);
    if (has && lock !== null && !lock.held) void lock.take({ steal: true });
    if (!has && lock?.held === true) lock.release();
    listeners.onSeat(seat);
    if (has !== had || before.role === 'unknown') listeners.onActive(has);
    if (seat.role !== 'unknown') becomeReady();
  }

  let unsubscribeStolen: (() => void) | undefined;
  let unsubscribeChannel: (() => void) | undefined;

  /** The person's lock and channel in this browser, named by their tag, opened once. */
  function joinBrowser(you: string): void {
    if (person !== null) return;
    person = you;
    lock = ports.lock(you);
    channel = ports.channel(you);
    unsubscribeStolen = lock?.onStolen(() => {
      apply({ type: 'stolen' });
    });
    unsubscribeChannel = channel?.on((message) => {
      if (disposed || message.from === me.page || hasVoice(seat)) return;
      if (message.type === 'events') setMirror(message.events.reduce(applyEvent, mirror));
      else setMirror(mirrorLive(mirror, message.live));
    });
  }

  // ---- the mirror: what the active page says -------------------------------------------------------

  function setMirror(next: Mirror): void {
    if (next === mirror) return;
    mirror = next;
    listeners.onMirror(mirror);
    if (mirror.needsLines) void reload(mirror.conversation);
  }

  let reloading: Promise<void> | null = null;
  /** Reads the conversation's lines from the server, for a mirror that fell out of the window (or a reopened one). */
  function reload(conversation: ConversationRef | null): Promise<void> {
    const upTo = lastSeq;
    reloading ??= (async () => {
      try {
        const lines = conversation?.threadId == null ? [] : await ports.lines(conversation.threadId);
        if (disposed || (mirror.conversation !== null && conversation !== null && mirror.conversation.conversation !== conversation.conversation)) return;
        setMirror(mirrorReloaded(mirror, conversation, lines, upTo));
      } catch {
        // The lines will be there on the next reload; the window's events go on meanwhile.
        if (mirror.needsLines) setMirror({ ...mirror, needsLines: false });
      } finally {
        reloading = null;
      }
    })();
    return reloading;
  }

  function heardMessage(message: PresenceMessage): void {
    if (disposed) return;
    switch (message.type) {
      case 'hello': {
        joinBrowser(message.you);
        apply({ type: 'told', seat: message.seat });
        if (claimPending || (seat.role === 'active' && seat.aheadOf !== null)) claim();
        if (message.owed === 'reload') {
          lastSeq = message.latestSeq;
          void reload(message.conversation);
        } else if (message.owed === 'nothing') {
          lastSeq = Math.max(lastSeq, message.latestSeq);
          if (mirror.conversation === null && message.conversation !== null) setMirror({ ...mirror, conversation: message.conversation, needsLines: message.conversation.reopened });
        }
        return;
      }
      case 'seat':
        apply({ type: 'told', seat: message.seat });
        return;
      case 'yield':
        apply({ type: 'yielded', to: message.to });
        return;
      case 'event': {
        const { sequenced } = message;
        if (sequenced.seq <= lastSeq) return;
        lastSeq = sequenced.seq;
        setMirror(mirrorEvent(mirror, sequenced));
        // What finished away from the conversation is said by the active page.
        if (sequenced.event.kind === 'verb' && hasVoice(seat)) {
          const text = narratable(sequenced.event);
          if (text !== null) narrate(text);
        }
        return;
      }
      case 'live':
        if (!hasVoice(seat)) setMirror(mirrorLive(mirror, message.live));
        return;
    }
  }

  // ---- publishing, while this page is the active one ------------------------------------------------

  let outgoing: WindowEvent[] = [];
  let outgoingLive: LiveState | null = null;
  /** Events go one publication at a time, in order; the live state has a lane of its own, so a line never waits behind it. */
  let sendingEvents = false;
  let sendingLive = false;
  let lastLiveAtMs = -Infinity;
  let cancelLive: (() => void) | null = null;
  let failures = 0;

  function told(answer: { seat: Seat | null }): void {
    if (answer.seat !== null) apply({ type: 'told', seat: answer.seat });
  }

  function send(): void {
    if (sendingEvents || disposed || outgoing.length === 0) return;
    sendingEvents = true;
    const events = outgoing.splice(0, 32);
    client.publish({ bot, page: me.page, events, live: null }).then(
      (answer) => {
        sendingEvents = false;
        failures = 0;
        told(answer);
        send();
      },
      () => {
        sendingEvents = false;
        // Kept lines wait to be sent again (the outbox keeps them on the server's thread anyway).
        outgoing = [...events, ...outgoing];
        failures += 1;
        clock.after(Math.min(5_000, 250 * 2 ** Math.min(failures, 5)), send);
      },
    );
  }

  function sendLive(): void {
    if (sendingLive || disposed || outgoingLive === null) return;
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

  function publish(events: readonly WindowEvent[]): void {
    if (disposed || events.length === 0) return;
    channel?.post({ type: 'events', from: me.page, events: [...events] });
    outgoing.push(...events);
    send();
  }

  let lastLive = '';
  function live(view: ConversationView, conversation: string): void {
    if (disposed || !hasVoice(seat)) return;
    const state = liveStateOf(view, conversation);
    const said = JSON.stringify(state);
    if (said === lastLive) return;
    lastLive = said;
    channel?.post({ type: 'live', from: me.page, live: state });
    outgoingLive = state;
    scheduleLive();
  }

  /** Sends the latest live state once `liveEveryMs` has passed since the last went, and none is in flight. */
  function scheduleLive(): void {
    if (outgoingLive === null || cancelLive !== null || disposed) return;
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

  // ---- narration -----------------------------------------------------------------------------------

  function narrate(text: string): void {
    narration = heard(narration, text, clock.nowMs());
    look();
  }

  function look(): void {
    cancelNarration?.();
    cancelNarration = null;
    const due = dueAt(narration, clock.nowMs(), { debounceMs });
    narration = due.narration;
    if (due.say !== null) listeners.onNarration(due.say);
    if (due.lookAtMs !== null) cancelNarration = clock.after(due.lookAtMs - clock.nowMs(), look);
  }

  // ---- opening -------------------------------------------------------------------------------------

  const stream: PresenceStreamHandle = client.open({ bot, me, since: () => (lastSeq > 0 ? lastSeq : ports.since), onMessage: heardMessage });
  clock.after(readyMs, () => {
    if (isReady || disposed) return;
    // No word from the referee (a server without presence): the page speaks for itself.
    apply({ type: 'alone' });
    becomeReady();
  });

  return {
    ready,
    seat: () => seat,
    isActive: () => hasVoice(seat),
    mirror: () => mirror,
    lastSeq: () => lastSeq,
    takeOver() {
      if (disposed || hasVoice(seat)) return;
      // The other pages are told first (the lock stolen in this browser, the claim to the server),
      // then this page starts its conversation: the old page goes quiet meanwhile.
      if (lock !== null) void lock.take({ steal: true });
      claim();
      apply({ type: 'claimed' });
    },
    remember(conversation, lines) {
      setMirror(mirrorReloaded({ ...mirror, conversation }, conversation, lines, lastSeq));
    },
    publish,
    live,
    tap(conversationPorts, conversation) {
      return {
        ...conversationPorts,
        keep: (line) => {
          conversationPorts.keep(line);
          publish([{ kind: 'line', conversation: conversation(), line }]);
        },
        speaker: {
          ...conversationPorts.speaker,
          speak: (request) => {
            conversationPorts.speaker.speak(request);
            publish([{ kind: 'piece', conversation: conversation(), utteranceId: request.utteranceId, piece: request.piece, text: request.text }]);
          },
        },
      };
    },
    narrate,
    dispose() {
      disposed = true;
      stream.close();
      cancelNarration?.();
      cancelLive?.();
      unsubscribeStolen?.();
      unsubscribeChannel?.();
      lock?.release();
      channel?.close();
      becomeReady();
    },
  };
}

/**
 * What a passive page shows, in the conversation view's terms: the mirror's lines, live line and
 * phase. It does not listen; the way in makes it the active page — typing (or the muted
 * microphone's button) with an open microphone, holding the talk control with push-and-hold.
 */
export function mirrorConversationView(mirror: Mirror, page: { hold: boolean; speech: boolean; canListen: boolean }): ConversationView {
  const view = mirrorView(mirror);
  return {
    phase: view.phase,
    liveLine: view.liveLine,
    lines: view.lines,
    typing: !page.canListen ? 'unsupported' : page.hold ? null : 'muted',
    hold: page.hold,
    held: false,
    speech: page.speech,
    listening: false,
    problem: null,
    pendingAction: null,
  };
}
