import { describe, expect, it } from 'vitest';
import { choiceSaid } from '../../../src/core/conversation/choiceSaid';

const copies = ['The paperback', 'The hardcover'];
const lists = ['Shopping', 'To-do'];
const three = ['Red', 'Green', 'Blue'];

describe('choiceSaid', () => {
  it.each([
    ['en', 'the second one', copies, 1],
    ['en', 'The first.', copies, 0],
    ['en', 'the last one please', three, 2],
    ['en', 'number two', three, 1],
    ['en', 'option 3', three, 2],
    ['en', 'hardcover', copies, 1],
    ['en', 'the hardcover one, please', copies, 1],
    ['en', 'Shopping.', lists, 0],
    ['en', 'to do', lists, 1],
    ['en', 'the shopping list', lists, 0],
    ['en', 'yes', ['Yes', 'No'], 0],
    ['es', 'la segunda', copies, 1],
    ['es', 'el último, por favor', three, 2],
    ['es', 'número dos', three, 1],
    ['fr', 'la deuxième', copies, 1],
    ['fr', 'le premier, merci', three, 0],
    ['fr', 'la dernière', three, 2],
    ['de', 'die zweite bitte', copies, 1],
    ['de', 'das Erste', three, 0],
    ['de', 'die letzte', three, 2],
    ['de-AT', 'Nummer drei', three, 2],
    // English is heard in every language.
    ['de', 'the second one', copies, 1],
  ])('hears %s "%s" as a pick', (language, text, items, expected) => {
    expect(choiceSaid(text, items, language)).toBe(expected);
  });

  it.each([
    ['a place past the last choice', 'the third one', copies],
    ['words no choice has', 'what is the weather like', copies],
    ['a new question naming a choice', 'add bread to the shopping list', lists],
    ['words every choice shares', 'the', copies],
    ['two choices at once', 'paperback or hardcover', copies],
    ['nothing', '', copies],
    ['small words alone', 'um, please', copies],
  ])('hears %s as no pick', (_, text, items) => {
    expect(choiceSaid(text, items, 'en')).toBeNull();
  });
});
