/**
 * Narrating what finishes away from the conversation — a reminder come due, a verb that ended
 * after its turn was talked over, one an MCP client ran — on the active page. What is
 * heard is debounced: a burst (three reminders due together) becomes one sentence, said once the
 * burst has been quiet for `debounceMs`. The conversation machine then says it between turns,
 * never over the person. Not narrated: presence changes, the conversation's own lines and pieces,
 * usage and internal status.
 */
import { checkOptions, resolveOptions } from '../../../common/options';
import type { Limits } from '../../../common/options';
import type { WindowEvent } from '../../../common/presence/protocol';

export interface NarrationOptions {
  /** How long a burst must be quiet before it is said, in ms. Default 500. */
  debounceMs: number;
}

const NARRATION_DEFAULTS: Readonly<NarrationOptions> = Object.freeze({ debounceMs: 500 });

const LIMITS: Limits<NarrationOptions> = { debounceMs: { min: 0 } };

export interface Narration {
  /** What waits to be said, oldest first. */
  pending: readonly string[];
  /** When the last of them was heard, ms; null when nothing waits. */
  lastHeardAtMs: number | null;
}

export const SILENT: Narration = Object.freeze({ pending: Object.freeze([]), lastHeardAtMs: null });

/** What of `event` is said, or null for an event that is not narrated. */
export function narratable(event: WindowEvent): string | null {
  if (event.kind === 'notice') return event.text.trim() === '' ? null : event.text.trim();
  if (event.kind === 'verb') return event.sentence === null || event.sentence.trim() === '' ? null : event.sentence.trim();
  return null;
}

/** The narration with `text` heard at `atMs`. */
export function heard(narration: Narration, text: string, atMs: number): Narration {
  const said = text.trim();
  if (said === '') return narration;
  return { pending: [...narration.pending, said], lastHeardAtMs: atMs };
}

/**
 * Whether the burst is over at `atMs`: if so the sentence to say and the narration emptied; if not,
 * when to look again (null when nothing waits).
 */
export function dueAt(narration: Narration, atMs: number, options: Partial<NarrationOptions> = {}): { narration: Narration; say: string | null; lookAtMs: number | null } {
  const { debounceMs } = resolveOptions('narration', NARRATION_DEFAULTS, options, LIMITS);
  if (narration.pending.length === 0 || narration.lastHeardAtMs === null) return { narration: SILENT, say: null, lookAtMs: null };
  const quietAtMs = narration.lastHeardAtMs + debounceMs;
  if (atMs < quietAtMs) return { narration, say: null, lookAtMs: quietAtMs };
  return { narration: SILENT, say: oneSentence(narration.pending), lookAtMs: null };
}

/**
 * Several things said as one sentence: "Reminder: take the tea out; Reminder: call Ana." Each is
 * kept as it was written but for its closing stop, since a capital may be a name.
 */
export function oneSentence(texts: readonly string[]): string {
  const parts = texts.map((t) => t.trim()).filter((t) => t !== '');
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.map((t) => t.replace(/[.!…]+$/u, '')).join('; ')}.`;
}

/**
 * The least time between two words of one run's progress, in ms: a long job is said to be going
 * on now and then, not recited step by step (its steps may come every few seconds, and a word of
 * it takes about as long to say).
 */
export const PROGRESS_GAP_MS = 8_000;

/** How a run's progress is paced, in ms; see `progressDueAt`. */
interface ProgressTiming {
  debounceMs: number;
  gapMs: number;
}

const PROGRESS_LIMITS: Limits<ProgressTiming> = { debounceMs: { min: 0 }, gapMs: { min: 0 } };

/**
 * When a run's progress heard at `heardAtMs` is to be passed on: once quiet for `debounceMs`, and
 * not sooner than `gapMs` after the run's last word was passed on (`lastPassedAtMs`; null: none yet).
 */
export function progressDueAt(heardAtMs: number, lastPassedAtMs: number | null, options: ProgressTiming): number {
  checkOptions('narration', options, PROGRESS_LIMITS);
  const quietAtMs = heardAtMs + options.debounceMs;
  return lastPassedAtMs === null ? quietAtMs : Math.max(quietAtMs, lastPassedAtMs + options.gapMs);
}
