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
import { forModel } from '../modelText';
import { checkOption } from '../options';
import type { Limit } from '../options';

/** A message as a prompt carries it. */
export interface PromptLine {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** How many messages the model is sent verbatim (the question among them). */
export const RECENT_MESSAGES = 32;
/** How many lines go by between checkpoints. */
const CHECKPOINT_EVERY_LINES = 16;
/** How many lines the stand-in's summary keeps verbatim. */
const VERBATIM_LINES = 8;
/** The longest summary kept, in characters. */
export const SUMMARY_CHARS_MAX = 2000;

/** What `keep` and `every` may be: a whole number of messages or lines. */
const COUNT: Limit = { min: 1, whole: true };

/** The last `keep` of `messages`: what a page sends, and what a prompt carries verbatim. */
export function recentMessages<M>(messages: readonly M[], keep = RECENT_MESSAGES): M[] {
  checkOption('compaction.keep', keep, COUNT);
  return messages.slice(-keep);
}

/** The checkpoint's summary as the model reads it. */
export function summaryNote(summary: string): PromptLine {
  return { role: 'system', content: `Earlier in this conversation (a summary, not the person's words):\n${summary}` };
}

/**
 * What follows the bot's system message: the latest checkpoint's summary, when there is one, then
 * the last `keep` messages as they were said — never more.
 */
export function compacted<M extends PromptLine>(messages: readonly M[], summary: string | null, keep = RECENT_MESSAGES): (M | PromptLine)[] {
  const recent = recentMessages(messages, keep);
  return summary === null || summary.trim() === '' ? recent : [summaryNote(summary), ...recent];
}

/** Whether a checkpoint is due, with `linesSince` lines said since the last one. */
export function checkpointDue(linesSince: number, every = CHECKPOINT_EVERY_LINES): boolean {
  checkOption('compaction.every', every, COUNT);
  return linesSince >= every;
}

function spoken(messages: readonly PromptLine[]): string[] {
  return messages.filter((m) => m.role !== 'system' && m.content.trim() !== '').map((m) => `${m.role === 'user' ? 'Person' : 'Assistant'}: ${m.content.trim()}`);
}

/** Keeps the end of `text` within `max` characters: the latest words matter most. */
function lastChars(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

/** The stand-in's checkpoint: the conversation's last `lines` lines, verbatim. */
export function verbatimSummary(messages: readonly PromptLine[], lines = VERBATIM_LINES): string {
  return lastChars(spoken(messages).slice(-lines).join('\n'), SUMMARY_CHARS_MAX);
}

/** What the model is asked for a checkpoint: the summary so far, and what was said since. */
export function summaryPrompt(previous: string | null, since: readonly PromptLine[]): PromptLine[] {
  return [
    {
      role: 'system',
      content: forModel(
        'You keep a running summary of a spoken conversation between a person and an assistant, so the assistant can carry on ' +
          'once the early lines are gone. In at most 150 words of plain sentences, keep what the person said about themselves, ' +
          'what they asked for, what was decided or promised, and anything they will expect to be remembered. No preamble.',
      ),
    },
    {
      role: 'user',
      content: forModel(`${previous === null ? 'There is no summary yet.' : `The summary so far:\n${previous}`}\n\nWhat was said since:\n${spoken(since).join('\n')}\n\nWrite the new summary.`),
    },
  ];
}

/** A summary as it is kept: trimmed, and no longer than `SUMMARY_CHARS_MAX`. */
export function keptSummary(text: string): string {
  const said = text.trim();
  return said.length <= SUMMARY_CHARS_MAX ? said : `${said.slice(0, SUMMARY_CHARS_MAX - 1)}…`;
}
