import { describe, expect, it } from 'vitest';
import { LIST_BOOST, MAX_PHRASES, NAME_BOOST, recognitionPhrases } from '../../../src/core/hearing/recognitionPhrases';

describe('the phrases the recogniser favours', () => {
  it('are the bot’s name first, then the person’s list names, each once', () => {
    expect(recognitionPhrases('Sage', ['shopping', '  Dinner   party ', 'SHOPPING', 'sage', ''])).toEqual([
      { text: 'Sage', boost: NAME_BOOST },
      { text: 'shopping', boost: LIST_BOOST },
      { text: 'Dinner party', boost: LIST_BOOST },
    ]);
    expect(recognitionPhrases('Sage')).toEqual([{ text: 'Sage', boost: NAME_BOOST }]);
  });

  it('leave out what is no name and stop at a few, boosts within the browser’s 0..10', () => {
    const many = Array.from({ length: 40 }, (_, i) => `list ${String(i)}`);
    const phrases = recognitionPhrases(' ', ['x'.repeat(61), ...many]);
    expect(phrases).toHaveLength(MAX_PHRASES);
    expect(phrases[0]).toEqual({ text: 'list 0', boost: LIST_BOOST });
    for (const { boost } of phrases) expect(boost).toBeGreaterThanOrEqual(0);
    expect(Math.max(NAME_BOOST, LIST_BOOST)).toBeLessThanOrEqual(10);
  });
});
