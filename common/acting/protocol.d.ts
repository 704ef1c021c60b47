/**
 * What the server and the page say to each other about verbs: the chat door's own SSE events beside
 * the OpenAI chunks, pending actions the person approves, and notices an app asks the page to say
 * at a time. No app is named here: a verb is a name like any other.
 *
 * The door's extra events carry an SSE `event:` name, so an OpenAI-shaped client that reads only
 * unnamed `data:` events (the OpenAI SDKs) passes over them.
 */
/** The typed outcome of a verb call that did not succeed. */
export type VerbErrorCode = 'invalid_input' | 'timed_out' | 'cancelled' | 'execution_failed' | 'output_too_large' | 'not_in_scope' | 'confirmation_required' | 'unknown_verb' | 'key_reused' | 'rate_limited' | 'server_busy'
/** Too many handlers are still running past their deadline on this server (`MAX_ABANDONED_HANDLERS`): new calls wait until some end. */
 | 'overloaded'
/** A remote write cut off by a crash: whether it landed at the other end, nobody here can tell; it is not tried again. */
 | 'outcome_unknown';
/** SSE event names the door sends beside the chat chunks. */
export declare const DOOR_EVENTS: {
    /** A verb ran in this turn: `VerbRanEvent`. Never its arguments or result. */
    readonly verb: "confab.verb";
    /** A verb waits for the person's yes: `PendingActionEvent`. The question is also in the text. */
    readonly confirm: "confab.confirm";
};
export interface VerbRanEvent {
    verb: string;
    ok: boolean;
    /** Set when it failed. */
    code?: VerbErrorCode;
}
/** A `confirm` verb the model asked for, pending until the person answers (single use). */
export interface PendingActionEvent {
    /** Approve with `POST /api/actions/<id>/approve`, refuse with `/deny`, under the person's session. */
    id: string;
    verb: string;
    /** What the person is asked, e.g. "Clear your shopping list? Say yes or no." */
    question: string;
    /** After this, ms since the epoch, the action can no longer be approved. */
    expiresAtMs: number;
}
/** Whether `value` is a `PendingActionEvent` as the door and the presence window send it. */
export declare function isPendingAction(value: unknown): value is PendingActionEvent;
/** The answer to approving or refusing a pending action. */
export interface ActionSettled {
    /**
     * - `done`: it ran, once;
     * - `denied`: the person said no; it never ran;
     * - `expired`: too late, or already answered; it never ran (again);
     * - `failed`: it was approved but could not be done.
     */
    outcome: 'done' | 'denied' | 'expired' | 'failed';
    /** What the voice says now: the consequence, narrated, or why not. */
    sentence: string;
}
/** Something an app asks the person's open page to say at a time (a reminder coming due). */
export interface Notice {
    id: string;
    /** What is said, as it is said. */
    text: string;
    /** When it is due, ms since the epoch. */
    dueAtMs: number;
}
/** How long a pending action may wait for the person's answer, in ms. */
export declare const PENDING_ACTION_MS = 60000;
