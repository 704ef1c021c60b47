/**
 * What a person's pages and the server say to each other about presence: which page of theirs is
 * the active one for a bot, and what happens in the conversation, so every other page can show it live
 * and a page that comes back is owed exactly what it missed.
 *
 * Shapes are checked here, by hand (core takes no dependency), so the server checks what a page
 * sends and the page checks what the server sends with the same functions.
 */
import { isPendingAction } from '../acting/protocol';
import type { PendingActionEvent } from '../acting/protocol';
import { isOffer } from '../conversation/choices';
import type { Offer } from '../conversation/choices';
import { LINE_MAX_CHARS } from '../conversation/events';
import type { Line } from '../conversation/events';
import { isRecord } from '../isRecord';

/** One load of `/voice/<bot>` in one tab (`page`), in one browser profile (`device`). */
export interface PageRef {
  page: string;
  device: string;
}

/**
 * What a page is for one person and bot:
 * - `active`: it has the microphone and the speaker;
 * - `passive`: another page does; this one shows the conversation;
 * - `free`: no page does (the active one closed); the person's first gesture on a page takes it.
 */
export type Role = 'active' | 'passive' | 'free';

/** The referee's word to one page. `term` counts changes of the active page: a larger one is newer. */
export interface Seat {
  role: Role;
  term: number;
  /** The active page, or null when none is (the seat is free). */
  active: PageRef | null;
}

/** The conversation a page shows: the page's key for it, and the server's thread once it has one. */
export interface ConversationRef {
  conversation: string;
  threadId: string | null;
  /** Reopened from the drawer: its earlier lines are on the server, not in the window. */
  reopened: boolean;
}

/**
 * Something that happened in a person's conversation with a bot, as the window keeps it. Pages
 * publish the first four; the server alone writes `verb` and `presence`.
 * - `conversation`: the active page started or reopened a conversation, or learnt its thread;
 * - `line`: a line was said and kept (the person's at once, the assistant's when it is over);
 * - `piece`: a piece of an answer began to be spoken;
 * - `notice`: something an app asked to be said at a time was said;
 * - `verb`: a verb finished away from the conversation — over MCP (`elsewhere`), or after the turn
 *   that asked for it was talked over (`late`) — with what the bot says of it;
 * - `presence`: another page became the active one, or none is now;
 * - `offer`: the server kept an answer ending in choices (`conversation/choices.ts`): the line its
 *   page kept as `clientId` in the thread `threadId` shows `text`, and the choices under it;
 * - `choice`: choice `taken` of the offer `offer` (its line's id) was taken.
 */
export type WindowEvent =
  | ({ kind: 'conversation' } & ConversationRef)
  | { kind: 'line'; conversation: string; line: Line }
  | { kind: 'piece'; conversation: string; utteranceId: number; piece: number; text: string }
  | { kind: 'notice'; text: string }
  | { kind: 'verb'; verb: string; ok: boolean; sentence: string | null; origin: 'elsewhere' | 'late' }
  /**
   * Work that outlives a turn: how a run is going (`sentence`, said between turns) or that it has
   * ended (`ended`, no sentence: what it came to is a notice, said once by whichever page says it),
   * or that it stopped at the confirmation gate (`ask`: the question, to be asked between turns).
   */
  | { kind: 'run'; run: string; sentence: string | null; ended: boolean; ask?: PendingActionEvent }
  | { kind: 'presence'; active: PageRef | null; term: number }
  | { kind: 'offer'; threadId: string; clientId: string; text: string; offer: Offer }
  | { kind: 'choice'; offer: string; taken: number };

type WindowEventKind = WindowEvent['kind'];

/** A window event in its place: `seq` counts from 1 per person and bot and is never reused. */
export interface Sequenced {
  seq: number;
  /** When the server kept it, ms since the epoch. */
  atMs: number;
  event: WindowEvent;
}

/** What the active page is doing, as its other pages show it. */
export type LivePhase = 'listening' | 'thinking' | 'speaking' | 'greeting' | 'announcing' | 'confirming';

/** The active page's live state: passed on to the other pages and forgotten, never kept. */
export interface LiveState {
  conversation: string;
  /** The big line: the words as they are heard, then the question while it is thought about. */
  liveLine: string;
  phase: LivePhase;
  /** The answer written so far, before it is kept as a line; null when none is under way. */
  draft: { utteranceId: number; text: string } | null;
}

/**
 * What a page is owed when its stream opens:
 * - `events`: every event after the `since` it sent follows, in order, then live ones;
 * - `reload`: it fell out of the window (or the server forgot): it reloads the conversation from
 *   its lines, then goes on live;
 * - `nothing`: it is up to date.
 */
export type Owed = 'events' | 'reload' | 'nothing';

/**
 * The server's messages on the presence stream, each an SSE event named by its `type`. `yield` is
 * sent to the person's pages the moment a claim arrives, ahead of the referee's seats: a claim
 * always wins, so the active page goes quiet at once, as a stolen lock makes it in a tab.
 */
export type PresenceMessage =
  | {
      type: 'hello';
      seat: Seat;
      latestSeq: number;
      owed: Owed;
      conversation: ConversationRef | null;
      /**
       * The person, as an opaque tag (never their id): the page names its Web Lock and
       * BroadcastChannel with it, one per person and bot, so two people signed in to one browser
       * never take the active page from each other.
       */
      you: string;
    }
  | { type: 'seat'; seat: Seat }
  | { type: 'yield'; to: PageRef }
  | { type: 'event'; sequenced: Sequenced }
  | { type: 'live'; from: string; live: LiveState };

/** The kinds a page may publish; the rest are the server's own. */
const PAGE_KINDS: readonly WindowEventKind[] = Object.freeze(['conversation', 'line', 'piece', 'notice'] as const);

/** The longest text one event may carry, in characters: a kept line's own ceiling, so the longest answer goes whole. */
export const EVENT_TEXT_MAX = LINE_MAX_CHARS;
/** Most events one publication may carry. */
export const EVENTS_PER_POST_MAX = 32;
/** A page's or a device's id: what `newId` makes, or anything as plain. */
const ID = /^[A-Za-z0-9_-]{8,64}$/;
/** A person's tag in a hello: hex, as a digest gives it. */
const PERSON_TAG = /^[0-9a-f]{16,64}$/;
/** A conversation key, as the chat door takes it. */
const CONVERSATION = /^[A-Za-z0-9:_-]{1,128}$/;
const PHASES: readonly LivePhase[] = ['listening', 'thinking', 'speaking', 'greeting', 'announcing', 'confirming'];
const ROLES: readonly Role[] = ['active', 'passive', 'free'];

const isText = (value: unknown, max = EVENT_TEXT_MAX): value is string => typeof value === 'string' && value.length <= max;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

export const isId = (value: unknown): value is string => typeof value === 'string' && ID.test(value);
const isConversationKey = (value: unknown): value is string => typeof value === 'string' && CONVERSATION.test(value);

function isPageRef(value: unknown): value is PageRef {
  return isRecord(value) && isId(value.page) && isId(value.device);
}

function isLine(value: unknown): value is Line {
  return (
    isRecord(value) &&
    (value.role === 'user' || value.role === 'assistant') &&
    isText(value.text) &&
    isCount(value.utteranceId) &&
    (value.interrupted === undefined || typeof value.interrupted === 'boolean') &&
    (value.offer === undefined || isOffer(value.offer))
  );
}

export function isSeat(value: unknown): value is Seat {
  return isRecord(value) && ROLES.includes(value.role as Role) && isCount(value.term) && (value.active === null || isPageRef(value.active));
}

function isConversationRef(value: unknown): value is ConversationRef {
  return isRecord(value) && isConversationKey(value.conversation) && (value.threadId === null || isText(value.threadId, 64)) && typeof value.reopened === 'boolean';
}

export function isWindowEvent(value: unknown): value is WindowEvent {
  if (!isRecord(value)) return false;
  switch (value.kind) {
    case 'conversation':
      return isConversationRef(value);
    case 'line':
      return isConversationKey(value.conversation) && isLine(value.line);
    case 'piece':
      return isConversationKey(value.conversation) && isCount(value.utteranceId) && isCount(value.piece) && isText(value.text);
    case 'notice':
      return isText(value.text);
    case 'verb':
      return isText(value.verb, 128) && typeof value.ok === 'boolean' && (value.sentence === null || isText(value.sentence)) && (value.origin === 'elsewhere' || value.origin === 'late');
    case 'run':
      return isText(value.run, 64) && (value.sentence === null || isText(value.sentence)) && typeof value.ended === 'boolean' && (value.ask === undefined || isPendingAction(value.ask));
    case 'presence':
      return (value.active === null || isPageRef(value.active)) && isCount(value.term);
    case 'offer':
      return isText(value.threadId, 64) && isText(value.clientId, 128) && isText(value.text) && isOffer(value.offer);
    case 'choice':
      return isText(value.offer, 64) && isCount(value.taken);
    default:
      return false;
  }
}

export function isLiveState(value: unknown): value is LiveState {
  if (!isRecord(value)) return false;
  const draft = value.draft;
  return (
    isConversationKey(value.conversation) &&
    isText(value.liveLine) &&
    PHASES.includes(value.phase as LivePhase) &&
    (draft === null || (isRecord(draft) && isCount(draft.utteranceId) && isText(draft.text)))
  );
}

function isSequenced(value: unknown): value is Sequenced {
  return isRecord(value) && isCount(value.seq) && value.seq > 0 && isCount(value.atMs) && isWindowEvent(value.event);
}

/** A message of the presence stream, from its SSE event name and its JSON data; undefined when it is not one. */
export function presenceMessageOf(name: string, data: unknown): PresenceMessage | undefined {
  if (!isRecord(data)) return undefined;
  if (name === 'hello') {
    const owed = data.owed;
    const you = data.you;
    if (isSeat(data.seat) && isCount(data.latestSeq) && (owed === 'events' || owed === 'reload' || owed === 'nothing') && (data.conversation === null || isConversationRef(data.conversation)) && typeof you === 'string' && PERSON_TAG.test(you)) {
      return { type: 'hello', seat: data.seat, latestSeq: data.latestSeq, owed, conversation: data.conversation, you };
    }
    return undefined;
  }
  if (name === 'seat') return isSeat(data.seat) ? { type: 'seat', seat: data.seat } : undefined;
  if (name === 'yield') return isPageRef(data.to) ? { type: 'yield', to: data.to } : undefined;
  if (name === 'event') return isSequenced(data.sequenced) ? { type: 'event', sequenced: data.sequenced } : undefined;
  if (name === 'live') return isId(data.from) && isLiveState(data.live) ? { type: 'live', from: data.from, live: data.live } : undefined;
  return undefined;
}

/** What a page publishes: events for the window (its own kinds only), and its live state. */
export interface Publication {
  bot: string;
  page: string;
  events: WindowEvent[];
  live: LiveState | null;
}

/**
 * What is wrong with a publication, as a code: only a page's own code builds one, so a refusal is
 * that code's bug, for whoever debugs it (the answer, the log) — never a sentence for a person.
 * `events.misshapen`: not a list, or longer than `EVENTS_PER_POST_MAX`.
 */
export type PublicationProblem = 'body.not-object' | 'bot.missing' | 'page.not-id' | 'events.misshapen' | 'event.misshapen' | 'event.server-kind' | 'live.misshapen';

/** Reads a publication from a request body, or names what is wrong with it. */
export function publicationOf(body: unknown): { ok: true; publication: Publication } | { ok: false; problem: PublicationProblem } {
  if (!isRecord(body)) return { ok: false, problem: 'body.not-object' };
  if (!isText(body.bot, 64) || body.bot === '') return { ok: false, problem: 'bot.missing' };
  if (!isId(body.page)) return { ok: false, problem: 'page.not-id' };
  const events = body.events ?? [];
  if (!Array.isArray(events) || events.length > EVENTS_PER_POST_MAX) return { ok: false, problem: 'events.misshapen' };
  for (const event of events as unknown[]) {
    if (!isWindowEvent(event)) return { ok: false, problem: 'event.misshapen' };
    // The server writes the other kinds itself.
    if (!PAGE_KINDS.includes(event.kind)) return { ok: false, problem: 'event.server-kind' };
  }
  const live = body.live ?? null;
  if (live !== null && !isLiveState(live)) return { ok: false, problem: 'live.misshapen' };
  return { ok: true, publication: { bot: body.bot, page: body.page, events: events as WindowEvent[], live } };
}
