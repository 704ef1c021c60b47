/**
 * Whether what the person said to "…? Say yes or no." is a yes, a no, or something else. A yes
 * approves an action that may not be undone, so it is held to more than a no:
 *
 * - any negation anywhere makes it a no ("yes, no wait", "don't do it", "nicht löschen");
 * - a yes is only words of assent and the small words said around them ("yes please", "sure, go
 *   ahead", "oui, vas-y, merci"); anything more ("yes but first read it to me") is something else;
 * - anything else is `other`, which is never taken as a yes.
 *
 * Words are matched after folding case and accents, so "Sí", "si" and "SÍ" are one word. English is
 * understood in every language, as people say "okay" and "stop" whatever they speak.
 */

import { covered, lexiconsFor, onlyPhrases, phrasesOf, phraseWords } from './phrases';

export type YesNo = 'yes' | 'no' | 'other';

interface Lexicon {
  /** Words and phrases of assent, each its words after `phraseWords`. */
  yes: readonly string[];
  /** Words and phrases that refuse, hold back or negate: any one of them makes a no. */
  no: readonly string[];
  /** Words a yes may carry without becoming something else (courtesies, fillers). */
  around: readonly string[];
}

const LEXICONS = {
  en: {
    yes: ['yes', 'yeah', 'yep', 'yup', 'ya', 'sure', 'ok', 'okay', 'alright', 'all right', 'do it', 'go ahead', 'please do', 'yes please', 'of course', 'absolutely', 'definitely', 'certainly', 'affirmative', 'go for it', "that's right", 'correct', 'sounds good'],
    no: ['no', 'nope', 'nah', 'not', 'stop', 'cancel', 'dont', 'do not', 'never', 'never mind', 'nevermind', 'wait', 'hold on', 'abort', 'negative', 'leave it'],
    around: ['please', 'thanks', 'thank', 'you', 'it', 'that', 'just', 'then', 'and', 'so', 'um', 'uh', 'er', 'oh', 'well', 'thing', 'now'],
  },
  es: {
    yes: ['si', 'claro', 'vale', 'dale', 'hazlo', 'adelante', 'de acuerdo', 'por supuesto', 'venga', 'bueno', 'perfecto', 'correcto'],
    no: ['no', 'nunca', 'cancela', 'cancelar', 'cancelalo', 'detente', 'alto', 'espera', 'para', 'paralo', 'dejalo'],
    around: ['por', 'favor', 'gracias', 'que', 'pues', 'y', 'eso', 'lo', 'ya', 'ahora', 'mmm', 'eh'],
  },
  fr: {
    yes: ['oui', 'ouais', "d'accord", 'vas y', 'allez y', 'fais le', 'bien sur', 'carrement', 'absolument', 'entendu', 'parfait', 'ok', 'okay', 'volontiers'],
    no: ['non', 'annule', 'annuler', 'arrete', 'arreter', 'ne', 'pas', 'jamais', 'attends', 'stop', 'laisse tomber', 'laisse'],
    around: ['merci', "s'il te plait", "s'il vous plait", 'stp', 'svp', 'alors', "c'est", 'ca', 'euh', 'bon', 'maintenant'],
  },
  de: {
    yes: ['ja', 'klar', 'mach das', 'mach es', "mach's", 'machs', 'gerne', 'gern', 'genau', 'jawohl', 'in ordnung', 'einverstanden', 'sicher', 'natürlich', 'naturlich', 'okay', 'ok', 'los'],
    no: ['nein', 'nee', 'stopp', 'stop', 'abbrechen', 'brich ab', 'nicht', 'kein', 'keine', 'nie', 'niemals', 'warte', 'lass es', 'lass das'],
    around: ['bitte', 'danke', 'doch', 'dann', 'das', 'es', 'nur', 'jetzt', 'äh', 'also', 'schon'],
  },
} as const satisfies Readonly<Record<string, Lexicon>>;

/**
 * What the person's `text` answers to a yes-or-no question, heard in `language` (a BCP 47 tag
 * such as `en-GB` or `de`; one this module does not know is heard as English).
 */
export function answerOf(text: string, language: string): YesNo {
  const words = phraseWords(text);
  if (words.length === 0) return 'other';
  const lexicons: Lexicon[] = lexiconsFor(LEXICONS, language);
  const no = phrasesOf(lexicons.flatMap((l) => l.no));
  if (covered(words, no).size > 0) return 'no';
  return onlyPhrases(words, lexicons.flatMap((l) => l.yes), lexicons.flatMap((l) => l.around)) ? 'yes' : 'other';
}
