/**
 * Everything behind `/voice/<bot>`, for the page to show: the wiring of the page's parts (in
 * src/app/page/) over the real adapters. It holds no decision of the conversation's own.
 *
 * The parts, in the order they are made, each given what it needs: the state store, the engine,
 * the lines being kept, the drawer, presence (which page is active), the notices, the door's
 * answers, the page's audio, the conversation on screen, and the active page that moves it here
 * or away. Presence speaks through an emitter, so what listens to it can be made after it.
 */
import type { PublicBot } from '../../common/bot';
import { createEmitter } from '../core/emitter';
import { defaultSettings } from '../core/settings';
import { existingAudioContext } from '../platform/audio/audioContext';
import { conversationApi } from '../platform/conversationApi';
import { hasRecogniser, webSpeechRecogniser } from '../platform/recogniser';
import { noticesClient } from '../platform/noticesClient';
import { saveSettings } from '../platform/settingsStore';
import { speakLanguage } from '../platform/words';
import { drawer } from './drawer';
import { deviceEngine } from './engine';
import { openLineKeeping } from './lineKeeping';
import type { PresenceEvents } from './presence';
import { scheduleNotices } from './notices';
import { sentenceOf } from './sentenceOf';
import { activePage } from './page/activePage';
import { doorAnswers } from './page/doorAnswers';
import { createPageAudio } from './page/pageAudio';
import { hearingPicks, pageChoices } from './page/pageChoices';
import { linesOf, pageConversation } from './page/pageConversation';
import { openBot, pageTimers, storageOrNull } from './page/pageOpening';
import { openPagePresence } from './page/pagePresence';
import { pageRecognition } from './page/pageRecognition';
import { createPageStore, openingState } from './page/pageStore';
import type { VoicePage, VoicePageOptions } from './page/voicePageApi';
import { standingPage } from './page/standingPage';

export type { Memory, ThreadSummary } from '../platform/conversationApi';
export type { ConversationView } from './createConversation';
export type { EngineState } from './engine';
export type { VoicePageState } from './page/pageStore';
export type { VoicePage, VoicePageOptions } from './page/voicePageApi';

/** localStorage key: the listening disclosure has been read on this device. */
const TOLD_KEY = 'confab.toldAboutListening';

export async function openVoicePage(slug: string, options: VoicePageOptions = {}): Promise<VoicePage> {
  const api = conversationApi(options.fetch);
  const storage = options.storage ?? storageOrNull();
  const store = createPageStore(openingState({ toldAboutListening: storage?.getItem(TOLD_KEY) === 'yes', audioReady: existingAudioContext()?.state === 'running' }));
  const opened = await openBot(slug, api, store, options.fetch);
  if (opened === null) return standingPage(store);
  const { started, config } = opened;
  const bot: PublicBot = started.bot;
  const state = store.state;
  const update = store.update;
  const settingsNow = () => state().settings ?? defaultSettings(bot, state().voices);
  /** The on-device voice's name: the reader's pick where the device speaks, else its first voice (an endpoint bot's pick names the endpoint's voice). */
  const deviceVoice = () => (bot.voice.by === 'browser' && settingsNow().voice !== '' ? settingsNow().voice : 'F1');
  const recogniser = webSpeechRecogniser();
  const recognition = pageRecognition({ recogniser, store, language: () => settingsNow().language, botName: bot.name, usedWords: () => api.phrases(bot.slug) });
  recognition.check();

  // The engine starts as the page mounts, where the on-device voice will speak.
  const engine = deviceEngine({
    model: config.model,
    voice: deviceVoice,
    onState: (engineState) => {
      update({ engine: engineState });
    },
  });
  if (bot.voice.by === 'browser') void engine.start();
  else update({ engine: { kind: 'not-needed' } });

  /** The server has the conversation on screen: told to presence, made after the lines' keeping. */
  const kept = createEmitter<{ threadId: string }>();
  const keeping = await openLineKeeping({
    api,
    bot: bot.slug,
    threadId: () => state().threadId,
    onThreadId: (threadId) => {
      update({ threadId });
      kept.emit('threadId', threadId);
    },
    onWaiting: (count) => {
      update({ waitingLines: count });
    },
    onProblem: (sentence) => {
      update({ drawerProblem: sentence });
    },
  });

  const presenceEvents = createEmitter<PresenceEvents>();
  const { presence, identity } = openPagePresence({ bot: bot.slug, api, fetch: options.fetch, events: presenceEvents });
  kept.on('threadId', (threadId) => {
    // The person's other pages are told the thread of the conversation on screen.
    if (presence.isActive()) presence.publish([{ kind: 'conversation', conversation: keeping.key(), threadId, reopened: false }]);
  });

  const noticesApi = noticesClient(options.fetch);
  const notices = scheduleNotices({
    due: () => noticesApi.due(bot.slug),
    // Only the active page says a notice: the others never claim one.
    claim: (noticeId) => (presence.isActive() ? noticesApi.claim(noticeId) : Promise.reject(new Error('Another page is the active one.'))),
    announce: (text) => {
      presence.publish([{ kind: 'notice', text }]);
      presence.narrate(text);
    },
    clock: pageTimers,
  });

  const door = doorAnswers({ api, slug, first: started, fetch: options.fetch, conversationKey: () => keeping.key(), language: () => settingsNow().language, onVerbRan: () => void notices.refresh() });
  const audio = createPageAudio({ bot, model: config.model, engine, settings: settingsNow, deviceVoice, grant: door.grant, canListen: recogniser !== undefined, microphone: options.microphone ?? {} });
  audio.on('audible', (audible) => {
    update({ audible });
  });
  audio.on('ducked', (ducked) => {
    update({ ducked });
  });
  // Words that pick one of an answer's choices are pressed, not asked (`pageChoices`, made after the conversation it presses in).
  let picks: (text: string) => boolean = () => false;
  const heard = recogniser === undefined ? undefined : hearingPicks(recogniser, (text) => picks(text));
  const talk = pageConversation({ bot, store, settings: settingsNow, recogniser: heard, audio, answer: door.answer, keeping, settle: (actionId, approve) => api.settleAction(actionId, approve), presence, notices });
  audio.on('microphoneLost', (event) => talk.current()?.microphoneRefused(event.missing, event.reason));
  presenceEvents.on('narration', talk.announce);
  presenceEvents.on('runProgress', ({ run, sentence }) => {
    talk.announce(sentence, run);
  });
  presenceEvents.on('runEnded', (run) => {
    talk.withdraw(run);
    void notices.refresh();
  });
  presenceEvents.on('runAsks', talk.ask);
  // Questions runs asked while no page was open are asked when this one becomes the active page.
  presenceEvents.on('active', (isActive) => {
    if (isActive) api.waitingActions(bot.slug).then((asks) => { for (const ask of asks) talk.ask(ask); }, () => undefined);
  });
  const active = activePage({ presence, presenceEvents, conversation: talk, audio, keeping, store, notices, settings: settingsNow, canListen: recogniser !== undefined });
  /** What the person typed or pressed, as their words: typing on a passive page makes it the active one at once. */
  const send = (text: string): void => {
    active.takeOverHere();
    talk.current()?.type(text);
  };
  const choices = pageChoices({ api, store, conversation: talk, keeping, presenceEvents, send, language: () => settingsNow().language });
  picks = choices.picks;

  const newConversation = (): void => {
    active.takeOverHere();
    keeping.fresh();
    audio.stop();
    update({ threadId: null, greeting: bot.greeting ?? null, drawerProblem: null });
    const unsaid = talk.start();
    if (state().audioReady) talk.greetIfFresh();
    for (const text of unsaid) talk.announce(text);
  };

  const drawerLists = drawer({
    api,
    bot,
    lists: state,
    update,
    onForgotten: (threadId) => {
      if (state().threadId === threadId) newConversation();
    },
  });

  await active.seat();
  if (state().audioReady) talk.sayWhatWaited();
  void drawerLists.refreshThreads();

  // A reload or a closed tab mid-answer cuts the answer like a barge-in, so its line is kept.
  const onPageHide = () => {
    identity.leaving(presence.lastSeq());
    keeping.leaving(true);
    talk.current()?.interrupt();
  };
  const onPageShow = () => {
    keeping.leaving(false);
  };
  globalThis.addEventListener('pagehide', onPageHide);
  globalThis.addEventListener('pageshow', onPageShow);

  /** The person asked to listen: the microphone may be asked for again, on this page's context. */
  const listenAgain = (): void => {
    talk.current()?.unmute();
    audio.allowMicrophone();
  };

  return {
    state,
    subscribe: store.subscribe,
    gesture() {
      if (state().phase !== 'ready') return;
      // No page is active (the one that was closed): the person's first gesture here makes this one active.
      if (presence.seat().role === 'free') active.takeOverHere();
      audio.unlock((context) => {
        update({ audioReady: true });
        talk.sayWhatWaited();
        if (state().toldAboutListening && !audio.microphoneRefused() && presence.isActive()) void audio.openMicrophone(context);
      });
    },
    startListening() {
      storage?.setItem(TOLD_KEY, 'yes');
      update({ toldAboutListening: true });
      listenAgain();
      if (presence.isActive()) void audio.openMicrophone();
    },
    // Typing, holding to talk or unmuting on a passive page makes it the active one at once; typing a choice presses it.
    type: (text) => {
      if (!choices.picks(text)) send(text);
    },
    choose: choices.choose,
    confirm: (yes) => talk.current()?.confirm(yes),
    press: () => {
      active.takeOverHere();
      talk.current()?.press();
    },
    release: () => talk.current()?.release(),
    mute: () => talk.current()?.mute(),
    unmute: () => {
      if (!state().toldAboutListening) return;
      active.takeOverHere();
      listenAgain();
      void audio.openMicrophone();
    },
    changeSettings(change) {
      const languageChanged = change.language !== undefined && change.language !== settingsNow().language;
      const next = { ...settingsNow(), ...change };
      update({ settings: next });
      // A passive page shows the way in that the new settings give.
      if (talk.current() === null && active.seated()) active.showMirror();
      void saveSettings(bot.slug, next).catch(() => undefined);
      talk.settingsChanged(change);
      if (languageChanged) {
        recognition.languageChanged();
        void speakLanguage(next.language);
      }
    },
    checkOnDevice: recognition.check,
    installSpeechPack: recognition.installPack,
    retryVoice: () => void engine.retry().catch(() => undefined),
    refreshThreads: drawerLists.refreshThreads,
    async openThread(threadId) {
      active.takeOverHere();
      try {
        const saved = await api.lines(threadId);
        keeping.reopen(threadId);
        audio.stop();
        update({ threadId, greeting: null, drawerProblem: null });
        for (const text of talk.start(linesOf(saved))) talk.announce(text);
      } catch (error) {
        update({ drawerProblem: sentenceOf(error) });
      }
    },
    newConversation,
    forgetThread: drawerLists.forgetThread,
    loadMemories: drawerLists.loadMemories,
    forgetMemory: drawerLists.forgetMemory,
    useHere: active.takeOverHere,
    assistantLevel: audio.level,
    microphoneLevel: audio.microphoneLevel,
    assistantAudible: audio.audible,
    dispose() {
      notices.stop();
      choices.dispose();
      presence.dispose();
      active.dispose();
      globalThis.removeEventListener('pagehide', onPageHide);
      globalThis.removeEventListener('pageshow', onPageShow);
      talk.dispose();
      audio.dispose();
      keeping.close();
      engine.dispose();
      store.clear();
    },
  };
}

/** Whether this browser can listen at all (Firefox cannot): the page says so before anything else. */
export const canListen = (): boolean => hasRecogniser();
