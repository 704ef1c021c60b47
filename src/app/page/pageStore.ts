/**
 * The page's state store: one plain object, replaced on each change, for the UI to mirror.
 *
 * `phase` is not a machine: it is the opening's one outcome (loading, then ready or why not) and
 * never changes after, so a machine would have one edge. Where the active page is comes from the
 * seat's machine in src/core/presence/seat.ts (`activeAt` is only its shape for the UI); whether
 * audio can play is a one-way latch the browser's AudioContext sets (`audioReady`).
 */
import type { PublicBot } from '../../../common/bot';
import { createEmitter } from '../../core/emitter';
import type { Settings } from '../../core/settings';
import type { OnDeviceAvailability, SpeechPackDownload } from '../../core/hearing/onDeviceRecognition';
import type { Memory, ThreadSummary } from '../../platform/conversationApi';
import type { ConversationView } from '../createConversation';
import type { EngineState } from '../engine';

export interface VoicePageState {
  /** Loading the grant; ready; no such bot; a bot not for this person (its `for:`); the server unreachable (offline); broken. */
  phase: 'loading' | 'ready' | 'missing' | 'refused' | 'unreachable' | 'failed';
  /** A sentence for the person when `phase` is not ready. */
  reason: string | null;
  bot: PublicBot | null;
  settings: Settings | null;
  /** The voices the cog offers (an empty list is not shown). */
  voices: readonly string[];
  engine: EngineState;
  conversation: ConversationView | null;
  /** The greeting shown before the first gesture lets it be spoken; null once it is the machine's. */
  greeting: string | null;
  /** Whether the person has been told where their speech is turned into words (on this device, or maybe by the browser's maker). */
  toldAboutListening: boolean;
  /** What the browser says of hearing the reader's language on this device: `unavailable` until it has said, and where it cannot. */
  onDevice: OnDeviceAvailability;
  /** The on-device speech pack's download, as asked for from the settings on this page. */
  speechPack: SpeechPackDownload;
  /** Whether audio can play (a gesture has started it). */
  audioReady: boolean;
  /** Whether assistant audio is sounding now, as the player reports it. */
  audible: boolean;
  /** Whether the voice is ducked now: someone was heard over it, and it is deciding whether to yield. */
  ducked: boolean;
  threads: readonly ThreadSummary[];
  /** The conversation on screen, once the server has it. */
  threadId: string | null;
  /** Null for bots that keep no memories; else the list, once asked for. */
  memories: readonly Memory[] | null;
  /** A sentence when the drawer's lists could not be had or changed. */
  drawerProblem: string | null;
  /** Why a press of the offer `offer` did not get through (another page took one first), said under its choices. */
  choiceProblem: { offer: string; sentence: string } | null;
  /** Lines said but not yet saved on the server. */
  waitingLines: number;
  /**
   * Where the active page is: `here`; in another tab of this browser or on another device (this
   * page is passive: it shows the active page's conversation live, and offers "Use this one");
   * `free` when no page is active (the person's first gesture here makes this one active).
   */
  activeAt: 'here' | 'tab' | 'device' | 'free';
}

export interface PageStore {
  state: () => VoicePageState;
  /** Replaces the state with `change` over it, and tells every listener. */
  update: (change: Partial<VoicePageState>) => void;
  subscribe: (listener: (state: VoicePageState) => void) => () => void;
  /** Forgets every listener (the page is closed). */
  clear: () => void;
}

/** The state as the page opens: loading, with what this device already knows. */
export function openingState(known: { toldAboutListening: boolean; audioReady: boolean }): VoicePageState {
  return {
    phase: 'loading',
    reason: null,
    bot: null,
    settings: null,
    voices: [],
    engine: { kind: 'starting' },
    conversation: null,
    greeting: null,
    toldAboutListening: known.toldAboutListening,
    onDevice: 'unavailable',
    speechPack: 'idle',
    audioReady: known.audioReady,
    audible: false,
    ducked: false,
    threads: [],
    threadId: null,
    memories: null,
    drawerProblem: null,
    choiceProblem: null,
    waitingLines: 0,
    activeAt: 'here',
  };
}

export function createPageStore(initial: VoicePageState): PageStore {
  let state = initial;
  const changes = createEmitter<{ change: VoicePageState }>();
  return {
    state: () => state,
    update(change) {
      state = { ...state, ...change };
      changes.emit('change', state);
    },
    subscribe: (listener) => changes.on('change', listener),
    clear: () => {
      changes.clear();
    },
  };
}
