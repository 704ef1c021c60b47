/**
 * Small pieces of speech the apps share: lists said with "and" in the person's language, a phrase
 * opening a sentence, and the numbers a person says in words ("in twenty five minutes", which the
 * stand-in hears in English only).
 */

/** Whether `language` is English, or unset (an MCP call, where the words are English's). */
export function saysEnglish(language: string | undefined): boolean {
  return language === undefined || language.split('-')[0] === 'en';
}

/** `language` as `Intl` takes it: English when it is unset or a tag `Intl` cannot read. */
export function intlLanguage(language: string | undefined): string {
  try {
    return Intl.getCanonicalLocales(language ?? 'en')[0] ?? 'en';
  } catch {
    return 'en';
  }
}

/** "milk", "milk and eggs", "milk, eggs, and bread": listed as `language` lists (English when unset). */
export function joinWords(words: readonly string[], language?: string): string {
  return new Intl.ListFormat(intlLanguage(language), { type: 'conjunction' }).format(words);
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
