/** The page of a bot that could not be started: it shows why, and nothing else works. */
import type { VoicePage } from './voicePageApi';
import type { PageStore } from './pageStore';

export function standingPage(store: PageStore): VoicePage {
  const nothing = () => undefined;
  const none = () => Promise.resolve();
  return {
    state: store.state,
    subscribe: store.subscribe,
    gesture: nothing,
    startListening: nothing,
    type: nothing,
    choose: nothing,
    confirm: nothing,
    press: nothing,
    release: nothing,
    mute: nothing,
    unmute: nothing,
    changeSettings: nothing,
    checkOnDevice: nothing,
    installSpeechPack: nothing,
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
    dispose: store.clear,
  };
}
