import { describe, expect, it } from 'vitest';
import { OptionError } from '../../../common/options';
import { CHECKPOINT_CHARS_MAX, checkpointDue, checkpointLines, gapBefore, recentMessages, RECENT_MESSAGES, SENT_MESSAGES } from '../../../common/presence/compaction';
import type { PromptLine } from '../../../common/presence/compaction';

const thread = (lines: number): PromptLine[] => Array.from({ length: lines }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `line ${i + 1}` }));

describe('checkpoints and compaction', () => {
  it('keeps the last 32 messages verbatim of a 2,000-line thread, and marks the gap before them', () => {
    const messages = thread(2_000);
    const kept = recentMessages(messages);
    expect(kept).toHaveLength(RECENT_MESSAGES);
    expect(kept[0]?.content).toBe('line 1969');
    expect(kept.at(-1)?.content).toBe('line 2000');
    expect(gapBefore(messages, null)).toEqual({ role: 'system', content: 'Earlier lines of this conversation are left out here, and nothing stands in for them.' });
  });

  it('marks a gap when the page sends one message more than the door keeps, and none when it sends what there was', () => {
    expect(SENT_MESSAGES).toBe(RECENT_MESSAGES + 1);
    expect(gapBefore(thread(SENT_MESSAGES), null)).not.toBeNull();
    expect(gapBefore(thread(RECENT_MESSAGES), null)).toBeNull();
    expect(gapBefore(thread(5), null)).toBeNull();
  });

  it('says a checkpoint once: not when the messages reach its lines, and with the marker when they do not', () => {
    const said = thread(40);
    const checkpoint = checkpointLines(said.slice(0, 36), 3);
    expect(checkpoint).toBe('Assistant: line 34\nPerson: line 35\nAssistant: line 36');
    // The page sent the lines the checkpoint holds: the gap is marked, the lines are not repeated.
    expect(gapBefore(said, checkpoint)?.content).not.toContain('line 35');
    expect(gapBefore(thread(36).slice(-20), checkpoint)).toBeNull();
    // A page that came back with only its new question: the checkpoint's lines come with the marker.
    const back = gapBefore([{ role: 'user', content: 'where were we' }], checkpoint);
    expect(back?.content).toBe(`Earlier lines of this conversation are left out here, and nothing stands in for them. The last of them, as they were said:\n${checkpoint}`);
  });

  it('leaves a short conversation as it is', () => {
    expect(recentMessages(thread(5))).toEqual(thread(5));
    expect(recentMessages(thread(5), 2)).toEqual(thread(5).slice(3));
    expect(() => recentMessages(thread(5), 0)).toThrow('compaction.keep is 0; it must be a whole number, 1 or more.');
  });

  it('is due every 16 lines', () => {
    expect(checkpointDue(14)).toBe(false);
    expect(checkpointDue(16)).toBe(true);
    expect(checkpointDue(3, 2)).toBe(true);
    expect(() => checkpointDue(1, 0)).toThrow(OptionError);
  });

  it('keeps the last lines verbatim as the checkpoint, bounded', () => {
    expect(checkpointLines(thread(20), 3)).toBe('Assistant: line 18\nPerson: line 19\nAssistant: line 20');
    const long: PromptLine[] = [{ role: 'user', content: 'x'.repeat(5_000) }];
    expect(checkpointLines(long).length).toBe(CHECKPOINT_CHARS_MAX);
  });
});
