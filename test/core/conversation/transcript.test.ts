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

describe('the transcript never shows an offer’s list marks', () => {
  const WHICH = 'Sure thing.\nWhich list?\n\n- Shopping\n- To-do\n';
  /** A line of an answer streamed so far, as the conversation keeps it (trimmed). */
  const streamed = (text: string): Line => ({ role: 'assistant', text: text.trim(), utteranceId: 1 });
  const shown = (line: Line) => transcriptLines([person, line], null)[1]?.text;

  it('shows an offer’s words only, growing and never shrinking, at every point of its streaming', () => {
    let before = '';
    for (let end = 1; end <= WHICH.length; end++) {
      const text = shown(streamed(WHICH.slice(0, end))) ?? '';
      expect(text).not.toMatch(/^\s*-/mu);
      expect(text.startsWith(before), JSON.stringify(WHICH.slice(0, end))).toBe(true);
      before = text;
    }
    expect(before).toBe('Sure thing.\nWhich list?');
  });

  it('shows a list that turns out to offer nothing as written, once that is known', () => {
    const steps = 'Do this:\n- Open it\n- Close it\nThat is all.';
    expect(shown(streamed(steps.slice(0, 28)))).toBe('Do this:');
    expect(shown(streamed(steps))).toBe(steps);
    const seven = `Pick:\n${Array.from({ length: 7 }, (_, i) => `- c${String(i)}`).join('\n')}`;
    expect(shown(streamed(seven.slice(0, -5)))).toBe('Pick:');
    expect(shown(streamed(seven))).toBe(seven);
    expect(shown(streamed('- a\n- b'))).toBe('- a\n- b');
  });

  it('leaves the person’s lines, an answer talked over and one the server has cut as they are', () => {
    const offer = { id: 'line-1', question: 'Which list?', items: ['Shopping', 'To-do'], taken: null };
    const lines: Line[] = [
      { role: 'user', text: 'Which?\n- a\n- b', utteranceId: 1 },
      { role: 'assistant', text: 'Which?\n- a', utteranceId: 1, interrupted: true },
      { role: 'assistant', text: 'Which list?', utteranceId: 2, offer },
      { role: 'assistant', text: 'Just words.', utteranceId: 3 },
    ];
    expect(transcriptLines(lines, null)).toBe(lines);
  });

  it('leaves out a question waiting on its card from the words shown', () => {
    const said: Line = { ...asking, text: `Which list?\n- Shopping\n- To-do` };
    expect(transcriptLines([person, said], 'Which list?')).toEqual([person]);
  });
});
