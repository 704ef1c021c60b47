/**
 * Small pieces of spoken English the apps share: lists said with "and", counts with their noun, and
 * the numbers a person says in words ("in twenty five minutes").
 */

/** "milk", "milk and eggs", "milk, eggs and bread". */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1] ?? ''}`;
}

/** "1 thing", "5 things"; `plural` for nouns that do not just take an s. */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** Capitalises the first letter, for a phrase that opens a sentence. */
export function opening(phrase: string): string {
  return phrase.charAt(0).toUpperCase() + phrase.slice(1);
}

const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS: Readonly<Record<string, number>> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60 };

/** The words `numberSaid` reads, as a RegExp source to build phrasings with: digits, one…sixty, a/an. */
export const NUMBER_WORDS = `(?:\\d+|a|an|(?:twenty|thirty|forty|fifty|sixty)(?:[ -](?:one|two|three|four|five|six|seven|eight|nine))?|${UNITS.join('|')})`;

/**
 * A count as a person says it: digits, "one" to "sixty" ("twenty five", "twenty-five"), and "a" or
 * "an" for one. Undefined for anything else.
 */
export function numberSaid(said: string): number | undefined {
  const word = said.trim().toLowerCase();
  if (/^\d+$/.test(word)) return Number(word);
  if (word === 'a' || word === 'an') return 1;
  const unit = UNITS.indexOf(word);
  if (unit >= 0) return unit;
  const [tens = '', ones] = word.split(/[ -]/);
  const ten = TENS[tens];
  if (ten === undefined) return undefined;
  if (ones === undefined) return ten;
  const one = UNITS.indexOf(ones);
  return ten < 60 && one >= 1 && one <= 9 ? ten + one : undefined;
}
