import type { PendingActionEvent } from '../acting/protocol';
import type { Line } from '../conversation/events';
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
 * - `presence`: another page became the active one, or none is now.
 */
export type WindowEvent = ({
    kind: 'conversation';
} & ConversationRef) | {
    kind: 'line';
    conversation: string;
    line: Line;
} | {
    kind: 'piece';
    conversation: string;
    utteranceId: number;
    piece: number;
    text: string;
} | {
    kind: 'notice';
    text: string;
} | {
    kind: 'verb';
    verb: string;
    ok: boolean;
    sentence: string | null;
    origin: 'elsewhere' | 'late';
}
/**
 * Work that outlives a turn: how a run is going (`sentence`, said between turns) or that it has
 * ended (`ended`, no sentence: what it came to is a notice, said once by whichever page says it),
 * or that it stopped at the confirmation gate (`ask`: the question, to be asked between turns).
 */
 | {
    kind: 'run';
    run: string;
    sentence: string | null;
    ended: boolean;
    ask?: PendingActionEvent;
} | {
    kind: 'presence';
    active: PageRef | null;
    term: number;
};
export type WindowEventKind = WindowEvent['kind'];
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
    draft: {
        utteranceId: number;
        text: string;
    } | null;
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
export type PresenceMessage = {
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
} | {
    type: 'seat';
    seat: Seat;
} | {
    type: 'yield';
    to: PageRef;
} | {
    type: 'event';
    sequenced: Sequenced;
} | {
    type: 'live';
    from: string;
    live: LiveState;
};
/** The kinds a page may publish; the rest are the server's own. */
export declare const PAGE_KINDS: readonly WindowEventKind[];
/** The longest text one event may carry, in characters: a kept line's own ceiling, so the longest answer goes whole. */
export declare const EVENT_TEXT_MAX = 32768;
/** Most events one publication may carry. */
export declare const EVENTS_PER_POST_MAX = 32;
export declare const isId: (value: unknown) => value is string;
export declare const isConversationKey: (value: unknown) => value is string;
export declare function isPageRef(value: unknown): value is PageRef;
export declare function isLine(value: unknown): value is Line;
export declare function isSeat(value: unknown): value is Seat;
export declare function isConversationRef(value: unknown): value is ConversationRef;
export declare function isWindowEvent(value: unknown): value is WindowEvent;
export declare function isLiveState(value: unknown): value is LiveState;
export declare function isSequenced(value: unknown): value is Sequenced;
/** A message of the presence stream, from its SSE event name and its JSON data; undefined when it is not one. */
export declare function presenceMessageOf(name: string, data: unknown): PresenceMessage | undefined;
/** What a page publishes: events for the window (its own kinds only), and its live state. */
export interface Publication {
    bot: string;
    page: string;
    events: WindowEvent[];
    live: LiveState | null;
}
/** Reads a publication from a request body, or says in a sentence what is wrong with it. */
export declare function publicationOf(body: unknown): {
    ok: true;
    publication: Publication;
} | {
    ok: false;
    sentence: string;
};
