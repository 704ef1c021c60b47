/**
 * How a list and its items are named, so "My Shopping List" and "shopping" are one list and "Milk"
 * is not added twice to it.
 */

/**
 * A list's name as kept: lower-case, spaces collapsed, without "my"/"the" before it or "list" after
 * it ("My shopping list" → "shopping"); "to do" and "to-do" are "todo". Empty when nothing is left.
 */
export function listName(said: string): string {
  return said
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\bto[\s-]*dos?\b/g, 'todo')
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .trim()
    .replace(/^(?:(?:my|the|our|your)\s+)+/, '')
    .replace(/\s*\blists?$/, '')
    .trim();
}

/** An item as kept and said: spaces collapsed, without end punctuation. */
export function itemText(said: string): string {
  return said
    .normalize('NFKC')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;:!?]+$/, '');
}

/** What two items are compared by: lower-case, without a leading "the" or "some" ("The milk" is "milk"). */
export function itemKey(text: string): string {
  return itemText(text)
    .toLowerCase()
    .replace(/^(?:the|some)\s+/, '');
}

/** Items as a person lists them: "milk, eggs and bread" → milk, eggs, bread. */
export function splitItems(said: string): string[] {
  return said
    .split(/\s*,\s*(?:and\s+)?|\s+and\s+/)
    .map(itemText)
    .filter((item) => item !== '');
}
