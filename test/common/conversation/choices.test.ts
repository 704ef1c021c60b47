import { describe, expect, it } from 'vitest';
import { CHOICE_CHARS_MAX, CHOICE_DEPTH_MAX, CHOICES_MAX, cutChoices, isOffer, writtenWithChoices } from '../../../common/conversation/choices';

const long = 'x'.repeat(CHOICE_CHARS_MAX);

describe('cutChoices', () => {
  it.each([
    ['the seed’s own offer', 'Which copy is it?\n\n- The paperback\n- The hardcover', 'Which copy is it?', 'Which copy is it?', ['The paperback', 'The hardcover']],
    ['words before the question', 'I found two.\n\nWhich copy is it?\n- The paperback\n- The hardcover\n', 'I found two.\n\nWhich copy is it?', 'Which copy is it?', ['The paperback', 'The hardcover']],
    ['loose items and trailing blank lines', 'Which list?\n\n- Shopping\n\n- To-do\n\n  \n', 'Which list?', 'Which list?', ['Shopping', 'To-do']],
    ['one choice', 'Shall we go on?\n- Go on', 'Shall we go on?', 'Shall we go on?', ['Go on']],
    ['the most choices, each of the longest', `Pick one:\n${Array.from({ length: CHOICES_MAX }, (_, i) => `- ${String(i)}${long.slice(1)}`).join('\n')}`, 'Pick one:', 'Pick one:', Array.from({ length: CHOICES_MAX }, (_, i) => `${String(i)}${long.slice(1)}`)],
    ['markup taken off the items and the question', '## **Which** one?\n- **Bold** choice\n- [A link](https://example.com/x_(y)) and `code`\n- snake_case stays', '## **Which** one?', 'Which one?', ['Bold choice', 'A link and code', 'snake_case stays']],
    ['a quoted question', '> Which one?\n- This\n- That', '> Which one?', 'Which one?', ['This', 'That']],
    ['CRLF line ends', 'Which?\r\n- Yes\r\n- No\r\n', 'Which?', 'Which?', ['Yes', 'No']],
    ['nested, innermost items said with those above', 'Which copy?\n- Paperback\n  - Used\n  - New\n- Hardcover', 'Which copy?', 'Which copy?', ['Paperback — Used', 'Paperback — New', 'Hardcover']],
    ['three deep', 'Where?\n- Europe\n  - France\n    - Paris\n- Asia', 'Where?', 'Where?', ['Europe — France — Paris', 'Asia']],
    ['a tab as an indent', 'Which?\n- A\n\t- A1\n- B', 'Which?', 'Which?', ['A — A1', 'B']],
  ])('offers %s', (_, text, words, question, items) => {
    expect(cutChoices(text)).toEqual({ words, choices: { question, items } });
  });

  it.each([
    ['a list with nothing above it', '- The paperback\n- The hardcover'],
    ['a list with only blank lines above it', '\n\n- The paperback\n- The hardcover'],
    ['a choice over the most', `Pick one:\n${Array.from({ length: CHOICES_MAX + 1 }, (_, i) => `- Choice ${String(i)}`).join('\n')}`],
    ['seven innermost choices under two', `Pick one:\n- A\n${Array.from({ length: 6 }, (_, i) => `  - A${String(i)}`).join('\n')}\n- B`],
    ['an item over the cap', `Pick one:\n- Short\n- ${long}y`],
    ['a list nested past the deepest', `Where?\n${Array.from({ length: CHOICE_DEPTH_MAX + 1 }, (_, depth) => `${'  '.repeat(depth)}- Level ${String(depth)}`).join('\n')}`],
    ['a list that is not last', 'Which?\n- A\n- B\n\nTell me.'],
    ['a list whose item runs on to a second line', 'Which?\n- A\n- B and\n  more of it'],
    ['another kind of list', 'Which?\n* A\n* B'],
    ['a numbered list', 'Which?\n1. A\n2. B'],
    ['no list at all', 'Just words.'],
    ['nothing', ''],
    ['an item with no words once its markup is gone', 'Which?\n- **\n- B'],
    ['a list inside a code block left open', 'Run this:\n```\n- a\n- b'],
  ])('leaves %s as it is', (_, text) => {
    expect(cutChoices(text)).toBeNull();
  });

  it('cuts a list after a closed code block', () => {
    expect(cutChoices('Run:\n```\nls\n```\nThen which?\n- A\n- B')?.choices.items).toEqual(['A', 'B']);
  });
});

describe('writtenWithChoices', () => {
  it('writes the choices back as the list they were, under the words', () => {
    expect(writtenWithChoices('Which list?', { question: 'Which list?', items: ['Shopping', 'To-do'] })).toBe('Which list?\n\n- Shopping\n- To-do');
  });
});

describe('isOffer', () => {
  const offer = { id: 'line-1', question: 'Which?', items: ['A', 'B'], taken: null };
  it.each([
    ['open', offer, true],
    ['taken', { ...offer, taken: 1 }, true],
    ['taken past its choices', { ...offer, taken: 2 }, false],
    ['with no choices', { ...offer, items: [] }, false],
    ['with a blank choice', { ...offer, items: ['A', ''] }, false],
    ['without its line', { question: 'Which?', items: ['A'], taken: null }, false],
    ['not an object', 'A', false],
  ])('tells an offer %s', (_, value, expected) => {
    expect(isOffer(value)).toBe(expected);
  });
});
