import { describe, expect, it } from 'vitest';
import { benchHelp, firstSentence } from '../helpers/benchHelp';

describe('firstSentence', () => {
  it('takes the first sentence of the opening doc comment, on one line', () => {
    const source = '/**\n * How soon the voice\n * stops: p95. And more after.\n */\nexport const x = 1;\n';
    expect(firstSentence(source)).toBe('How soon the voice stops: p95.');
  });

  it('ends a sentence at a question mark, not at a dotted name inside it', () => {
    expect(firstSentence('/** Does `a.b` hold at 1.5 ms? Then more. */')).toBe('Does `a.b` hold at 1.5 ms?');
  });

  it('cuts a long sentence at a word, and says so', () => {
    const line = firstSentence(`/** ${'word '.repeat(60)}end. */`);
    expect(line.length).toBeLessThanOrEqual(162);
    expect(line).toMatch(/ word …$/);
  });

  it('answers nothing for a file with no opening doc comment', () => {
    expect(firstSentence('import x from "y";\n/** later */')).toBe('');
  });
});

describe('benchHelp', () => {
  const help = benchHelp([
    { name: 'barge-in', source: '/**\n * Barge-in in Chromium: how soon it stops.\n */' },
    { name: 'turn-taking', source: '/** Turn-taking: does it duck? */' },
  ]);

  it('lists every benchmark with what it measures', () => {
    expect(help).toMatch(/^ {2}barge-in {5}Barge-in in Chromium: how soon it stops\.$/m);
    expect(help).toMatch(/^ {2}turn-taking {2}Turn-taking: does it duck\?$/m);
  });

  it('says every option and what a clips folder must hold', () => {
    for (const option of ['--clips DIR', '--load N', '--leaks 0.15,0.35,0.55', '--help']) expect(help).toContain(`  ${option}`);
    for (const need of ['clips.json', '16-bit PCM', '48 000 Hz', 'assistant-1.wav', 'assistant-leak.wav', '"turnTaking"', '"nonSpeech"', 'sha256']) expect(help).toContain(need);
  });
});
