import { describe, expect, it } from 'vitest';
import { LINE_MAX_CHARS } from '../../../common/conversation/events';
import { lineParts } from '../../../src/core/conversation/lineParts';

describe('a line in parts the server keeps', () => {
  it('keeps a line that fits as it is, up to the longest line kept', () => {
    expect(lineParts('Hello there.')).toEqual(['Hello there.']);
    const longest = 'a'.repeat(LINE_MAX_CHARS);
    expect(lineParts(longest)).toEqual([longest]);
  });

  it('cuts a longer line after its last space that fits, into parts that join back to it', () => {
    const text = 'one two three four five';
    const parts = lineParts(text, 10);
    expect(parts).toEqual(['one two ', 'three ', 'four five']);
    expect(parts.join('')).toBe(text);
  });

  it('cuts a word with no space in it at the limit, but never between the halves of a surrogate pair', () => {
    expect(lineParts('abcdefgh', 3)).toEqual(['abc', 'def', 'gh']);
    const parts = lineParts('ab😀cd', 3);
    expect(parts).toEqual(['ab', '😀c', 'd']);
    expect(parts.join('')).toBe('ab😀cd');
  });

  it('splits the longest answer and more into parts each within the limit', () => {
    const text = 'word '.repeat(15_000);
    const parts = lineParts(text);
    expect(parts.length).toBe(3);
    expect(parts.every((p) => p.length <= LINE_MAX_CHARS)).toBe(true);
    expect(parts.join('')).toBe(text);
  });

  it('refuses a limit that cannot hold a character and its pair', () => {
    expect(() => lineParts('abc', 1)).toThrow('lineParts.maxChars is 1; it must be a whole number, 2 or more.');
  });
});
