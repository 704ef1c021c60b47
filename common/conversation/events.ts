/**
 * What the conversation machine hears, what it is started with, and what it keeps. Events are
 * dotted facts, named for what happened rather than what should be done about it.
 */
import type { ActionSettled, PendingActionEvent } from '../acting/protocol';
import type { PageSay } from '../pageWords';
import type { Pace } from '../speaking/pace';
import type { Talk } from '../talk';
import type { ChunkerState } from '../speaking/chunker';

/** Who voices the answer: the on-device Supertonic engine, or the site's paid endpoint. */
export type Voice = 'device' | 'endpoint';

/**
 * Why the person can only type. `null` in the context means the microphone is the way in.
 * - `muted`: they muted it (not alone, on a train);
 * - `refused`: the browser or the person refused the microphone;
 * - `no-microphone`: there is no capture device to open;
 * - `unsupported`: the browser has no speech recogniser at all (Firefox);
 * - `failed`: the recogniser broke for a reason of its own (offline, language not offered).
 */
export type TypingReason = 'muted' | 'refused' | 'no-microphone' | 'unsupported' | 'failed';

/** The error codes of the Web Speech API's `SpeechRecognitionErrorEvent.error`, plus any other. */
export type RecogniserError =
  | 'no-speech'
  | 'aborted'
  | 'audio-capture'
  | 'network'
  | 'not-allowed'
  | 'service-not-allowed'
  | 'language-not-supported'
  | 'bad-grammar'
  | (string & {});

/** Something that went wrong that the page says where the person can see it. */
export interface Problem {
  kind: 'answer' | 'recogniser' | 'microphone' | 'speaker' | 'action';
  /** A sentence for a person, never transcript or answer text. */
  reason: string;
}

/**
 * The longest line kept, in characters (UTF-16 code units, as `String.length` counts them): the
 * server refuses a longer one and the page keeps a longer one as several. It must hold the longest
 * answer whole: the door caps an answer at 4,096 tokens by default (`max_completion_tokens`), about
 * 16,384 characters at the 4 characters a token of English prose comes to; twice that leaves room for
 * text whose tokens run longer (code, tables, runs of punctuation) and still stops one request from
 * filling the database.
 */
export const LINE_MAX_CHARS = 32_768;

/** One line of the written conversation, in the order it was said. */
export interface Line {
  role: 'user' | 'assistant';
  text: string;
  utteranceId: number;
  /** The assistant was talked over, so only part of this line was played. */
  interrupted?: boolean;
}

/** A message as the chat door takes it (OpenAI's shape, user and assistant turns only). */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

export type ConversationEvent =
  /** The recogniser's words before it commits to them; they show as the live line. */
  | { type: 'user.interim'; text: string }
  /**
   * A final transcript or typed text: the same event either way, and it becomes the question.
   * `via` exists only so the self-echo check can skip typed text; nothing downstream sees it.
   * `turnId` is the id the page gave what was said when the person finished or pressed Send: the
   * answer's every try sends it (`x-confab-turn`), so a retried turn writes once and the same words
   * said again are a new turn.
   */
  | { type: 'user.said'; text: string; via: 'voice' | 'keyboard'; turnId: string }
  /** The echo gate heard the person clearly over the assistant's own leak. */
  | { type: 'user.interrupted' }
  /**
   * The person was heard over the voice (it ducked while `yielding.ts` decides): from now until the
   * turn ends the recogniser runs, so their words decide this time and are heard from the start the
   * next, rather than lost while a cold recogniser opens.
   */
  | { type: 'voice.heardOver' }
  /** Push to talk: the talk control went down / came up. */
  | { type: 'talk.press' }
  | { type: 'talk.release' }
  | { type: 'mic.mute' }
  | { type: 'mic.unmute' }
  /** The page's own microphone (for levels) was refused or is missing. */
  | { type: 'mic.refused'; missing: boolean; reason: string }
  /** The recogniser stopped by itself (Chrome ends continuous sessions after silence). */
  | { type: 'recogniser.ended' }
  | { type: 'recogniser.failed'; error: RecogniserError }
  /**
   * More of the answer's text. `atMs` is when the page received it (the page's clock, as the voice's
   * `Pace`): how much of the queued audio has played by then sizes the next piece. Without it the
   * voice's last pace is taken as now.
   */
  | { type: 'answer.delta'; utteranceId: number; text: string; atMs?: number }
  /** The answer's text has ended; `atMs` as for `answer.delta`. */
  | { type: 'answer.done'; utteranceId: number; atMs?: number }
  | { type: 'answer.failed'; utteranceId: number; reason: string }
  /**
   * The answer asks the person to confirm a verb before it runs (the question itself follows as
   * answer text). `atMs` is when the page received it (ms since the epoch, the page's clock).
   */
  | { type: 'answer.confirm'; utteranceId: number; action: PendingActionEvent; atMs: number }
  /** The person pressed Yes (do it) / No (leave it) for the pending action. */
  | { type: 'action.yes' }
  | { type: 'action.no' }
  /** The server's answer to approving or refusing `actionId` (from the `settleAction` actor). */
  | { type: 'action.settled'; actionId: string; outcome: ActionSettled['outcome']; sentence: string }
  /** Approving or refusing `actionId` could not be asked; `sentence` says so, as it can be spoken. */
  | { type: 'action.failed'; actionId: string; sentence: string }
  /** A piece became audible. */
  | { type: 'audio.started'; utteranceId: number; piece: number }
  /** A piece has played out to its last sample. */
  | { type: 'audio.ended'; utteranceId: number; piece: number }
  /**
   * A piece could not be voiced. An endpoint speaker that fails abandons the rest of that
   * utterance; the machine re-speaks what was not yet played on the device and stays there.
   */
  | { type: 'speaker.failed'; utteranceId: number; piece: number; voice: Voice; reason: string }
  /**
   * Where the on-device voice stands: what it has still to make and the audio still queued, and what
   * making speech costs on this device. Pieces for it are cut to what it can make in time.
   */
  | { type: 'voice.paced'; pace: Pace }
  | { type: 'settings.changed'; speech?: boolean; pushToTalk?: boolean; language?: string }
  /**
   * The bot's greeting from its file, for a new conversation: shown and spoken like an answer
   * (and talked over like one). Only taken while nothing has been said; send it after the first
   * user gesture, since browsers block audio before one.
   */
  | { type: 'bot.greets'; text: string }
  /**
   * Something the bot says of its own accord (a notice come due): spoken and kept like a
   * greeting, but at any time the turn is the person's and they are not talking. While an answer
   * or a question is under way it waits, and is said as soon as the turn is the person's again.
   */
  | {
      type: 'bot.announces';
      text: string;
      /**
       * What it is news of (a run's id): a newer word of the same thing takes the place of one still
       * waiting to be said, so a run's progress is heard as it is now, never as it was.
       */
      about?: string;
    }
  /** What waits to be said about `about` is no longer news (the run ended): it is dropped unsaid. */
  | { type: 'bot.withdraws'; about: string }
  /**
   * A question work that outlived a turn asks (a run stopped at the confirmation gate): said as an
   * announcement is, between turns, then heard as a yes or a no as an answer's question is.
   */
  | { type: 'bot.asks'; action: PendingActionEvent; atMs: number };

/** How a conversation starts; every field but `recogniser` and `say` has a default. */
export interface ConversationInput {
  /** Whether the browser has a speech recogniser at all. */
  recogniser: boolean;
  /** The page's words in the person's language: what it tells them when the answer or the recogniser fails. */
  say: PageSay;
  /** Whether answers are spoken. Off: written only, nothing synthesised or requested. Default true. */
  speech?: boolean;
  /** Push to talk instead of an open microphone. Default false. */
  pushToTalk?: boolean;
  /** Starts muted (typing only). Default false. */
  muted?: boolean;
  /** The bot file's `voice.by`. Default `device`. */
  voice?: Voice;
  /** The person's language (BCP 47), as a yes or a no is heard. Default `en`. */
  language?: string;
  /** The bot file's talk block over the defaults. */
  talk?: Partial<Talk>;
  /**
   * A conversation reopened from the drawer: its lines so far, oldest first. The next question
   * continues it, and its utterance ids carry on after the largest here.
   */
  lines?: readonly Line[];
}

export interface ConversationContext {
  /** Id of the current (or last) utterance; every question starts a new one. */
  utteranceId: number;
  /** The one big line: interim words while listening, then the question while it is thought about. */
  liveLine: string;
  /** The question being answered, until it settles into `lines`. */
  question: string | null;
  /** The turn id of the last question asked (`user.said`'s); '' before any. */
  turnId: string;
  /** The answer text of the current utterance so far. */
  answer: string;
  /** The written conversation, settled lines only (nothing is in two places at once). */
  lines: Line[];
  /** `null` while the microphone is the way in; otherwise why only typing works. */
  typing: TypingReason | null;
  /** Push to talk instead of an open microphone. */
  pushToTalk: boolean;
  /** Push to talk: the talk control is down. */
  talkHeld: boolean;
  /** The person asked the bot to wait ("hold on", "give me a second"): it says nothing until they go on. */
  waiting: boolean;
  /** The person was heard over the voice in this turn: the recogniser runs until it ends. */
  heardOver: boolean;
  speech: boolean;
  voice: Voice;
  talk: Talk;
  /** The on-device voice's last pace; null until it has said (pieces are then cut to `pieceChars` alone). */
  pace: Pace | null;
  chunker: ChunkerState;
  /** Texts handed to the speaker for this utterance, by piece index. */
  pieces: string[];
  /** Which pieces have finished: played out, or lost to a failure with no fallback left. */
  settled: boolean[];
  /** Which pieces were played (began to sound): what an interrupted answer is kept as. */
  played: boolean[];
  /** The answer text has ended (done, failed or timed out); the turn returns once audio drains. */
  answerEnded: boolean;
  /** What the assistant said in its last few utterances, for the self-echo check. */
  recentlySpoken: string[];
  problem: Problem | null;
  /**
   * The page's words in the person's language (`ConversationInput.say`), held in a record: xstate
   * would take a function standing in an object handed to `assign` for an assigner and call it.
   */
  words: { readonly say: PageSay };
  /** The person's language (BCP 47), as a yes or a no is heard. */
  language: string;
  /** A verb waiting for the person's yes or no, from the answer; null when none waits. */
  pendingAction: PendingAction | null;
  /** The action whose outcome the turn is to say (answered by yes, no or waiting too long); null when none. */
  awaitedAction: string | null;
  /** What the bot is to say once the turn is the person's again, oldest first. */
  announcements: string[];
  /** Of those, the questions runs asked, oldest first: each becomes the pending action once it is said. */
  asks: PendingAction[];
  /** For each announcement by place, what it is news of (`bot.announces`' `about`), or null. */
  announcedAbout: (string | null)[];
}

/** A verb waiting for the person's answer, as the machine keeps it. */
export interface PendingAction extends PendingActionEvent {
  /** How long the person is given to answer once asked, in ms (see `confirmPatienceMs`). */
  patienceMs: number;
}
