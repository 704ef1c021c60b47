import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { dueAt, heard, narratable, oneSentence, SILENT, progressDueAt } from '../../../src/core/presence/narration';
import type { Narration } from '../../../src/core/presence/narration';

describe('narrating what finished away from the conversation', () => {
  it('narrates reminders and verbs that finished elsewhere, and nothing else', () => {
    expect(narratable({ kind: 'notice', text: 'Reminder: take the tea out.' })).toBe('Reminder: take the tea out.');
    expect(narratable({ kind: 'verb', verb: 'lists.add', ok: true, sentence: "That's 3 things on your shopping list.", origin: 'elsewhere' })).toBe("That's 3 things on your shopping list.");
    expect(narratable({ kind: 'verb', verb: 'lists.read', ok: true, sentence: null, origin: 'late' })).toBeNull();
    expect(narratable({ kind: 'presence', active: null, term: 2 })).toBeNull();
    expect(narratable({ kind: 'line', conversation: 'c', line: { role: 'assistant', text: 'Hi.', utteranceId: 1 } })).toBeNull();
    expect(narratable({ kind: 'piece', conversation: 'c', utteranceId: 1, piece: 0, text: 'Hi.' })).toBeNull();
    expect(narratable({ kind: 'conversation', conversation: 'c', threadId: null, reopened: false })).toBeNull();
  });

  it('says a burst as one sentence once it has been quiet for 500 ms', () => {
    let narration: Narration = SILENT;
    narration = heard(narration, 'Reminder: take the tea out.', 1_000);
    narration = heard(narration, 'Reminder: call Ana.', 1_200);
    narration = heard(narration, 'Reminder: water the plants!', 1_650);
    expect(dueAt(narration, 2_000)).toEqual({ narration, say: null, lookAtMs: 2_150 });
    const due = dueAt(narration, 2_150);
    expect(due.say).toBe('Reminder: take the tea out; Reminder: call Ana; Reminder: water the plants.');
    expect(due.narration).toEqual(SILENT);
    expect(dueAt(due.narration, 9_000)).toEqual({ narration: SILENT, say: null, lookAtMs: null });
  });

  it('says one thing as it was written', () => {
    const narration = heard(SILENT, 'Reminder: take the tea out.', 0);
    expect(dueAt(narration, 500).say).toBe('Reminder: take the tea out.');
    expect(oneSentence([])).toBe('');
  });

  it('ignores blank text, and refuses a debounce that is no time', () => {
    expect(heard(SILENT, '   ', 0)).toBe(SILENT);
    expect(() => dueAt(SILENT, 0, { debounceMs: -1 })).toThrow(OptionError);
    expect(() => dueAt(SILENT, 0, { debounceMs: -1 })).toThrow('narration.debounceMs is -1; it must be a number, 0 or more.');
  });

  it('passes a run’s progress on once quiet for the debounce, and not within the gap of its last word', () => {
    const options = { debounceMs: 500, gapMs: 8_000 };
    expect(progressDueAt(1_000, null, options)).toBe(1_500);
    // Its last word went 2 s ago: the next waits out the gap, not only the debounce.
    expect(progressDueAt(3_000, 1_000, options)).toBe(9_000);
    // Long after its last word, the debounce alone.
    expect(progressDueAt(20_000, 1_000, options)).toBe(20_500);
    expect(() => progressDueAt(0, null, { debounceMs: 500, gapMs: Number.NaN })).toThrow(OptionError);
    expect(() => progressDueAt(0, null, { debounceMs: 500, gapMs: Number.NaN })).toThrow('narration.gapMs is NaN; it must be a number, 0 or more.');
  });
});
