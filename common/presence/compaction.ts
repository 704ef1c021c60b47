/**
 * Checkpoints and compaction, with no model asked (the seed 002: no paid summaries). A conversation
 * may run to thousands of lines, and the model is never sent the whole of it: its prompt is the
 * bot's system message, then — when earlier lines were left out — one marker of the gap, then the
 * last `RECENT_MESSAGES` messages verbatim. Nothing summarises the span left out: what was said
 * there is gone from the model's view, as in the seed, while the person's lines stay kept and the
 * verbs read live state again.
 *
 * A checkpoint is kept every `CHECKPOINT_EVERY_LINES` lines, after an answer: the conversation's
 * last lines, verbatim. It is what a page that comes back to the conversation without those lines
 * resumes from; a page that sends them is not told them twice.
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
/**
 * How many messages a page sends the door: one more than the prompt keeps, so the door can tell
 * that earlier lines were left out and mark the gap.
 */
export const SENT_MESSAGES = RECENT_MESSAGES + 1;
/** How many lines go by between checkpoints. */
const CHECKPOINT_EVERY_LINES = 16;
/** How many lines a checkpoint keeps verbatim. */
const CHECKPOINT_LINES = 8;
/** The longest checkpoint kept, in characters. */
export const CHECKPOINT_CHARS_MAX = 2000;

/** What `keep` and `every` may be: a whole number of messages or lines. */
const COUNT: Limit = { min: 1, whole: true };

/** The last `keep` of `messages`: what a prompt carries verbatim. */
export function recentMessages<M>(messages: readonly M[], keep = RECENT_MESSAGES): M[] {
  checkOption('compaction.keep', keep, COUNT);
  return messages.slice(-keep);
}

function spoken(messages: readonly PromptLine[]): string[] {
  return messages.filter((m) => m.role !== 'system' && m.content.trim() !== '').map((m) => `${m.role === 'user' ? 'Person' : 'Assistant'}: ${m.content.trim()}`);
}

/** The marker of the gap, with the checkpoint's lines when the messages after it do not reach them. */
function gapNote(checkpoint: string | null): PromptLine {
  const gap = forModel('Earlier lines of this conversation are left out here, and nothing stands in for them.');
  return { role: 'system', content: checkpoint === null ? gap : forModel(`${gap} The last of them, as they were said:\n${checkpoint}`) };
}

/**
 * What goes before the last `keep` of `messages` in the prompt: the marker of the gap when lines
 * were left out — the door was sent more than it keeps, or the checkpoint holds lines none of the
 * messages reach (a page that came back without them), which then come with it. Null when nothing
 * was left out.
 */
export function gapBefore(messages: readonly PromptLine[], checkpoint: string | null, keep = RECENT_MESSAGES): PromptLine | null {
  const recent = recentMessages(messages, keep);
  const said = new Set(spoken(recent).join('\n').split('\n'));
  const unreached = checkpoint !== null && !checkpoint.split('\n').some((line) => said.has(line)) ? checkpoint : null;
  return messages.length > keep || unreached !== null ? gapNote(unreached) : null;
}

/** Whether a checkpoint is due, with `linesSince` lines said since the last one. */
export function checkpointDue(linesSince: number, every = CHECKPOINT_EVERY_LINES): boolean {
  checkOption('compaction.every', every, COUNT);
  return linesSince >= every;
}

/** Keeps the end of `text` within `max` characters: the latest words matter most. */
function lastChars(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

/** A checkpoint: the conversation's last `lines` lines verbatim, within `CHECKPOINT_CHARS_MAX`. */
export function checkpointLines(messages: readonly PromptLine[], lines = CHECKPOINT_LINES): string {
  return lastChars(spoken(messages).slice(-lines).join('\n'), CHECKPOINT_CHARS_MAX);
}
