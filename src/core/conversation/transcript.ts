/**
 * What the written conversation shows, by the rule that a sentence is in one place at a time. A
 * question waiting for the person's yes or no is on its card, with the buttons that answer it, so
 * the transcript leaves it out of the line that asked it (the whole line when the question was all
 * it said); once it is answered the card goes and the transcript shows the line whole, as said.
 *
 * Nor is an offer's grammar ever shown. An answer ending in choices (`cutChoices`, the rule the
 * server cuts it by) shows only its words while it streams and until the server's cut lays the
 * choices under them as buttons: the words stay as they are and the buttons come, where a list
 * shown as it streamed would vanish into them. A list that turns out to offer nothing (one more
 * line after it, or over a cap) is shown as written once that is known.
 */
import { cutChoices } from '../../../common/conversation/choices';
import type { Line } from '../../../common/conversation/events';

/** A last line that is a dash alone: the start of an item, maybe, not yet words. */
const MAY_START_ITEM = /\s*\n[ \t]*-\s*$/u;

/** `lines` as the transcript shows them while `question` (null when none) waits on its card. */
export function transcriptLines(lines: readonly Line[], question: string | null): readonly Line[] {
  const shown = withoutOfferedLists(lines);
  const last = shown.at(-1);
  const asked = question?.trim() ?? '';
  if (last === undefined || last.role !== 'assistant' || asked === '') return shown;
  const said = last.text.trimEnd();
  if (!said.endsWith(asked)) return shown;
  const before = said.slice(0, said.length - asked.length).trimEnd();
  return before === '' ? shown.slice(0, -1) : [...shown.slice(0, -1), { ...last, text: before }];
}

/**
 * The words of an answer as the transcript shows them: without the list it ends in while that
 * offers choices, or may be about to begin one. Words already cut by the server are shown as they are.
 */
function offerWords(text: string): string {
  const words = text.replace(MAY_START_ITEM, '');
  return cutChoices(words)?.words ?? words;
}

/** `lines` with each answer that has no choices laid on it yet shown by `offerWords`; the same lines when none changes. */
function withoutOfferedLists(lines: readonly Line[]): readonly Line[] {
  const shown = lines.map((line) => {
    if (line.role !== 'assistant' || line.offer !== undefined || line.interrupted === true) return line;
    const text = offerWords(line.text);
    return text === line.text ? line : { ...line, text };
  });
  return shown.every((line, i) => line === lines[i]) ? lines : shown;
}
