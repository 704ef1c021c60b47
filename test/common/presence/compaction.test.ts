import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { checkpointDue, compacted, keptSummary, recentMessages, RECENT_MESSAGES, summaryPrompt, SUMMARY_CHARS_MAX, verbatimSummary } from '../../../common/presence/compaction';
import type { PromptLine } from '../../../common/presence/compaction';

const thread = (lines: number): PromptLine[] => Array.from({ length: lines }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `line ${i + 1}` }));

describe('checkpoints and compaction', () => {
  it('keeps the last 32 messages verbatim of a 2,000-line thread, never more', () => {
    const messages = thread(2_000);
    const kept = compacted(messages, null);
    expect(kept).toHaveLength(RECENT_MESSAGES);
    expect(kept[0]?.content).toBe('line 1969');
    expect(kept.at(-1)?.content).toBe('line 2000');
  });

  it('puts the latest checkpoint summary before them, marked as a summary', () => {
    const kept = compacted(thread(2_000), 'The person is Ana; she is planning a trip to Lisbon.');
    expect(kept).toHaveLength(RECENT_MESSAGES + 1);
    expect(kept[0]).toEqual({ role: 'system', content: "Earlier in this conversation (a summary, not the person's words):\nThe person is Ana; she is planning a trip to Lisbon." });
  });

  it('leaves a short conversation as it is', () => {
    expect(compacted(thread(5), null)).toEqual(thread(5));
    expect(recentMessages(thread(5), 2)).toEqual(thread(5).slice(3));
    expect(() => recentMessages(thread(5), 0)).toThrow('compaction.keep is 0; it must be a whole number, 1 or more.');
  });

  it('is due every 16 lines', () => {
    expect(checkpointDue(14)).toBe(false);
    expect(checkpointDue(16)).toBe(true);
    expect(checkpointDue(3, 2)).toBe(true);
    expect(() => checkpointDue(1, 0)).toThrow(OptionError);
  });

  it("makes the stand-in's checkpoint of the last lines verbatim, bounded", () => {
    expect(verbatimSummary(thread(20), 3)).toBe('Assistant: line 18\nPerson: line 19\nAssistant: line 20');
    const long: PromptLine[] = [{ role: 'user', content: 'x'.repeat(5_000) }];
    expect(verbatimSummary(long).length).toBe(SUMMARY_CHARS_MAX);
  });

  it("asks the model for its own summary from the last one and what was said since", () => {
    const prompt = summaryPrompt('Ana is planning a trip.', thread(2));
    expect(prompt[0]?.role).toBe('system');
    expect(prompt[1]?.content).toContain('The summary so far:\nAna is planning a trip.');
    expect(prompt[1]?.content).toContain('Person: line 1\nAssistant: line 2');
    expect(summaryPrompt(null, [])[1]?.content).toContain('There is no summary yet.');
    expect(keptSummary(`  ${'y'.repeat(3_000)} `).length).toBe(SUMMARY_CHARS_MAX);
  });
});
