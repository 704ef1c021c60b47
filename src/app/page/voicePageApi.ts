/**
 * What the page behind `/voice/<bot>` offers the UI (openVoicePage in src/app/voicePage.ts makes
 * it), and the options it is opened with.
 */
import type { Settings } from '../../core/settings';
import type { MicrophoneOptions } from '../../platform/audio/microphone';
import type { VoicePageState } from './pageStore';

export interface VoicePage {
  state(): VoicePageState;
  subscribe(listener: (state: VoicePageState) => void): () => void;
  /** Any pointer or key gesture on the page: starts audio (and the greeting) where the browser requires one. */
  gesture(): void;
  /** The person has read where their speech is turned into words: listening may start. */
  startListening(): void;
  /** Typed words, the person's next; words that pick one of the open offer's choices press it. */
  type(text: string): void;
  /** The person pressed choice `choice` of the offer `offer` (its line's id): sent as their words once the server has taken it. */
  choose(offer: string, choice: number): void;
  /** The person pressed Yes (`true`) or No for the action they are asked to confirm. */
  confirm(yes: boolean): void;
  press(): void;
  release(): void;
  mute(): void;
  unmute(): void;
  changeSettings(change: Partial<Settings>): void;
  /** Asks the browser again whether the reader's language is heard on this device (the settings opened). */
  checkOnDevice(): void;
  /** Downloads the on-device speech pack for the reader's language (the person pressed its button). */
  installSpeechPack(): void;
  /** The on-device voice could not start: the person asks for it to be loaded again. */
  retryVoice(): void;
  refreshThreads(): Promise<void>;
  openThread(threadId: string): Promise<void>;
  newConversation(): void;
  forgetThread(threadId: string): Promise<void>;
  loadMemories(): Promise<void>;
  forgetMemory(memoryId: string): Promise<void>;
  /** "Use this one": this page becomes the active one in place of the person's other page. */
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
