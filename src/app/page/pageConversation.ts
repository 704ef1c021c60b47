/**
 * The conversation on screen while this page is the active one: starting one (fresh, reopened or
 * carried on from another page), what the bot waits to say until audio can play, and the greeting.
 * What is kept and spoken is published to the person's other pages as it is.
 */
import type { PendingActionEvent } from '../../../common/acting/protocol';
import type { PublicBot } from '../../../common/bot';
import type { Line } from '../../../common/conversation/events';
import type { Settings } from '../../core/settings';
import type { SavedLine } from '../../platform/conversationApi';
import { createConversation } from '../createConversation';
import type { Conversation, ConversationPorts } from '../createConversation';
import type { LineKeeping } from '../lineKeeping';
import type { NoticeScheduler } from '../notices';
import type { PagePresence } from '../presence';
import { soundIn, utteranceRanges } from '../utteranceRanges';
import type { PageAudio } from './pageAudio';
import type { PageStore } from './pageStore';

export interface PageConversationPorts {
  bot: PublicBot;
  store: PageStore;
  settings: () => Settings;
  recogniser: ConversationPorts['recogniser'];
  audio: Pick<PageAudio, 'sound' | 'hearing' | 'clock'>;
  answer: ConversationPorts['answer'];
  keeping: Pick<LineKeeping, 'keep' | 'key'>;
  settle: ConversationPorts['settle'];
  presence: Pick<PagePresence, 'tap' | 'live' | 'publish'>;
  notices: Pick<NoticeScheduler, 'hearable'>;
}

export interface PageConversation {
  /** The conversation on screen, or null while another page is active. */
  current: () => Conversation | null;
  /** Starts a conversation in place of the one on screen; answers what that one had yet to announce. */
  start: (lines?: readonly Line[]) => readonly string[];
  /**
   * Ends the conversation here as the page goes passive: an answer under way is cut (kept as
   * interrupted), its lines handed to `remember`, what it had yet to say kept for later.
   */
  leave: (remember: (lines: readonly Line[]) => void) => void;
  /** Says `text` of the bot's own accord, or keeps it until audio can play. */
  /** Says `text` between turns; with `about`, in place of an older word of the same thing still waiting. */
  announce: (text: string, about?: string) => void;
  /** Drops what waits to be said about `about`. */
  withdraw: (about: string) => void;
  /** Asks a run's question between turns (held until audio can play). */
  ask: (action: PendingActionEvent) => void;
  /** Audio can play: the greeting first, then what waited to be said, then the notices come due. */
  sayWhatWaited: () => void;
  /** Greets in a conversation with nothing in it yet, if the greeting is still to be said. */
  greetIfFresh: () => void;
  /** The reader changed settings: the conversation here (and the recogniser's language) follow. */
  settingsChanged: (change: Partial<Settings>) => void;
  dispose: () => void;
}

export function pageConversation(ports: PageConversationPorts): PageConversation {
  const { bot, store, keeping, presence } = ports;
  let conversation: Conversation | null = null;
  let unsubscribe: (() => void) | null = null;
  /** What the bot is to say of its own accord before audio can play; said after the greeting, once it can. */
  const waiting: string[] = [];
  const nextRange = utteranceRanges();

  function stopCurrent(): void {
    unsubscribe?.();
    unsubscribe = null;
    conversation?.stop();
    conversation = null;
  }

  function start(lines: readonly Line[] = []): readonly string[] {
    const unsaid = conversation?.unsaid() ?? [];
    stopCurrent();
    const settings = ports.settings();
    const made = createConversation(
      presence.tap(
        {
          recogniser: ports.recogniser,
          ...soundIn(nextRange(), ports.audio.sound),
          hearing: ports.audio.hearing,
          clock: ports.audio.clock,
          answer: ports.answer,
          keep: keeping.keep,
          settle: ports.settle,
          language: () => ports.settings().language,
        },
        () => keeping.key(),
      ),
      {
        recogniser: ports.recogniser !== undefined,
        speech: settings.speech,
        pushToTalk: settings.hearing === 'pushToTalk',
        muted: !store.state().toldAboutListening,
        voice: bot.voice.by === 'endpoint' ? 'endpoint' : 'device',
        language: settings.language,
        talk: { steps: bot.voice.steps, opening: bot.voice.opening, floor: bot.voice.floor, words: bot.voice.words, gapMs: bot.voice.gapMs },
        lines,
      },
    );
    conversation = made;
    unsubscribe = made.subscribe((view) => {
      store.update({ conversation: view });
      presence.live(view, keeping.key());
    });
    store.update({ conversation: made.view() });
    presence.publish([{ kind: 'conversation', conversation: keeping.key(), threadId: store.state().threadId, reopened: lines.length > 0 }]);
    return unsaid;
  }

  function announce(text: string, about?: string): void {
    if (store.state().audioReady && conversation !== null) conversation.announce(text, about);
    else waiting.push(text);
  }

  const waitingAsks: PendingActionEvent[] = [];
  function ask(action: PendingActionEvent): void {
    if (store.state().audioReady && conversation !== null) conversation.ask(action);
    else if (!waitingAsks.some((a) => a.id === action.id)) waitingAsks.push(action);
  }

  function greetIfFresh(): void {
    const state = store.state();
    if (state.greeting === null || conversation === null || state.conversation?.lines.length !== 0) return;
    conversation.greet(state.greeting);
    store.update({ greeting: null });
  }

  return {
    current: () => conversation,
    start,
    leave(remember) {
      const quiet = conversation;
      if (quiet === null) return;
      quiet.interrupt();
      remember(quiet.view().lines);
      waiting.push(...quiet.unsaid());
      stopCurrent();
    },
    announce,
    withdraw: (about) => conversation?.withdraw(about),
    ask,
    sayWhatWaited() {
      greetIfFresh();
      for (const text of waiting.splice(0)) announce(text);
      for (const action of waitingAsks.splice(0)) ask(action);
      ports.notices.hearable();
    },
    greetIfFresh,
    settingsChanged(change) {
      if (change.language !== undefined && store.state().conversation?.listening === true) ports.recogniser?.start(change.language);
      if (change.speech !== undefined || change.hearing !== undefined || change.language !== undefined) {
        conversation?.settings({
          ...(change.speech === undefined ? {} : { speech: change.speech }),
          ...(change.hearing === undefined ? {} : { pushToTalk: change.hearing === 'pushToTalk' }),
          ...(change.language === undefined ? {} : { language: change.language }),
        });
      }
    },
    dispose: stopCurrent,
  };
}

/** The lines of a kept conversation as the machine numbers them: each question starts an utterance. */
export function linesOf(saved: readonly SavedLine[]): Line[] {
  let utteranceId = 0;
  let last: 'person' | 'assistant' | null = null;
  return saved.map((line) => {
    if (line.who === 'person' || last !== 'person') utteranceId += 1;
    last = line.who;
    const role = line.who === 'person' ? 'user' : 'assistant';
    const kept: Line = line.interrupted ? { role, text: line.text, utteranceId, interrupted: true } : { role, text: line.text, utteranceId };
    // An answer that offered choices shows them under its words, the one taken marked.
    return line.choices == null ? kept : { ...kept, offer: { id: line.id, question: line.choices.question, items: line.choices.items, taken: line.taken ?? null } };
  });
}
