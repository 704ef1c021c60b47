/**
 * Which of an offer's choices the person's words pick, said rather than pressed: by its place ("the
 * second one", "la última", "das erste") or by its own words ("hardcover", "the to-do one"). Said
 * is the same press, so it is held to what a press is: the words must pick one choice and say
 * nothing else but the small words around a pick ("the", "one", "please") — "add bread to the
 * shopping list" is a new question, not the Shopping button.
 *
 * Words are matched as `phrases.ts` matches them (case and accents folded). English is understood
 * in every language, as for a yes or a no.
 */
import { lexiconsFor, phrasesOf, phraseWords } from './phrases';

interface Lexicon {
  /** The choices by place, first to sixth: each place's words. */
  places: readonly (readonly string[])[];
  /** The last choice, whatever its place. */
  last: readonly string[];
  /** Words that name a place by its number after them ("number two", "option 2"). */
  numbered: readonly string[];
  /** The numbers one to six, as said after `numbered`. */
  numbers: readonly (readonly string[])[];
  /** Small words a pick may carry without becoming something else. */
  around: readonly string[];
}

const LEXICONS = {
  en: {
    places: [['first', '1st'], ['second', '2nd'], ['third', '3rd'], ['fourth', '4th'], ['fifth', '5th'], ['sixth', '6th']],
    last: ['last', 'final'],
    numbered: ['number', 'option', 'choice'],
    numbers: [['one', '1'], ['two', '2'], ['three', '3'], ['four', '4'], ['five', '5'], ['six', '6']],
    around: ['the', 'a', 'an', 'one', 'ones', 'please', 'i', "i'll", 'ill', 'take', 'want', 'choose', 'pick', "let's", 'lets', 'go', 'with', 'for', 'that', 'it', 'thanks', 'um', 'uh', 'er', 'oh', 'ok', 'okay', 'yes', 'yeah', 'my', 'list'],
  },
  es: {
    places: [['primero', 'primera', 'primer'], ['segundo', 'segunda'], ['tercero', 'tercera', 'tercer'], ['cuarto', 'cuarta'], ['quinto', 'quinta'], ['sexto', 'sexta']],
    last: ['ultimo', 'ultima'],
    numbered: ['numero', 'opcion'],
    numbers: [['uno', '1'], ['dos', '2'], ['tres', '3'], ['cuatro', '4'], ['cinco', '5'], ['seis', '6']],
    around: ['el', 'la', 'lo', 'los', 'las', 'un', 'una', 'de', 'por', 'favor', 'quiero', 'elijo', 'me', 'quedo', 'con', 'gracias', 'eh', 'pues', 'si', 'vale', 'lista'],
  },
  fr: {
    places: [['premier', 'premiere', '1er', '1re'], ['deuxieme', 'second', 'seconde', '2e'], ['troisieme', '3e'], ['quatrieme', '4e'], ['cinquieme', '5e'], ['sixieme', '6e']],
    last: ['dernier', 'derniere'],
    numbered: ['numero', 'option', 'choix'],
    numbers: [['un', 'une', '1'], ['deux', '2'], ['trois', '3'], ['quatre', '4'], ['cinq', '5'], ['six', '6']],
    around: ['le', 'la', 'les', 'un', 'une', 'du', 'de', 'des', 'celui', 'celle', 'ci', 'merci', "s'il", 'te', 'vous', 'plait', 'je', 'prends', 'veux', 'choisis', 'euh', 'bon', 'oui', 'liste'],
  },
  de: {
    places: [['erste', 'ersten', 'erster', 'erstes'], ['zweite', 'zweiten', 'zweiter', 'zweites'], ['dritte', 'dritten', 'dritter', 'drittes'], ['vierte', 'vierten', 'vierter', 'viertes'], ['funfte', 'funften', 'funfter', 'funftes'], ['sechste', 'sechsten', 'sechster', 'sechstes']],
    last: ['letzte', 'letzten', 'letzter', 'letztes'],
    numbered: ['nummer', 'option'],
    numbers: [['eins', '1'], ['zwei', '2'], ['drei', '3'], ['vier', '4'], ['funf', '5'], ['sechs', '6']],
    around: ['der', 'die', 'das', 'den', 'dem', 'ein', 'eine', 'einen', 'bitte', 'ich', 'nehme', 'will', 'mochte', 'danke', 'also', 'ah', 'ja', 'liste'],
  },
} as const satisfies Readonly<Record<string, Lexicon>>;

/**
 * The index of the choice among `items` that `text` picks, heard in `language` (a BCP 47 tag; one
 * this module does not know is heard as English), or null when it picks none or more than one.
 */
export function choiceSaid(text: string, items: readonly string[], language: string): number | null {
  const words = phraseWords(text);
  const lexicons: Lexicon[] = lexiconsFor(LEXICONS, language);
  const around = new Set(phrasesOf(lexicons.flatMap((l) => l.around)).flat());
  const choices = items.map((item) => new Set(phraseWords(item)));
  const place = placeOf(words.filter((word) => !around.has(word)), lexicons, items.length);
  if (place !== undefined) return place;
  // By its words: every word said is one of the choice's own (a small word only when no choice has
  // it: "Yes" may be a choice), and at least one is no other choice's.
  const said = words.filter((word) => !around.has(word) || choices.some((own) => own.has(word)));
  if (said.length === 0) return null;
  const picked = choices.flatMap((own, i) => {
    const fits = said.every((word) => own.has(word));
    const telling = said.some((word) => choices.every((other, j) => j === i || !other.has(word)));
    return fits && telling ? [i] : [];
  });
  return picked.length === 1 ? (picked[0] ?? null) : null;
}

/** The choice picked by its place, when the words name one alone; undefined when they name none. */
function placeOf(said: readonly string[], lexicons: readonly Lexicon[], count: number): number | null | undefined {
  const [first = '', second] = said;
  const numbered = second !== undefined && said.length === 2 && lexicons.some((l) => l.numbered.includes(first));
  if (said.length !== 1 && !numbered) return undefined;
  const word = second ?? first;
  const byPlace = numbered ? undefined : lexicons.map((l) => l.places.findIndex((each) => each.includes(word))).find((at) => at !== -1);
  const byNumber = numbered ? lexicons.map((l) => l.numbers.findIndex((each) => each.includes(word))).find((at) => at !== -1) : undefined;
  const last = !numbered && lexicons.some((l) => l.last.includes(word)) ? count - 1 : undefined;
  const at = byPlace ?? byNumber ?? last;
  if (at === undefined) return undefined;
  return at < count ? at : null;
}
