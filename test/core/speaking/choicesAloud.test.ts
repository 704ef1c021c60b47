import { describe, expect, it } from 'vitest';
import { aloud, choicesAloud, holdList, NOTHING_HELD, releaseList } from '../../../src/core/speaking/choicesAloud';
import type { ListHold } from '../../../src/core/speaking/choicesAloud';
import { seededRandom } from '../../helpers/random';

/** `text` fed in deltas cut at `cuts`: what went on as it came, and what the end let go. */
function feed(text: string, cuts: readonly number[], language = 'en'): { passed: string[]; end: string } {
  let hold: ListHold = NOTHING_HELD;
  const passed: string[] = [];
  let from = 0;
  for (const at of [...cuts, text.length]) {
    const step = holdList(hold, text.slice(from, at));
    hold = step.hold;
    passed.push(step.pass);
    from = at;
  }
  return { passed, end: releaseList(hold, text, language) };
}

/** Every way of cutting `text` at `count` random places, seeded. */
function randomCuts(text: string, seed: number, count = 5): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Math.floor(random() * text.length)).sort((a, b) => a - b);
}

const OFFER = 'Which copy is it?\n\n- The paperback\n- The hardcover\n';

describe('holding a list back from the voice', () => {
  it('says an offer’s choices as one question after the words, however the answer arrives', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { passed, end } = feed(OFFER, randomCuts(OFFER, seed));
      expect(passed.join('') + end).toBe('Which copy is it?\n\nThe paperback or the hardcover?');
    }
  });

  it('lets a line that is no item go on before it ends', () => {
    const { passed } = feed('Here is the first part of a', []);
    expect(passed).toEqual(['Here is the first part of a']);
    expect(feed('Sure.\n- a list\nand then more', [6, 15, 18]).passed.join('')).toBe('Sure.\n- a list\nand then more');
  });

  it('holds items until the line after them says whether they were the last', () => {
    const { passed } = feed('Sure.\n- one\n- two\n', []);
    expect(passed).toEqual(['Sure.\n']);
  });

  it('lets a list go as written when the answer is no offer: nothing above it, or over a cap', () => {
    expect(feed('- one\n- two', [3]).end).toBe('- one\n- two');
    const seven = `Pick:\n${Array.from({ length: 7 }, (_, i) => `- c${String(i)}`).join('\n')}`;
    const { passed, end } = feed(seven, [9]);
    expect(passed.join('') + end).toBe(seven);
  });

  it('lets nothing go at the end when nothing is held', () => {
    expect(feed('Just words.', []).end).toBe('');
  });

  it('takes a dash that starts no item as words', () => {
    expect(feed('-5 degrees tonight', [1]).passed.join('')).toBe('-5 degrees tonight');
    expect(feed('---\nAfter the rule', [2]).passed.join('')).toBe('---\nAfter the rule');
  });
});

describe('choicesAloud', () => {
  it.each([
    ['en', ['The paperback', 'The hardcover'], 'The paperback or the hardcover?'],
    ['en', ['Red', 'Green', 'Blue.'], 'Red, green, or blue?'],
    ['en', ['PDF', 'HTML page'], 'PDF or HTML page?'],
    ['es', ['Compra', 'Tareas'], 'Compra o tareas?'],
    ['fr', ['Courses', 'À faire'], 'Courses ou à faire?'],
    ['de', ['Einkaufen', 'Aufgaben'], 'Einkaufen oder Aufgaben?'],
    ['not a tag!', ['A', 'B'], 'A or b?'],
  ])('says the choices in %s as one question', (language, items, expected) => {
    expect(choicesAloud(items, language)).toBe(expected);
  });
});

describe('aloud', () => {
  it('says an offer known whole as its words and its choices', () => {
    expect(aloud('Which list?\n- Shopping\n- To-do', 'en')).toBe('Which list?\nShopping or to-do?');
  });

  it('leaves anything else as it is', () => {
    expect(aloud('- a\n- b', 'en')).toBe('- a\n- b');
  });
});
