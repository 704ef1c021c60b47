/**
 * Everything behind `/voice/<bot>`, for the page to show: the grant and the bot, the reader's
 * settings, the on-device engine and its download, the conversation (createConversation), the
 * drawer's conversations and memories, the lines waiting to be saved, and the notices it says.
 *
 * It builds the real adapters and hands them to the conversation; it holds no decision of the
 * conversation's own. Its state is one plain object, replaced on each change, for the UI to mirror.
 */
import type { PublicBot } from '../core/bot';
import type { ChatMessage, Line } from '../core/conversation/events';
import type { Settings } from '../core/settings';
import { defaultSettings } from '../core/settings';
import { recentMessages } from '../core/presence/compaction';
import { linesToTakeOver } from '../core/presence/mirror';
import { paceOf } from '../core/speech/pace';
import type { Pace } from '../core/speech/pace';
import { VOICES } from '../core/voice/style';
import type { PageConfig } from '../core/voice/api';
import { fetchPageConfig } from '../platform/apiClient';
import { audioContextInGesture, existingAudioContext } from '../platform/audio/audioContext';
import { createAudioPlayer } from '../platform/audio/player';
import type { AudioPlayer } from '../platform/audio/player';
import type { MicrophoneLevel, MicrophoneOptions } from '../platform/audio/microphone';
import { conversationApi, retryable } from '../platform/conversationApi';
import type { ConversationApi, Memory, SavedLine, ThreadSummary } from '../platform/conversationApi';
import { AnswerError, streamAnswer } from '../platform/doorClient';
import type { AnswerItem } from '../platform/doorClient';
import { hasRecogniser, webSpeechRecogniser } from '../platform/recogniser';
import type { Recogniser } from '../platform/recogniser';
import { noticesClient } from '../platform/noticesClient';
import { pageIdentity } from '../platform/pageIdentity';
import { presenceChannel } from '../platform/presenceChannel';
import { presenceClient } from '../platform/presenceClient';
import { webVoiceLock } from '../platform/voiceLock';
import { loadSettings, saveSettings } from '../platform/settingsStore';
import { createDeviceSpeaker } from '../platform/speakers/deviceSpeaker';
import type { DeviceSpeaker } from '../platform/speakers/deviceSpeaker';
import { createEndpointSpeaker } from '../platform/speakers/endpointSpeaker';
import { routeByVoice } from '../platform/speakers/routeByVoice';
import { loadVoiceCost, saveVoiceCost } from '../platform/voiceCostStore';
import type { Speaker } from '../platform/speakers/speaker';
import { createConversation } from './createConversation';
import type { Conversation, ConversationView, HearingPort, SpeakerFailure } from './createConversation';
import { drawer } from './drawer';
import { deviceEngine } from './engine';
import type { DeviceEngine, EngineState } from './engine';
import { Hearing, listenWithMicrophone } from './hearing';
import { openLineKeeping } from './lineKeeping';
import { mirrorConversationView, openPresence } from './presence';
import { scheduleNotices } from './notices';
import type { NoticeScheduler } from './notices';
import { sentenceOf } from './sentenceOf';
import { soundIn, utteranceRanges } from './utteranceRanges';
import type { PageSound } from './utteranceRanges';

export type { Memory, ThreadSummary } from '../platform/conversationApi';
export type { ConversationView } from './createConversation';
export type { EngineState } from './engine';

export interface VoicePageState {
  /** Loading the grant; ready; no such bot; the server unreachable (offline); broken. */
  phase: 'loading' | 'ready' | 'missing' | 'unreachable' | 'failed';
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
  /** Whether the person has been told that the browser's recogniser may send audio to its vendor. */
  toldAboutListening: boolean;
  /** Whether audio can play (a gesture has started it). */
  audioReady: boolean;
  /** Whether assistant audio is sounding now, as the player reports it. */
  audible: boolean;
  threads: readonly ThreadSummary[];
  /** The conversation on screen, once the server has it. */
  threadId: string | null;
  /** Null for bots that keep no memories; else the list, once asked for. */
  memories: readonly Memory[] | null;
  /** A sentence when the drawer's lists could not be had or changed. */
  drawerProblem: string | null;
  /** Lines said but not yet saved on the server. */
  waitingLines: number;
  /**
   * Where the voice is: `here`; in another tab of this browser or on another device (this page
   * is passive: it shows that page's conversation live, and offers "Use this one"); `free` when no
   * page has it (the person's first gesture here takes it).
   */
  voiceAt: 'here' | 'tab' | 'device' | 'free';
}

export interface VoicePage {
  state(): VoicePageState;
  subscribe(listener: (state: VoicePageState) => void): () => void;
  /** Any pointer or key gesture on the page: starts audio (and the greeting) where the browser requires one. */
  gesture(): void;
  /** The person has read that the recogniser may send audio to its vendor: listening may start. */
  startListening(): void;
  type(text: string): void;
  /** The person pressed Yes (`true`) or No for the action they are asked to confirm. */
  confirm(yes: boolean): void;
  press(): void;
  release(): void;
  mute(): void;
  unmute(): void;
  changeSettings(change: Partial<Settings>): void;
  /** The on-device voice could not start: the person asks for it to be loaded again. */
  retryVoice(): void;
  refreshThreads(): Promise<void>;
  openThread(threadId: string): Promise<void>;
  newConversation(): void;
  forgetThread(threadId: string): Promise<void>;
  loadMemories(): Promise<void>;
  forgetMemory(memoryId: string): Promise<void>;
  /** "Use this one": this page takes the voice from the person's other page. */
  useHere(): void;
  /** The assistant's output level now, 0..1, for the orb. */
  assistantLevel(): number;
  /** The microphone's level now, 0..1, for the orb. */
  microphoneLevel(): number;
  /** Whether assistant audio is sounding now. */
  assistantAudible(): boolean;
  dispose(): void;
}

export interface VoicePageOptions {
  /** How the page reaches its own API (the person cookie; in Supabase mode a fetch that adds the token). */
  fetch?: typeof fetch;
  /** Microphone options over the product's defaults (tests turn off gain control). */
  microphone?: Partial<MicrophoneOptions>;
  /** Where "told about listening" is remembered. Default `localStorage`. */
  storage?: Pick<Storage, 'getItem' | 'setItem'>;
}

/** The page's clock and timers, for the schedulers that run on one (notices, presence). */
const timers = {
  nowMs: () => Date.now(),
  after: (delayMs: number, run: () => void) => {
    const timer = setTimeout(run, delayMs);
    return () => {
      clearTimeout(timer);
    };
  },
};

/** localStorage key: the listening disclosure has been read on this device. */
const TOLD_KEY = 'confab.toldAboutListening';
/** A grant is renewed this long before it runs out. */
const GRANT_MARGIN_MS = 60_000;

/** The person's IANA time zone as the browser has it, or undefined where it cannot say. */
function timeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function storageOrNull(): Pick<Storage, 'getItem' | 'setItem'> | null {
  try {
    return globalThis.localStorage;
  } catch {
    return null;
  }
}

/** The lines of a kept conversation as the machine numbers them: each question starts an utterance. */
export function linesOf(saved: readonly SavedLine[]): Line[] {
  let utteranceId = 0;
  let last: 'person' | 'assistant' | null = null;
  return saved.map((line) => {
    if (line.who === 'person' || last !== 'person') utteranceId += 1;
    last = line.who;
    const role = line.who === 'person' ? 'user' : 'assistant';
    return line.interrupted ? { role, text: line.text, utteranceId, interrupted: true } : { role, text: line.text, utteranceId };
  });
}

export async function openVoicePage(slug: string, options: VoicePageOptions = {}): Promise<VoicePage> {
  const api: ConversationApi = conversationApi(options.fetch);
  const storage = options.storage ?? storageOrNull();
  const listeners = new Set<(state: VoicePageState) => void>();
  let state: VoicePageState = {
    phase: 'loading',
    reason: null,
    bot: null,
    settings: null,
    voices: [],
    engine: { kind: 'starting' },
    conversation: null,
    greeting: null,
    toldAboutListening: storage?.getItem(TOLD_KEY) === 'yes',
    audioReady: existingAudioContext()?.state === 'running',
    audible: false,
    threads: [],
    threadId: null,
    memories: null,
    drawerProblem: null,
    waitingLines: 0,
    voiceAt: 'here',
  };
  const update = (change: Partial<VoicePageState>) => {
    state = { ...state, ...change };
    for (const listener of listeners) listener(state);
  };

  let disposed = false;
  let grant: { token: string; expiresAt: number } | null = null;
  let config: PageConfig;
  let player: AudioPlayer | null = null;
  let speaker: Speaker | null = null;
  let conversation: Conversation | null = null;
  let unsubscribeConversation: (() => void) | null = null;
  let microphone: MicrophoneLevel | null = null;
  let microphoneOpening = false;
  /**
   * The microphone was refused or lost. A tap does not ask for it again (each ask would say the
   * refusal again, at every question typed); only the person unmuting does.
   */
  let microphoneRefused = false;
  let micLevel = 0;
  const recogniser: Recogniser | undefined = webSpeechRecogniser();
  const bargeIns = new Set<() => void>();
  const hearingPort: HearingPort = {
    onBargeIn(listener) {
      bargeIns.add(listener);
      return () => bargeIns.delete(listener);
    },
  };
  let hearing: Hearing | null = null;

  // ---- the grant and the bot -------------------------------------------------------------------

  async function freshGrant(): Promise<string> {
    if (grant !== null && grant.expiresAt - Date.now() > GRANT_MARGIN_MS) return grant.token;
    const started = await api.start(slug);
    grant = { token: started.grant, expiresAt: started.expiresAt };
    return started.grant;
  }

  try {
    const [started, pageConfig] = await Promise.all([api.start(slug), fetchPageConfig(options.fetch)]);
    grant = { token: started.grant, expiresAt: started.expiresAt };
    config = pageConfig;
    const bot = started.bot;
    const voices = bot.voice.by === 'browser' ? (bot.voice.voices.length > 0 ? bot.voice.voices.filter((v) => (VOICES as readonly string[]).includes(v)) : [...VOICES]) : bot.voice.voices;
    const settings = await loadSettings(bot, voices).catch(() => defaultSettings(bot, voices));
    update({ phase: 'ready', bot, voices, settings, memories: bot.memory === 'person+recall' ? [] : null, greeting: bot.greeting ?? null });
  } catch (error) {
    const missing = error instanceof Error && 'status' in error && (error as { status?: number }).status === 404;
    const unreachable = retryable(error);
    update({
      phase: missing ? 'missing' : unreachable ? 'unreachable' : 'failed',
      reason: missing ? `There is no bot called “${slug}” here.` : unreachable ? 'Confab’s server cannot be reached. Check the connection; this page will work again once it can.' : sentenceOf(error),
      engine: { kind: 'not-needed' },
    });
    return standingPage(() => state, listeners);
  }

  const bot = state.bot as PublicBot;
  const settingsNow = () => state.settings ?? defaultSettings(bot, state.voices);
  /** The on-device voice's name: the reader's pick where the device speaks, else its first voice (an endpoint bot's pick names the endpoint's voice). */
  const deviceVoice = () => (bot.voice.by === 'browser' && settingsNow().voice !== '' ? settingsNow().voice : 'F1');

  // ---- the engine starts as the page mounts, where the on-device voice will speak --------------

  const engine: DeviceEngine = deviceEngine({
    model: config.model,
    voice: deviceVoice,
    onState: (engineState: EngineState) => {
      update({ engine: engineState });
    },
  });
  if (bot.voice.by === 'browser') void engine.start();
  else update({ engine: { kind: 'not-needed' } });

  // ---- keeping lines -------------------------------------------------------------------------

  /** The server has the conversation on screen: the person's other pages are told its thread. */
  let threadKnown: (threadId: string) => void = () => undefined;

  const keeping = await openLineKeeping({
    api,
    bot: bot.slug,
    threadId: () => state.threadId,
    onThreadId: (threadId) => {
      update({ threadId });
      threadKnown(threadId);
    },
    onWaiting: (count) => {
      update({ waitingLines: count });
    },
    onProblem: (sentence) => {
      update({ drawerProblem: sentence });
    },
  });

  // ---- the drawer ------------------------------------------------------------------------------

  const drawerLists = drawer({
    api,
    bot,
    lists: () => state,
    update,
    onForgotten: (threadId) => {
      if (state.threadId === threadId) newConversation();
    },
  });

  // ---- the answer through the door ---------------------------------------------------------------

  async function* answer(messages: readonly ChatMessage[], signal: AbortSignal, turn: string): AsyncGenerator<AnswerItem> {
    // Read once per turn: a retried turn and a renewed grant go under the same key and turn id.
    const conversationKey = keeping.key();
    let verbRan = false;
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          // Never the whole history: the door is sent the last 32 messages, and keeps a summary of the rest.
          for await (const item of streamAnswer({ grant: await freshGrant(), messages: recentMessages(messages), signal, conversation: conversationKey, timeZone: timeZone(), turn }, options.fetch)) {
            if (item.type === 'verb') verbRan = true;
            yield item;
          }
          return;
        } catch (error) {
          // A grant that ran out is renewed once; the person never hears about it.
          if (!(error instanceof AnswerError && error.failure === 'expired' && attempt === 0)) throw error;
          grant = null;
        }
      }
    } finally {
      // A verb may have made a notice: look for it now, not in a minute.
      if (verbRan) void notices.refresh();
    }
  }

  // ---- sound: the player, the speakers, the microphone -------------------------------------------

  const speakerFailures = new Set<(failure: SpeakerFailure) => void>();
  /** Hears the on-device voice's pace; every conversation of the page listens. */
  const voicePaces = new Set<(pace: Pace) => void>();
  let device: DeviceSpeaker | null = null;
  /** The device voice's pace now: idle, at this device's kept cost, until the voice is made. */
  const devicePace = (): Pace =>
    device?.pace() ??
    paceOf({ atMs: Date.now(), playsUntilMs: 0, making: [], gapMs: bot.voice.gapMs, speed: settingsNow().speed, cost: loadVoiceCost(config.model.version) });

  /** The player exists once there is an AudioContext; events wait on this hub until then. */
  const playerEvents = { started: new Set<(key: { utteranceId: number; piece: number }) => void>(), ended: new Set<(key: { utteranceId: number; piece: number }) => void>() };

  function ensurePlayer(context: AudioContext): AudioPlayer {
    if (player !== null) return player;
    const made = createAudioPlayer(context, { gapMs: bot.voice.gapMs });
    made.on('started', (key) => {
      for (const listener of playerEvents.started) listener(key);
    });
    made.on('ended', (key) => {
      for (const listener of playerEvents.ended) listener(key);
    });
    made.on('audible', (audible) => {
      if (!disposed) update({ audible });
    });
    player = made;
    hearing = new Hearing(made, () => {
      for (const listener of bargeIns) listener();
    });
    hearing.onHeard((frame) => {
      micLevel = frame.level;
    });
    const { version } = config.model;
    const onDevice = createDeviceSpeaker({ tts: engine.tts, player: made, voice: () => ({ name: deviceVoice(), lang: settingsNow().language, speed: settingsNow().speed }), cost: loadVoiceCost(version) });
    device = onDevice;
    // The device's cost is kept per device as each piece measures it; the pace goes to the conversation.
    let keptCost = onDevice.pace().cost;
    onDevice.onPace((pace) => {
      if (pace.cost !== keptCost) {
        keptCost = pace.cost;
        saveVoiceCost(version, pace.cost);
      }
      for (const listener of voicePaces) listener(pace);
    });
    const endpoint = createEndpointSpeaker({ player: made, grant: freshGrant, voice: () => ({ name: bot.voice.by === 'endpoint' && settingsNow().voice !== '' ? settingsNow().voice : undefined, speed: settingsNow().speed }) });
    speaker = routeByVoice({ device: onDevice, endpoint });
    speaker.onFailed((failure) => {
      for (const listener of speakerFailures) listener(failure);
    });
    return made;
  }

  async function openMicrophone(context: AudioContext): Promise<void> {
    if (microphone !== null || microphoneOpening || hearing === null || recogniser === undefined) return;
    microphoneOpening = true;
    try {
      const opened = await listenWithMicrophone(
        hearing,
        context,
        (event) => {
          // A capture that ended by itself is let go, so unmuting can open a new one.
          microphone = null;
          microphoneRefused = true;
          conversation?.microphoneRefused(event.missing, event.reason);
        },
        options.microphone ?? {},
        undefined,
        player?.output,
      );
      // The person may have left while the browser asked: a capture nobody listens to is closed,
      // so the browser's recording light goes off.
      if (disposed) opened?.stop();
      else microphone = opened;
    } finally {
      microphoneOpening = false;
    }
  }

  // ---- the conversation ------------------------------------------------------------------------

  /** The page's sound as every conversation shares it; each sees it through a range of its own. */
  const pageSound: PageSound = {
    speak: (request) => {
      // Before any gesture the context may be suspended: the piece waits in it, unheard (and the
      // machine keeps listening), until a tap lets it play.
      ensurePlayer(audioContextInGesture());
      speaker?.speak(request);
    },
    cancel: (utteranceId) => {
      speaker?.cancel(utteranceId);
    },
    onFailed: (listener) => {
      speakerFailures.add(listener);
      return () => speakerFailures.delete(listener);
    },
    onPaced: (listener) => {
      voicePaces.add(listener);
      listener(devicePace());
      return () => voicePaces.delete(listener);
    },
    stop: () => player?.stop(),
    on: (event, listener) => {
      playerEvents[event].add(listener);
      return () => playerEvents[event].delete(listener);
    },
  };
  const nextRange = utteranceRanges();

  /** Starts a conversation in place of the one on screen; answers what that one had yet to announce. */
  function startConversation(lines: readonly Line[] = []): readonly string[] {
    const unsaid = conversation?.unsaid() ?? [];
    unsubscribeConversation?.();
    conversation?.stop();
    const settings = settingsNow();
    const made = createConversation(
      // What is kept and spoken is published to the person's other pages as it is.
      presence.tap(
        {
          recogniser,
          ...soundIn(nextRange(), pageSound),
          hearing: hearingPort,
          answer,
          keep: keeping.keep,
          settle: (actionId, approve) => api.settleAction(actionId, approve),
          language: () => settingsNow().language,
        },
        () => keeping.key(),
      ),
      {
        recogniser: recogniser !== undefined,
        speech: settings.speech,
        hold: settings.hearing === 'hold',
        muted: !state.toldAboutListening,
        voice: bot.voice.by === 'endpoint' ? 'endpoint' : 'device',
        language: settings.language,
        talk: { steps: bot.voice.steps, opening: bot.voice.opening, floor: bot.voice.floor, words: bot.voice.words, gapMs: bot.voice.gapMs },
        lines,
      },
    );
    conversation = made;
    unsubscribeConversation = made.subscribe((view) => {
      update({ conversation: view });
      presence.live(view, keeping.key());
    });
    update({ conversation: made.view() });
    presence.publish([{ kind: 'conversation', conversation: keeping.key(), threadId: state.threadId, reopened: lines.length > 0 }]);
    return unsaid;
  }

  /** What the bot is to say of its own accord before audio can play; said after the greeting, once it can. */
  const heldAnnouncements: string[] = [];

  function announce(text: string): void {
    if (state.audioReady && conversation !== null) conversation.announce(text);
    else heldAnnouncements.push(text);
  }

  /** Audio can play: the greeting first, then what waited to be said, then the notices come due. */
  function sayWhatWaited(): void {
    greetIfFresh();
    for (const text of heldAnnouncements.splice(0)) announce(text);
    notices.hearable();
  }

  function greetIfFresh(): void {
    const greeting = state.greeting;
    if (greeting === null || conversation === null || state.conversation?.lines.length !== 0) return;
    conversation.greet(greeting);
    update({ greeting: null });
  }

  // ---- notices: what the bot says when an app asks it to, at a time ------------------------------

  const noticesApi = noticesClient(options.fetch);
  const notices: NoticeScheduler = scheduleNotices({
    due: () => noticesApi.due(bot.slug),
    // Only the page with the voice says a notice: the others never claim one.
    claim: (noticeId) => (presence.hasVoice() ? noticesApi.claim(noticeId) : Promise.reject(new Error('Another page has the voice.'))),
    announce: (text) => {
      presence.publish([{ kind: 'notice', text }]);
      presence.narrate(text);
    },
    clock: timers,
  });

  // ---- presence: one voice across the person's tabs and devices -----------------------------------

  const identity = pageIdentity(bot.slug);
  /** The page has opened with the voice or without it; presence's word before then waits for it. */
  let seated = false;
  const presence = openPresence(
    {
      bot: bot.slug,
      me: identity.me,
      client: presenceClient(options.fetch),
      // One lock and one channel per person and bot in this browser.
      lock: (you) => webVoiceLock(`confab.voice.${you}.${bot.slug}`),
      channel: (you) => presenceChannel(`confab.presence.${you}.${bot.slug}`),
      lines: async (threadId) => linesOf(await api.lines(threadId)),
      since: identity.since,
      clock: timers,
    },
    {
      onVoice: (active) => {
        if (!seated) return;
        if (active) goLive();
        else goQuiet();
      },
      onSeat: (seat) => {
        update({ voiceAt: seat.role === 'free' ? 'free' : (seat.where ?? 'here') });
      },
      onMirror: () => {
        if (seated && conversation === null) showMirror();
      },
      onNarration: announce,
    },
  );
  threadKnown = (threadId) => {
    if (presence.hasVoice()) presence.publish([{ kind: 'conversation', conversation: keeping.key(), threadId, reopened: false }]);
  };

  /**
   * This page lost the voice: it stops listening and speaking at once — an answer under way is cut,
   * kept as interrupted — lets the microphone go, and shows the conversation as it goes on elsewhere.
   */
  function goQuiet(): void {
    // Silence first (the conversation's own barge-in stops the player too, a moment later).
    player?.stop();
    const quiet = conversation;
    if (quiet !== null) {
      quiet.interrupt();
      presence.remember({ conversation: keeping.key(), threadId: state.threadId, reopened: false }, quiet.view().lines);
      heldAnnouncements.push(...quiet.unsaid());
      unsubscribeConversation?.();
      unsubscribeConversation = null;
      quiet.stop();
      conversation = null;
    }
    player?.stop();
    microphone?.stop();
    microphone = null;
    showMirror();
  }

  /** This page has the voice now: the conversation goes on here from where the other page left it. */
  function goLive(): void {
    if (conversation !== null) return;
    const mirror = presence.mirror();
    const carried = mirror.conversation;
    if (carried !== null) {
      keeping.carryOn(carried.threadId, carried.conversation);
      update({ threadId: carried.threadId, greeting: mirror.lines.length > 0 ? null : state.greeting });
    }
    for (const text of startConversation(carried === null ? [] : linesToTakeOver(mirror))) announce(text);
    if (!state.audioReady) return;
    sayWhatWaited();
    void notices.refresh();
    const context = existingAudioContext();
    if (state.toldAboutListening && !microphoneRefused && context !== undefined) void openMicrophone(context);
  }

  /** What a page without the voice shows: the conversation the page with it is having. */
  function showMirror(): void {
    const settings = settingsNow();
    const mirror = presence.mirror();
    update({
      conversation: mirrorConversationView(mirror, { hold: settings.hearing === 'hold', speech: settings.speech, canListen: recogniser !== undefined }),
      threadId: mirror.conversation?.threadId ?? null,
      greeting: null,
    });
  }

  /** The person's gesture here takes the voice, if another page has it. */
  function takeOverHere(): void {
    if (!presence.hasVoice()) presence.takeOver();
  }

  await presence.ready;
  seated = true;
  if (presence.hasVoice()) startConversation();
  else showMirror();
  if (state.audioReady) sayWhatWaited();
  void drawerLists.refreshThreads();

  // A reload or a closed tab mid-answer cuts the answer like a barge-in, so its line is kept.
  const onPageHide = () => {
    identity.leaving(presence.lastSeq());
    keeping.leaving(true);
    conversation?.interrupt();
  };
  const onPageShow = () => {
    keeping.leaving(false);
  };
  globalThis.addEventListener('pagehide', onPageHide);
  globalThis.addEventListener('pageshow', onPageShow);

  function newConversation(): void {
    takeOverHere();
    keeping.fresh();
    player?.stop();
    update({ threadId: null, greeting: bot.greeting ?? null, drawerProblem: null });
    const unsaid = startConversation();
    if (state.audioReady) greetIfFresh();
    for (const text of unsaid) announce(text);
  }

  /** The listener waiting for a suspended AudioContext to run, if one is. */
  let waitingForAudio: { context: AudioContext; listener: () => void } | null = null;
  function stopWaitingForAudio(): void {
    waitingForAudio?.context.removeEventListener('statechange', waitingForAudio.listener);
    waitingForAudio = null;
  }

  function pageOf(): VoicePage {
    return {
      state: () => state,
      subscribe(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      gesture() {
        if (state.phase !== 'ready') return;
        // The voice is free (the page that had it closed): the person's first gesture here takes it.
        if (presence.seat().role === 'free') takeOverHere();
        const context = audioContextInGesture();
        ensurePlayer(context);
        const ready = () => {
          if (context.state !== 'running' || disposed) return;
          stopWaitingForAudio();
          update({ audioReady: true });
          sayWhatWaited();
          if (state.toldAboutListening && !microphoneRefused && presence.hasVoice()) void openMicrophone(context);
        };
        if (context.state === 'running') ready();
        else if (waitingForAudio === null) {
          // One listener while the context stays suspended, however many gestures come meanwhile.
          waitingForAudio = { context, listener: ready };
          context.addEventListener('statechange', ready);
        }
      },
      startListening() {
        storage?.setItem(TOLD_KEY, 'yes');
        update({ toldAboutListening: true });
        conversation?.unmute();
        microphoneRefused = false;
        const context = existingAudioContext();
        if (context !== undefined && presence.hasVoice()) void openMicrophone(context);
      },
      // Typing, holding to talk or unmuting on a page without the voice takes it at once.
      type: (text) => {
        takeOverHere();
        conversation?.type(text);
      },
      confirm: (yes) => conversation?.confirm(yes),
      press: () => {
        takeOverHere();
        conversation?.press();
      },
      release: () => conversation?.release(),
      mute: () => conversation?.mute(),
      unmute: () => {
        if (!state.toldAboutListening) return;
        takeOverHere();
        conversation?.unmute();
        microphoneRefused = false;
        const context = existingAudioContext();
        if (context !== undefined) void openMicrophone(context);
      },
      changeSettings(change) {
        const next = { ...settingsNow(), ...change };
        update({ settings: next });
        // A page without the voice shows the way in that the new settings give.
        if (conversation === null && seated) showMirror();
        void saveSettings(bot.slug, next).catch(() => undefined);
        if (change.language !== undefined && state.conversation?.listening === true) recogniser?.start(change.language);
        if (change.speech !== undefined || change.hearing !== undefined || change.language !== undefined) {
          conversation?.settings({
            ...(change.speech === undefined ? {} : { speech: change.speech }),
            ...(change.hearing === undefined ? {} : { hold: change.hearing === 'hold' }),
            ...(change.language === undefined ? {} : { language: change.language }),
          });
        }
      },
      retryVoice() {
        void engine.retry().catch(() => undefined);
      },
      refreshThreads: drawerLists.refreshThreads,
      async openThread(threadId) {
        takeOverHere();
        try {
          const saved = await api.lines(threadId);
          keeping.reopen(threadId);
          player?.stop();
          update({ threadId, greeting: null, drawerProblem: null });
          for (const text of startConversation(linesOf(saved))) announce(text);
        } catch (error) {
          update({ drawerProblem: sentenceOf(error) });
        }
      },
      newConversation,
      forgetThread: drawerLists.forgetThread,
      loadMemories: drawerLists.loadMemories,
      forgetMemory: drawerLists.forgetMemory,
      useHere: takeOverHere,
      assistantLevel: () => player?.level() ?? 0,
      microphoneLevel: () => micLevel,
      assistantAudible: () => player?.audible ?? false,
      dispose() {
        disposed = true;
        stopWaitingForAudio();
        notices.stop();
        presence.dispose();
        globalThis.removeEventListener('pagehide', onPageHide);
        globalThis.removeEventListener('pageshow', onPageShow);
        unsubscribeConversation?.();
        conversation?.stop();
        microphone?.stop();
        speaker?.dispose();
        player?.dispose();
        keeping.close();
        engine.dispose();
        listeners.clear();
      },
    };
  }

  return pageOf();
}

/** The page of a bot that could not be started: it shows why, and nothing else works. */
function standingPage(state: () => VoicePageState, listeners: Set<(state: VoicePageState) => void>): VoicePage {
  const nothing = () => undefined;
  const none = () => Promise.resolve();
  return {
    state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    gesture: nothing,
    startListening: nothing,
    type: nothing,
    confirm: nothing,
    press: nothing,
    release: nothing,
    mute: nothing,
    unmute: nothing,
    changeSettings: nothing,
    retryVoice: nothing,
    refreshThreads: none,
    openThread: none,
    newConversation: nothing,
    forgetThread: none,
    loadMemories: none,
    forgetMemory: none,
    useHere: nothing,
    assistantLevel: () => 0,
    microphoneLevel: () => 0,
    assistantAudible: () => false,
    dispose: () => {
      listeners.clear();
    },
  };
}

/** Whether this browser can listen at all (Firefox cannot): the page says so before anything else. */
export const canListen = (): boolean => hasRecogniser();
