/**
 * What the conversation machine is started with and what it keeps: the page's alone, so it may name
 * the core's own types (the hearing's clock and yielding's pace).
 */
import type { PendingActionEvent } from '../../../common/acting/protocol';
import type { ChunkerState } from '../../../common/speaking/chunker';
import type { Pace } from '../../../common/speaking/pace';
import type { Talk } from '../../../common/talk';
import type { PageSay } from '../../../common/pageWords';
import type { Line, Problem, TypingReason, Voice } from '../../../common/conversation/events';
import type { YieldingPace } from '../hearing/tuning';
import type { ListHold } from '../speaking/choicesAloud';

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
  /** The frames' clock (the audio clock on the page), which yielding reads time from. Default the wall clock (`Date.now`). */
  now?: () => number;
  /** Yielding's pace. Default `HEARING.yielding`. */
  yielding?: YieldingPace;
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
  /** The end of the answer so far (a line's last word, a list after it), held from the voice until it is known whether it offers choices. */
  listHold: ListHold;
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
  /** What yielding is started with: the frames' clock and its pace (a record, for the function in it). */
  yielding: { readonly now: () => number; readonly pace: YieldingPace };
}

/** A verb waiting for the person's answer, as the machine keeps it. */
interface PendingAction extends PendingActionEvent {
  /** How long the person is given to answer once asked, in ms (see `confirmPatienceMs`). */
  patienceMs: number;
}
