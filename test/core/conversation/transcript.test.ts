import { describe, expect, it } from 'vitest';
import type { Line } from '../../../common/conversation/events';
import { transcriptLines } from '../../../src/core/conversation/transcript';

const person: Line = { role: 'user', text: 'Clear my shopping list.', utteranceId: 1 };
const question = 'Clear your shopping list? Say yes or no.';
const asking: Line = { role: 'assistant', text: question, utteranceId: 1 };

describe('the transcript while a question waits on its card', () => {
  it('leaves out the line that only asked it', () => {
    expect(transcriptLines([person, asking], question)).toEqual([person]);
  });

  it('keeps what the line said before the question, without it', () => {
    const said: Line = { ...asking, text: `I've added milk. ${question}` };
    expect(transcriptLines([person, said], question)).toEqual([person, { ...said, text: "I've added milk." }]);
  });

  it('shows every line whole once nothing waits, or when the last line is not the one that asked', () => {
    expect(transcriptLines([person, asking], null)).toEqual([person, asking]);
    const later: Line = { role: 'assistant', text: 'Something else.', utteranceId: 2 };
    expect(transcriptLines([person, asking, later], question)).toEqual([person, asking, later]);
    expect(transcriptLines([{ ...person, text: question }], question)).toEqual([{ ...person, text: question }]);
  });
});
