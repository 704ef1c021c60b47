/**
 * Which of the person's pages for this bot is the active one — the page holding the microphone
 * and the speaker — as this page lives it: going live (the conversation carried on here from the
 * mirror), going quiet (passive: it stops at once and shows the active page's conversation), and
 * taking over at the person's gesture.
 *
 * Active here or elsewhere is already a pure machine: the seat (src/core/presence/seat.ts), which
 * presence runs. This part adds one fact of its own, `seated`: until presence has first said, the
 * page has neither started a conversation nor shown the mirror, and what presence says waits.
 */
import { linesToTakeOver } from '../../core/presence/mirror';
import type { Emitter } from '../../core/emitter';
import type { Settings } from '../../core/settings';
import type { LineKeeping } from '../lineKeeping';
import type { NoticeScheduler } from '../notices';
import { mirrorConversationView } from '../presence';
import type { PagePresence, PresenceEvents } from '../presence';
import type { PageAudio } from './pageAudio';
import type { PageConversation } from './pageConversation';
import type { PageStore } from './pageStore';

export interface ActivePagePorts {
  presence: Pick<PagePresence, 'ready' | 'isActive' | 'mirror' | 'remember' | 'takeOver'>;
  /** What presence says, as it says it. */
  presenceEvents: Pick<Emitter<PresenceEvents>, 'on'>;
  conversation: Pick<PageConversation, 'current' | 'start' | 'leave' | 'announce' | 'sayWhatWaited'>;
  audio: Pick<PageAudio, 'stop' | 'openMicrophone' | 'closeMicrophone' | 'microphoneRefused'>;
  keeping: Pick<LineKeeping, 'carryOn' | 'key'>;
  store: PageStore;
  notices: Pick<NoticeScheduler, 'refresh'>;
  settings: () => Settings;
  /** Whether the browser has a recogniser. */
  canListen: boolean;
}

export interface ActivePage {
  /** Waits for presence's first word, then starts the conversation here (active) or shows the mirror (passive). */
  seat: () => Promise<void>;
  /** Whether the page has been seated (presence has said where the active page is). */
  seated: () => boolean;
  /** What a passive page shows: the conversation the active page is having. */
  showMirror: () => void;
  /** The person's gesture here makes this page the active one, if another page is. */
  takeOverHere: () => void;
  dispose: () => void;
}

export function activePage(ports: ActivePagePorts): ActivePage {
  const { presence, conversation, audio, keeping, store } = ports;
  let seated = false;

  function showMirror(): void {
    const settings = ports.settings();
    const mirror = presence.mirror();
    store.update({
      conversation: mirrorConversationView(mirror, { pushToTalk: settings.hearing === 'pushToTalk', speech: settings.speech, canListen: ports.canListen }),
      threadId: mirror.conversation?.threadId ?? null,
      greeting: null,
    });
  }

  /**
   * This page went passive: it stops listening and speaking at once — an answer under way is cut,
   * kept as interrupted — lets the microphone go, and shows the conversation as it goes on elsewhere.
   */
  function goQuiet(): void {
    // Silence first (the conversation's own barge-in stops the player too, a moment later).
    audio.stop();
    conversation.leave((lines) => {
      presence.remember({ conversation: keeping.key(), threadId: store.state().threadId, reopened: false }, lines);
    });
    audio.stop();
    audio.closeMicrophone();
    showMirror();
  }

  /** This page is the active one now: the conversation goes on here from where the other page left it. */
  function goLive(): void {
    if (conversation.current() !== null) return;
    const mirror = presence.mirror();
    const carried = mirror.conversation;
    if (carried !== null) {
      keeping.carryOn(carried.threadId, carried.conversation);
      store.update({ threadId: carried.threadId, greeting: mirror.lines.length > 0 ? null : store.state().greeting });
    }
    for (const text of conversation.start(carried === null ? [] : linesToTakeOver(mirror))) conversation.announce(text);
    if (!store.state().audioReady) return;
    conversation.sayWhatWaited();
    void ports.notices.refresh();
    if (store.state().toldAboutListening && !audio.microphoneRefused()) void audio.openMicrophone();
  }

  const unsubscribe = [
    ports.presenceEvents.on('active', (active) => {
      if (!seated) return;
      if (active) goLive();
      else goQuiet();
    }),
    ports.presenceEvents.on('seat', (seat) => {
      store.update({ activeAt: seat.role === 'free' ? 'free' : (seat.where ?? 'here') });
    }),
    ports.presenceEvents.on('mirror', () => {
      if (seated && conversation.current() === null) showMirror();
    }),
  ];

  return {
    async seat() {
      await presence.ready;
      seated = true;
      if (presence.isActive()) conversation.start();
      else showMirror();
    },
    seated: () => seated,
    showMirror,
    takeOverHere() {
      if (!presence.isActive()) presence.takeOver();
    },
    dispose() {
      for (const stop of unsubscribe) stop();
    },
  };
}
