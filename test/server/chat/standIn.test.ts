import { describe, expect, it } from 'vitest';
import { HEARD_CHARS_MAX, heardLine, standInAnswer, standInReason, wordByWord } from '../../../server/chat/standIn';

describe('the stand-in', () => {
  it('stands in with no provider, or with providers while AGENTS_LIVE is off, and not otherwise', () => {
    expect(standInReason(0, false)).toBe('no-provider');
    expect(standInReason(0, true)).toBe('no-provider');
    expect(standInReason(2, false)).toBe('not-live');
    expect(standInReason(2, true)).toBeUndefined();
  });

  it.each(['no-provider', 'not-live'] as const)('says why (%s) in three or four plain spoken sentences, echoing what it heard', (reason) => {
    const answer = standInAnswer(reason, 'Tell me about the moon.');
    const sentences = answer.match(/[^.!?]+[.!?]+["']?\.?/g) ?? [];
    expect(sentences.length).toBeGreaterThanOrEqual(3);
    expect(sentences.length).toBeLessThanOrEqual(5);
    expect(answer).toContain('I heard you say: "Tell me about the moon.".');
    expect(answer).toMatch(/stand-in/);
    expect(answer).not.toMatch(/[*#`[\]>]|\n/);
  });

  it('quotes what it heard on one line, without double quotes, cut at a word when long', () => {
    expect(heardLine('  say  "hi"\n now ')).toBe("say 'hi' now");
    const long = heardLine('word '.repeat(60));
    expect(long.length).toBeLessThanOrEqual(HEARD_CHARS_MAX + 1);
    expect(long).toMatch(/word…$/);
    expect(standInAnswer('not-live', '   ')).toContain('I did not hear any words');
  });

  it('streams word by word, each word with its trailing space, and stops when aborted', async () => {
    const controller = new AbortController();
    const words: string[] = [];
    const sleep = () => Promise.resolve();
    for await (const word of wordByWord('one two  three four', 0, sleep, controller.signal)) {
      words.push(word);
      if (word.startsWith('two')) controller.abort();
    }
    expect(words).toEqual(['one ', 'two  ']);
  });
});
