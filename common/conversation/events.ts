/**
 * What the conversation machine hears, what it is started with, and what it keeps. Events are
 * dotted facts, named for what happened rather than what should be done about it.
 */
import type { ActionSettled, PendingActionEvent } from '../acting/protocol';
import type { Offer } from './choices';
import type { Pace } from '../speaking/pace';

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
  /** The choices the line ends in, as the server cut them (`choices.ts`); `text` is then its words without them. */
  offer?: Offer;
}

/** A message as the chat door takes it (OpenAI's shape, user and assistant turns only). */
export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** Words from the recogniser: an interim, or a final with the turn id it was given when the person finished. */
export type HeardWords = { final: false; text: string } | { final: true; text: string; turnId: string };

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
  /** The echo gate heard the person over the voice, in the frame that ended at `atMs` (the frames' clock), clearing `bar`. */
  | { type: 'hearing.bargeIn'; atMs: number; bar?: number }
  /** Words from the recogniser, before it is decided whose they are: yielding hears them first. */
  | { type: 'recogniser.words'; words: HeardWords }
  /**
   * Yielding (src/core/hearing/yieldingMachine.ts) ducked the voice: from now until the turn ends the
   * recogniser runs, so the person's words decide this time and are heard from the start the next,
   * rather than lost while a cold recogniser opens.
   */
  | { type: 'yielding.ducked' }
  /** Yielding gave the turn to the person: the voice stops, and the words it held go on. */
  | { type: 'yielding.took'; words: readonly HeardWords[] }
  /** Yielding let the voice carry on at full level: the gate hears the next sound afresh. */
  | { type: 'yielding.carriedOn' }
  /** The turn ended another way while yielding decided: the voice comes back, the words it held go on. */
  | { type: 'yielding.released'; words: readonly HeardWords[] }
  /** Words that were not yielding's to decide, as they came. */
  | { type: 'yielding.passed'; words: HeardWords }
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
  /** The server kept the answer of `utteranceId` as `text` ending in `offer`'s choices (`choices.ts`). */
  | { type: 'offer.kept'; utteranceId: number; text: string; offer: Offer }
  /** Choice `taken` of the offer `offer` (its line's id) was taken, here or on another of the person's pages. */
  | { type: 'offer.taken'; offer: string; taken: number }
  /**
   * A question work that outlived a turn asks (a run stopped at the confirmation gate): said as an
   * announcement is, between turns, then heard as a yes or a no as an answer's question is.
   */
  | { type: 'bot.asks'; action: PendingActionEvent; atMs: number };
