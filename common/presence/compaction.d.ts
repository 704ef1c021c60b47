/**
 * Checkpoints and compaction: a conversation may run to thousands of lines, and the model is never
 * sent the whole of it. Its prompt is compacted before it is needed: the bot's system message (the
 * door's own), the latest checkpoint's summary, and the last `RECENT_MESSAGES` messages verbatim.
 * A page sends no more than those messages either, so a long thread never outgrows a request.
 *
 * A checkpoint is taken every `CHECKPOINT_EVERY_LINES` lines, after an answer: the model's own
 * summary of the conversation so far (the previous summary and what was said since) when a provider
 * is live; the last lines verbatim when the stand-in answers.
 */
/** A message as a prompt carries it. */
export interface PromptLine {
    role: 'system' | 'user' | 'assistant';
    content: string;
}
/** How many messages the model is sent verbatim (the question among them). */
export declare const RECENT_MESSAGES = 32;
/** How many lines go by between checkpoints. */
export declare const CHECKPOINT_EVERY_LINES = 16;
/** How many lines the stand-in's summary keeps verbatim. */
export declare const VERBATIM_LINES = 8;
/** The longest summary kept, in characters. */
export declare const SUMMARY_CHARS_MAX = 2000;
/** The last `keep` of `messages`: what a page sends, and what a prompt carries verbatim. */
export declare function recentMessages<M>(messages: readonly M[], keep?: number): M[];
/** The checkpoint's summary as the model reads it. */
export declare function summaryNote(summary: string): PromptLine;
/**
 * What follows the bot's system message: the latest checkpoint's summary, when there is one, then
 * the last `keep` messages as they were said — never more.
 */
export declare function compacted<M extends PromptLine>(messages: readonly M[], summary: string | null, keep?: number): (M | PromptLine)[];
/** Whether a checkpoint is due, with `linesSince` lines said since the last one. */
export declare function checkpointDue(linesSince: number, every?: number): boolean;
/** The stand-in's checkpoint: the conversation's last `lines` lines, verbatim. */
export declare function verbatimSummary(messages: readonly PromptLine[], lines?: number): string;
/** What the model is asked for a checkpoint: the summary so far, and what was said since. */
export declare function summaryPrompt(previous: string | null, since: readonly PromptLine[]): PromptLine[];
/** A summary as it is kept: trimmed, and no longer than `SUMMARY_CHARS_MAX`. */
export declare function keptSummary(text: string): string;
