import { describe, expect, it } from 'vitest';
import { aloud, choicesAloud, holdList, NOTHING_HELD, releaseList } from '../../../src/core/speaking/choicesAloud';
import type { ListHold } from '../../../src/core/speaking/choicesAloud';
import { seededRandom } from '../../helpers/random';

/** `text` fed in deltas cut at `cuts`: what went on as each came, and what the end let go. */
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

/** Everything the chunker got of `text` fed in deltas cut at `cuts`. */
const chunkerGot = (text: string, cuts: readonly number[], language = 'en') => {
  const { passed, end } = feed(text, cuts, language);
  return passed.join('') + end;
};

/** `count` random places to cut `text` at, seeded. */
function randomCuts(text: string, seed: number, count = 5): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Math.floor(random() * text.length)).sort((a, b) => a - b);
}

/** Every way of cutting `text` into three deltas, and into one character at a time. */
function awkwardCuts(text: string): number[][] {
  const ways: number[][] = [Array.from({ length: text.length }, (_, i) => i)];
  for (let a = 0; a <= text.length; a++) for (let b = a; b <= text.length; b++) ways.push([a, b]);
  return ways;
}

const OFFER = 'Which copy is it?\n\n- The paperback\n- The hardcover\n';

describe('aloud: an offer known whole, said as one sentence', () => {
  it.each([
    ['en', 'Which list?\n\n- Shopping\n- To-do', 'Which list: shopping or to-do?'],
    ['en', OFFER, 'Which copy is it: the paperback or the hardcover?'],
    ['en', 'Pick a colour:\n- Red\n- Green\n- Blue.', 'Pick a colour: red, green, or blue?'],
    ['en', 'Which format?\n- PDF\n- HTML page', 'Which format: PDF or HTML page?'],
    ['en', 'I found two copies. Which one is it?\n- Paperback\n  - New\n  - Used\n- Hardcover', 'I found two copies. Which one is it: paperback — New, paperback — Used, or hardcover?'],
    ['en', 'Done with the first part.\n\nWhich list now?\n\n- Shopping\n- To-do\n\n', 'Done with the first part.\n\nWhich list now: shopping or to-do?'],
    ['en', '**Which list?**\n- Shopping\n- To-do', '**Which list: shopping or to-do?'],
    ['es', '¿Qué lista?\n\n- Compra\n- Tareas', '¿Qué lista: compra o tareas?'],
    ['es', 'Claro. ¿Dónde lo pongo?\n- Compra\n- Otros', 'Claro. ¿Dónde lo pongo: compra u otros?'],
    ['fr', 'Quelle liste ?\n\n- Courses\n- À faire', 'Quelle liste : courses ou à faire?'],
    ['fr', 'Laquelle voulez-vous ?\n- Courses\n- À faire\n- Rien', 'Laquelle voulez-vous : courses, à faire ou rien?'],
    ['de', 'Welche Liste?\n\n- Einkaufen\n- Aufgaben', 'Welche Liste: Einkaufen oder Aufgaben?'],
    ['de', 'Gern. Wohin damit?\n- Einkaufen\n- Aufgaben\n- Termine', 'Gern. Wohin damit: Einkaufen, Aufgaben oder Termine?'],
    // Spaces after the question let it go on whole before its line ended: the choices follow it.
    ['en', 'Which list? \n- Shopping\n- To-do', 'Which list? \nShopping or to-do?'],
  ])('in %s: %j', (language, text, said) => {
    expect(aloud(text, language)).toBe(said);
  });

  it.each([
    ['a list with nothing above it', '- a\n- b'],
    ['a list that is not the last lines', 'Do this:\n- Open it\n- Close it\nThat is all.'],
    ['a list over the cap', `Pick:\n${Array.from({ length: 7 }, (_, i) => `- c${String(i)}`).join('\n')}`],
    ['a list in a code block', 'Run:\n```\nWhich?\n- a\n- b'],
    ['no list', 'Just words.\nOn two lines.'],
  ])('leaves %s as it is', (_, text) => {
    expect(aloud(text, 'en')).toBe(text);
  });
});

describe('holding the end of an answer back from the voice while it streams', () => {
  const offers = [
    OFFER,
    'Sure. Which list?\n- Shopping\n- To-do\n\n',
    'Which list?  \n\n  - Shopping\n  - To-do',
    'Quelle liste ?\n\n- Courses\n- À faire',
    'Which?\n-\n- a',
  ];
  const others = [
    'Do this:\n- Open it\n- Close it\nThat is all.',
    '-5 degrees tonight.\n---\n-\nAfter the rule',
    '- a\n\n- b\n',
    'Run:\n```\nWhich?\n- a\n- b',
    'Just words.\n\nOn two lines',
  ];

  it('gives the chunker exactly what aloud says of the whole answer, however it is cut into deltas', () => {
    for (const text of [...offers, ...others]) {
      for (const cuts of awkwardCuts(text)) expect(chunkerGot(text, cuts), JSON.stringify({ text, cuts })).toBe(aloud(text, 'en'));
      for (let seed = 1; seed <= 20; seed++) expect(chunkerGot(text, randomCuts(text, seed))).toBe(aloud(text, 'en'));
    }
  });

  it('says the question and its choices as one sentence once the answer ends', () => {
    const { passed, end } = feed(OFFER, randomCuts(OFFER, 7));
    expect(passed.join('')).toBe('Which copy is ');
    expect(end).toBe('it: the paperback or the hardcover?');
    expect(chunkerGot('¿Qué lista?\n\n- Compra\n- Tareas', [3, 13, 15], 'es')).toBe('¿Qué lista: compra o tareas?');
  });

  it('lets an answer that offers nothing go on unchanged', () => {
    for (const text of others) expect(chunkerGot(text, randomCuts(text, 3))).toBe(text);
  });

  it('holds a line’s last word only until whitespace follows it, as the chunker would', () => {
    expect(feed('Sure, I can. Which list would you', []).passed).toEqual(['Sure, I can. Which list would ']);
    expect(feed('Sure, I can. Which list would you ', []).passed).toEqual(['Sure, I can. Which list would you ']);
  });

  it('lets the held word go on as written as soon as the next line shows no list', () => {
    expect(feed('Which list?\n\nThe', []).passed).toEqual(['Which list?\n\n']);
    expect(feed('Which list?\n-5 degrees', [13]).passed).toEqual(['Which ', 'list?\n-5 ']);
    expect(feed('Which list?\n- ', []).passed).toEqual(['Which ']);
    expect(feed('Do this:\n- Open it\nThat', [18]).passed).toEqual(['Do ', 'this:\n- Open it\n']);
  });

  it('lets nothing go at the end that was not held', () => {
    expect(feed('Just words.', []).end).toBe('words.');
    expect(feed('Just words.\n', []).end).toBe('words.\n');
    expect(feed('', []).end).toBe('');
  });
});

describe('choicesAloud', () => {
  it.each([
    ['en', ['The paperback', 'The hardcover'], 'the paperback or the hardcover?'],
    ['en', ['Red', 'Green', 'Blue.'], 'red, green, or blue?'],
    ['en', ['PDF', 'HTML page'], 'PDF or HTML page?'],
    ['es', ['Compra', 'Tareas'], 'compra o tareas?'],
    ['fr', ['Courses', 'À faire'], 'courses ou à faire?'],
    ['de', ['Einkaufen', 'Aufgaben'], 'Einkaufen oder Aufgaben?'],
    ['not a tag!', ['A', 'B'], 'a or b?'],
  ])('says the choices in %s as the end of a question', (language, items, expected) => {
    expect(choicesAloud(items, language)).toBe(expected);
  });
});
