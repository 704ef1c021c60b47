/**
 * One active page across a person's tabs and devices for a bot: which page holds the microphone
 * and the speaker (the active page), and what the others (passive) show. It plugs the adapters —
 * the server's stream, claim and publishing, this browser's Web Lock and BroadcastChannel — into
 * the pure decisions of src/core/presence, through its parts in src/app/presence/: the seat
 * (seatKeeper), the mirror (mirrorKeeper), publishing (publisher) and narration (narrator).
 *
 * The page (src/app/page/activePage.ts) is told when it becomes active or passive (`onActive`) and
 * does the rest; while it is active, what it says is published.
 */
import type { PendingActionEvent } from '../../common/acting/protocol';
import { resolveOptions } from '../../common/options';
import type { Limits } from '../../common/options';
import type { ConversationPorts, ConversationView } from './createConversation';
import type { Line } from '../../common/conversation/events';
import type { Emitter } from '../core/emitter';
import { applyEvent, mirrorEvent, mirrorLive, mirrorView } from '../core/presence/mirror';
import type { Mirror } from '../core/presence/mirror';
import { narratable, PROGRESS_GAP_MS, progressDueAt } from '../core/presence/narration';
import type { ConversationRef, PresenceMessage, WindowEvent } from '../../common/presence/protocol';
import type { PageSeat } from '../core/presence/seat';
import type { PresenceStreamHandle } from '../platform/presenceClient';
import { mirrorKeeper } from './presence/mirrorKeeper';
import { narrator } from './presence/narrator';
import { publisher } from './presence/publisher';
import { seatKeeper } from './presence/seatKeeper';
import type { OffersEvent, PresenceListeners, PresenceLogLine, PresencePorts } from './presence/ports';
export type { PresenceListeners, PresencePorts } from './presence/ports';
export { liveStateOf } from './presence/publisher';

/** What presence says, as events: for the page's parts, made after presence, that listen to it. */
export type PresenceEvents = { active: boolean; seat: PageSeat; mirror: Mirror; narration: string; runEnded: string; runProgress: { run: string; sentence: string }; runAsks: PendingActionEvent; offers: OffersEvent };

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
    onRunEnded: (run) => {
      events.emit('runEnded', run);
    },
    onRunProgress: (run, sentence) => {
      events.emit('runProgress', { run, sentence });
    },
    onRunAsks: (action) => {
      events.emit('runAsks', action);
    },
    onOffers: (event) => {
      events.emit('offers', event);
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
  /** The least time between two words of one run's progress, in ms. Default `PROGRESS_GAP_MS`. */
  progressGapMs: number;
}

const PRESENCE_PAGE_DEFAULTS: Readonly<PresenceOptions> = Object.freeze({ readyMs: 3_000, liveEveryMs: 150, debounceMs: 500, progressGapMs: PROGRESS_GAP_MS });

const LIMITS: Limits<PresenceOptions> = { readyMs: { min: 0 }, liveEveryMs: { min: 0 }, debounceMs: { min: 0 }, progressGapMs: { min: 0 } };

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

export function openPresence(ports: PresencePorts, listeners: PresenceListeners, options: Partial<PresenceOptions> = {}): PagePresence {
  const { readyMs, liveEveryMs, debounceMs, progressGapMs } = resolveOptions('pagePresence', PRESENCE_PAGE_DEFAULTS, options, LIMITS);
  const { me, bot, client, clock } = ports;
  let lastSeq = ports.since ?? 0;
  let disposed = false;
  const isDisposed = () => disposed;
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

  const mirrors = mirrorKeeper({
    lines: ports.lines,
    onMirror: (mirror) => {
      listeners.onMirror(mirror);
    },
    lastSeq: () => lastSeq,
    disposed: isDisposed,
  });
  const seats = seatKeeper({
    bot,
    me,
    client,
    lock: ports.lock,
    channel: ports.channel,
    listeners,
    onKnown: becomeReady,
    onTab: (message) => {
      if (message.type === 'events') mirrors.set(message.events.reduce(applyEvent, mirrors.mirror()));
      else mirrors.set(mirrorLive(mirrors.mirror(), message.live));
    },
    disposed: isDisposed,
  });
  const publishing = publisher({
    bot,
    me,
    client,
    clock,
    liveEveryMs,
    channel: seats.channel,
    isActive: seats.isActive,
    told: (seat) => {
      seats.apply({ type: 'told', seat });
    },
    disposed: isDisposed,
    log: ports.log ?? ((line: PresenceLogLine) => {
      console.warn(line);
    }),
  });
  /** Each run's progress waiting out its debounce: the cancel of its timer. */
  const progressTimers = new Map<string, () => void>();
  /** When each run's last word of progress was passed on, ms. */
  const progressPassedAt = new Map<string, number>();
  const narration = narrator(clock, debounceMs, (sentence) => {
    listeners.onNarration(sentence);
  });

  function heardMessage(message: PresenceMessage): void {
    if (disposed) return;
    switch (message.type) {
      case 'hello': {
        seats.join(message.you);
        seats.apply({ type: 'told', seat: message.seat });
        if (seats.owesClaim()) seats.claim();
        if (message.owed === 'reload') {
          lastSeq = message.latestSeq;
          void mirrors.reload(message.conversation);
        } else if (message.owed === 'nothing') {
          lastSeq = Math.max(lastSeq, message.latestSeq);
          const mirror = mirrors.mirror();
          if (mirror.conversation === null && message.conversation !== null) mirrors.set({ ...mirror, conversation: message.conversation, needsLines: message.conversation.reopened });
        }
        return;
      }
      case 'seat':
        seats.apply({ type: 'told', seat: message.seat });
        return;
      case 'yield':
        seats.apply({ type: 'yielded', to: message.to });
        return;
      case 'event': {
        const { sequenced } = message;
        if (sequenced.seq <= lastSeq) return;
        lastSeq = sequenced.seq;
        mirrors.set(mirrorEvent(mirrors.mirror(), sequenced));
        // The active page's own conversation shows an answer's choices, and which was taken, as the server kept them.
        if ((sequenced.event.kind === 'offer' || sequenced.event.kind === 'choice') && seats.isActive()) listeners.onOffers(sequenced.event);
        // What finished away from the conversation is said by the active page.
        if (sequenced.event.kind === 'verb' && seats.isActive()) {
          const text = narratable(sequenced.event);
          if (text !== null) narration.narrate(text);
        }
        // Work that outlives a turn: its question is asked; its progress, once quiet for the debounce
        // and not within the gap of its last word, said in place of any older word of it; its ending
        // (a notice, said once) drops what was not said.
        if (sequenced.event.kind === 'run' && seats.isActive()) {
          const { run, ended, ask, sentence } = sequenced.event;
          progressTimers.get(run)?.();
          progressTimers.delete(run);
          if (ask !== undefined) listeners.onRunAsks(ask);
          else if (ended) {
            progressPassedAt.delete(run);
            listeners.onRunEnded(run);
          } else if (sentence !== null && sentence.trim() !== '') {
            const nowMs = clock.nowMs();
            const dueAtMs = progressDueAt(nowMs, progressPassedAt.get(run) ?? null, { debounceMs, gapMs: progressGapMs });
            progressTimers.set(run, clock.after(dueAtMs - nowMs, () => {
              progressTimers.delete(run);
              progressPassedAt.set(run, clock.nowMs());
              listeners.onRunProgress(run, sentence.trim());
            }));
          }
        }
        return;
      }
      case 'live':
        if (!seats.isActive()) mirrors.set(mirrorLive(mirrors.mirror(), message.live));
        return;
    }
  }

  const stream: PresenceStreamHandle = client.open({ bot, me, since: () => (lastSeq > 0 ? lastSeq : ports.since), onMessage: heardMessage });
  clock.after(readyMs, () => {
    if (isReady || disposed) return;
    // No word from the referee (a server without presence): the page speaks for itself.
    seats.apply({ type: 'alone' });
    becomeReady();
  });

  return {
    ready,
    seat: seats.seat,
    isActive: seats.isActive,
    mirror: mirrors.mirror,
    lastSeq: () => lastSeq,
    takeOver: seats.takeOver,
    remember: mirrors.remember,
    publish: publishing.publish,
    live: publishing.live,
    tap: (conversationPorts, conversation) => tapped(conversationPorts, conversation, publishing.publish),
    narrate: narration.narrate,
    dispose() {
      disposed = true;
      stream.close();
      narration.stop();
      for (const cancel of progressTimers.values()) cancel();
      publishing.stop();
      seats.stop();
      becomeReady();
    },
  };
}

/** The conversation's ports, with what is kept and spoken published as it is. */
function tapped(conversationPorts: ConversationPorts, conversation: () => string, publish: (events: readonly WindowEvent[]) => void): ConversationPorts {
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
}

/**
 * What a passive page shows, in the conversation view's terms: the mirror's lines, live line and
 * phase. It does not listen; the way in makes it the active page — typing (or the muted
 * microphone's button) with an open microphone, holding the talk control down with push to talk.
 */
export function mirrorConversationView(mirror: Mirror, page: { pushToTalk: boolean; speech: boolean; canListen: boolean }): ConversationView {
  const view = mirrorView(mirror);
  return {
    phase: view.phase,
    liveLine: view.liveLine,
    lines: view.lines,
    typing: !page.canListen ? 'unsupported' : page.pushToTalk ? null : 'muted',
    pushToTalk: page.pushToTalk,
    talkHeld: false,
    waiting: false,
    speech: page.speech,
    listening: false,
    problem: null,
    pendingAction: null,
  };
}
