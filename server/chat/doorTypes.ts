/**
 * The door's types: what it reads from a grant and a bot, what a turn is as memory and acting see
 * it, the ledger it reserves and settles against, its options and its log lines — and the answer on
 * its way out, which the route, the answer's source and responding share.
 */
import type { Context } from 'hono';
import { resolveOptions } from '../../common/options';
import type { Limits } from '../../common/options';
import type { LimitWindow } from '../db/limits';
import type { Verb } from '../verbs/verb';
import type { Words } from '../words/words';
import type { TurnActing } from './acting';
import type { AnswerEnded, AnswerPieces, AnswerResult } from './answer';
import type { ChatMessage, ConversationMessage } from './chatRequest';
import type { ProviderFailure } from './errors';
import type { TokenUsage } from './prices';
import type { PriceTable } from './prices';
import type { RunningAnswers } from './runningAnswers';
import type { Sleep, StandInReason } from './standIn';
import type { StandInSkill } from './standInModel';
import { ANSWER_TOKENS } from './upstream';
import type { Provider, ProviderChoice } from './upstream';


/** What the door reads from a verified grant; the real claims may carry more. */
export interface DoorGrant {
  /** The bot's slug. */
  bot: string;
  /** The person, as the server derived them. */
  person: string;
  /** The per-answer ceilings signed into the grant. */
  limits: AnswerLimits;
}

/** Per-answer ceilings. Windows over many answers are the ledger's. */
interface AnswerLimits {
  /** Most USD one answer may cost, by the running estimate; unset: not limited. */
  spend?: number;
  /** Longest one answer may take, in minutes, from the request to its last token; unset: not limited. */
  minutes?: number;
}

/** What the door reads from a bot file; the real bot may carry more. */
export interface DoorBot extends ProviderChoice {
  /** The system prompt. Never leaves the server except to the provider. */
  prompt: string;
}

/** The provider name recorded for the stand-in's answers. */
export const STAND_IN = 'stand-in';
/** The `model` a refusal reports. */
export const REFUSAL_MODEL = 'confab';

/**
 * Who refused a turn or an effect (`server/gate.ts`): the person's own windows, the site's over
 * everybody, the background share of the site's, an outside app's own calls, or a site that has not
 * switched on `AGENTS_LIVE` for something bought with its keys.
 */
export type RefusedBy = 'person' | 'site' | 'background' | 'app' | 'not-live';
/** The header that tells a client a refusal from an answer; its value is a `RefusedBy`. */
export const REFUSED_HEADER = 'x-confab-refused';

export type Reservation = { ok: true; reservation: string } | { ok: false; sentence: string; by: RefusedBy; /** What was reached, for saying it in the person's words; unset: `sentence` is all there is. */ ceiling?: ReachedCeiling };

/** The ceiling a refused turn reached. */
export interface ReachedCeiling {
  window: LimitWindow;
  kind: 'answers' | 'spend';
  /** Answers, or US dollars. */
  ceiling: number;
  /** When an answer fits again, in ms since the epoch; null when the ceiling admits none. */
  freesAtMs: number | null;
  /** When the turn was refused, in ms since the epoch. */
  nowMs: number;
}

/** What one answer used, settled against its reservation. */
export interface AnswerSpend extends TokenUsage {
  /** The provider that answered: its name, `stand-in`, or null when none did. */
  provider: string | null;
  /** The model that answered (the stand-in's is `confab-stand-in`); null when none did. */
  model: string | null;
  /** How it ended; `failed` when no provider started an answer. */
  ended: AnswerEnded | 'failed';
  /** Whether the tokens are estimated at four characters each, the provider having reported none. */
  estimated: boolean;
  /** USD by the price table, for the model that answered; 0 for the stand-in. */
  costUsd: number;
  /** False when the answering model has no price, so `costUsd` is 0 without being free. */
  priced: boolean;
  /** When the answer ended, in ms since the epoch. */
  nowMs: number;
}

/** Spend over rolling windows, the person's and the site's; the real one lives in the database. */
export interface DoorLedger<G extends DoorGrant> {
  /** Holds the turn against the windows before anything is bought; a refusal says why, in a sentence, and whose windows refused. */
  reserve(ask: { grant: G; nowMs: number }): Promise<Reservation>;
  /** Records what a reserved turn used, once it has ended, however it ended. Called once per reservation (`admission.ts`). */
  settle(reservation: string, spend: AnswerSpend): Promise<void>;
}

/** One turn through the door, as `context` and `afterAnswer` see it. */
export interface DoorTurn<G extends DoorGrant, B extends DoorBot> {
  grant: G;
  bot: B;
  /** The client's user and assistant turns. */
  messages: readonly ConversationMessage[];
  /** `x-confab-conversation`: the page's key for this conversation, if it sent a well-formed one. */
  conversationKey?: string | undefined;
  /** What the door says in its own name this turn, in the person's language (`wordsFor`). */
  words: Words;
}

/** A turn as `acting` sees it: with what the page says of the conversation and the person's clock. */
export interface ActingTurn<G extends DoorGrant, B extends DoorBot> extends DoorTurn<G, B> {
  /** `x-confab-conversation`: the page's key for this conversation, if it sent a well-formed one. */
  conversationKey: string | undefined;
  /** `x-confab-time-zone`, when it names a real IANA zone; else `UTC`. */
  timeZone: string;
  /** `x-confab-language`, as sent (unchecked; undefined when none was). */
  language: string | undefined;
  /** `x-confab-turn` (or `Idempotency-Key`): the same on a retry of this turn; a fresh one when neither was sent. */
  turnId: string;
}

/** What a turn may do: the verbs offered to the model, and the loop's means of running them. */
export interface TurnPlan {
  verbs: readonly Verb[];
  acting: TurnActing;
  /** The bot's skills, for the stand-in to open by what it hears; default none. */
  skills?: readonly StandInSkill[];
}

/** A turn that was answered, for whatever is written afterwards (memories). */
export interface AnsweredTurn<G extends DoorGrant, B extends DoorBot> extends DoorTurn<G, B> {
  /** The last thing the person said. */
  question: string;
  /** The answer as it was sent, closing sentence included. */
  answer: string;
  /** Which provider answered (`stand-in` for the stand-in). */
  provider: string;
  ended: AnswerEnded;
}

/** A structured log line. None holds a question, an answer, a prompt or a key. */
export type DoorLogLine =
  | { event: 'provider.fell-over'; provider: string; failure: ProviderFailure; status?: number; code?: string }
  | { event: 'answer.ended'; provider: string | null; model: string | null; ended: AnswerEnded | 'failed'; promptTokens: number; completionTokens: number; estimated: boolean; costUsd: number; ms: number }
  | { event: 'answer.unpriced'; model: string }
  | { event: 'answer.refused'; by: RefusedBy }
  | { event: 'settle.failed' | 'after-answer.failed' | 'door.failed'; error: string };

export interface DoorOptions {
  /** Largest request body, in bytes; past it the answer is 413. Default 64 KiB. */
  bodyBytesMax: number;
  /** How long a provider may take to send its first token before the next is asked, in ms. Default 20 000. */
  firstTokenMs: number;
  /** The pause between the stand-in's words, in ms. Default 40. */
  standInWordMs: number;
  /**
   * Longest a provider may go silent after its first token, in ms, before the answer is cut with a
   * sentence saying so (`CONFAB_UPSTREAM_IDLE_S`). Default 20 000.
   */
  upstreamIdleMs: number;
  /**
   * Most tokens a provider may answer one call with (`max_completion_tokens`, or `max_tokens` for a
   * provider that wants the old name), so no answer runs away (`CONFAB_ANSWER_TOKENS`). Default 4096.
   */
  answerTokens: number;
}

export const DOOR_DEFAULTS: Readonly<DoorOptions> = Object.freeze({
  answerTokens: ANSWER_TOKENS,
  bodyBytesMax: 64 * 1024,
  firstTokenMs: 20_000,
  standInWordMs: 40,
  upstreamIdleMs: 20_000,
});

export interface DoorDeps<G extends DoorGrant, B extends DoorBot> extends Partial<DoorOptions> {
  /** The verified grant of `Authorization: Bearer <grant>`; throws `HTTPException(401)` when refused. */
  authorize: (c: Context) => G | Promise<G>;
  /** The bot a grant names, by slug; undefined when its file is gone (404). */
  botOf: (slug: string) => B | undefined;
  /** OpenAI-shaped endpoints, asked in order (the bot's own provider first). */
  providers: readonly Provider[];
  /** `AGENTS_LIVE=1`: providers may be bought from. Unset, the stand-in answers whatever keys there are. */
  live: boolean;
  /** Prices by model, for settled costs and the `spend` ceiling. */
  prices: PriceTable;
  ledger: DoorLedger<G>;
  /**
   * What follows the bot's prompt: the conversation, with whatever the bot's memory adds (past
   * lines, recalled memories). Default: the client's messages as they are.
   */
  context?: (turn: DoorTurn<G, B>) => Promise<ChatMessage[]>;
  /**
   * Called once an answer has been sent (also one cut short by a limit or a broken provider; not
   * for refusals, failures before any answer, or a client that left). Not awaited by the answer;
   * its failures are logged by name.
   */
  afterAnswer?: (turn: AnsweredTurn<G, B>) => Promise<void>;
  /**
   * What this turn may do: the verbs in its scope and how they run. Unset, or undefined for a turn,
   * the model is offered no tools and only talks.
   */
  acting?: (turn: ActingTurn<G, B>) => Promise<TurnPlan | undefined>;
  /**
   * The door's own words for a turn with `bot`, given the page's `x-confab-language` (unchecked;
   * undefined when none was sent). Default: the shipped words in that language, else English.
   */
  wordsFor?: (bot: B, language: string | undefined) => Words;
  /** The answers running now, for a graceful stop; while it stops, no new turn is admitted. */
  running?: RunningAnswers;
  /** Now, in ms since the epoch. */
  clock: () => number;
  /** How providers are reached. Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** How the stand-in waits between words. Default: a timer. */
  sleep?: Sleep;
  /** Where log lines go. Default: one JSON line each on stderr. */
  log?: (line: DoorLogLine) => void;
}

const LIMITS: Limits<DoorOptions> = { bodyBytesMax: { min: 0 }, firstTokenMs: { min: 0 }, standInWordMs: { min: 0 }, upstreamIdleMs: { min: 0 }, answerTokens: { min: 0 } };

/** `deps`' options, each defaulted; throws `OptionError` (`door.<name>`) for one that is not a number from 0. */
export function doorOptionsOf(deps: Partial<DoorOptions>): DoorOptions {
  return resolveOptions('door', DOOR_DEFAULTS, deps, LIMITS);
}

/** Where an answer comes from: the stand-in, saying why, or a provider, given this context. */
export type AnswerSource = { standIn: StandInReason } | { context: Promise<ChatMessage[]> };

/** An answer ready to be sent, with what runs once it has ended (`settle`) and once it has been sent (`after`). */
export interface Sending {
  answer: Answer;
  settle?: (result: AnswerResult) => Promise<TokenUsage>;
  after?: (result: AnswerResult, text: string) => void;
}

/** How a turn ended, for settling: an answer's result, or no answer at all. */
export type Ending = Omit<AnswerResult, 'ended'> & { ended: AnswerEnded | 'failed' };

/** One answer on its way out: where it came from and its pieces. */
export interface Answer {
  provider: string | null;
  model: string;
  pieces: AnswerPieces;
  /** Estimated prompt tokens, for a provider that reports none. */
  promptTokens: number;
  /** False for the stand-in and refusals: nothing is bought. */
  bought: boolean;
}
