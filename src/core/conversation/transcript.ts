/**
 * What the written conversation shows, by the rule that a sentence is in one place at a time. A
 * question waiting for the person's yes or no is on its card, with the buttons that answer it, so
 * the transcript leaves it out of the line that asked it (the whole line when the question was all
 * it said); once it is answered the card goes and the transcript shows the line whole, as said.
 */
import type { Line } from '../../../common/conversation/events';

/** `lines` as the transcript shows them while `question` (null when none) waits on its card. */
export function transcriptLines(lines: readonly Line[], question: string | null): readonly Line[] {
  const last = lines.at(-1);
  const asked = question?.trim() ?? '';
  if (last === undefined || last.role !== 'assistant' || asked === '') return lines;
  const said = last.text.trimEnd();
  if (!said.endsWith(asked)) return lines;
  const before = said.slice(0, said.length - asked.length).trimEnd();
  return before === '' ? lines.slice(0, -1) : [...lines.slice(0, -1), { ...last, text: before }];
}
