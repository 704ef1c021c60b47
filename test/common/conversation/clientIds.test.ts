import { describe, expect, it } from 'vitest';
import { lineClientId, lineOfClientId } from '../../../common/conversation/clientIds';

describe('a kept line’s clientId', () => {
  it('names the conversation, the utterance, who said it and the part, and reads back the same', () => {
    const id = lineClientId('thread:abc', { role: 'assistant', utteranceId: 12 }, 2);
    expect(id).toBe('thread:abc:12:assistant:2');
    expect(lineOfClientId(id)).toEqual({ key: 'thread:abc', utteranceId: 12, role: 'assistant', part: 2 });
    expect(lineOfClientId(lineClientId('k', { role: 'user', utteranceId: 1 }))).toEqual({ key: 'k', utteranceId: 1, role: 'user', part: 0 });
  });

  it('is not read when the page did not make it', () => {
    expect(lineOfClientId('a1')).toBeNull();
    expect(lineOfClientId('k:one:assistant')).toBeNull();
  });
});
