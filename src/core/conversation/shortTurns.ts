/**
 * Two kinds of short thing a person says that are not a question to answer:
 *
 * - a **backchannel** — "mm-hmm", "yeah", "right", "I see" — said while the bot talks, to show they
 *   are listening: the bot carries on;
 * - **asking to wait** — "hold on", "give me a second", "one moment" — said as a whole turn: the bot
 *   says nothing and keeps listening, and what they say next is the turn.
 *
 * Each is only its phrases and the small words said around them ("oh yeah", "okay, hold on a
 * second"); anything more ("yeah but what about Tuesday") is a turn of its own. English is heard in
 * every language, as people say "okay" and "wait" whatever they speak.
 */
import { covered, lexiconsFor, onlyPhrases, phrasesOf, phraseWords } from './phrases';

interface ShortTurns {
  /** What a listener says to keep a speaker going. */
  backchannel: readonly string[];
  /** What asks the bot to wait, as a whole turn. */
  wait: readonly string[];
  /** Words either may carry without becoming something else. */
  around: readonly string[];
}

const LEXICONS = {
  en: {
    backchannel: [
      'mm', 'mmm', 'mhm', 'mm hmm', 'mm hm', 'uh huh', 'uh hu', 'hmm', 'yeah', 'yes', 'yep', 'yup', 'right', 'okay', 'ok', 'sure',
      'i see', 'got it', 'i know', 'true', 'exactly', 'cool', 'nice', 'wow', 'really', 'totally', 'of course', 'makes sense', 'fair enough',
    ],
    wait: [
      'wait', 'hold on', 'hang on', 'one moment', 'one sec', 'one second', 'just a moment', 'just a second', 'just a sec', 'a moment',
      'a second', 'a sec', 'give me a second', 'give me a sec', 'give me a moment', 'give me a minute', 'let me think', 'hold that thought',
    ],
    around: ['oh', 'ah', 'um', 'uh', 'er', 'well', 'so', 'and', 'just', 'please', 'a', 'bit', 'yeah', 'okay', 'ok', 'sorry'],
  },
  es: {
    backchannel: ['si', 'aja', 'vale', 'claro', 'ya', 'exacto', 'bueno', 'entiendo', 'ya veo', 'de acuerdo', 'mhm', 'mm', 'sale', 'venga', 'cierto'],
    wait: ['espera', 'espere', 'un momento', 'un segundo', 'un momentito', 'dame un segundo', 'dame un momento', 'dejame pensar', 'momento'],
    around: ['eh', 'ah', 'oh', 'pues', 'y', 'ya', 'vale', 'por', 'favor', 'perdon'],
  },
  fr: {
    backchannel: ['oui', 'ouais', "d'accord", 'ok', 'okay', 'mhm', 'mm', 'ah bon', 'je vois', 'exactement', "c'est vrai", 'bien sur', 'voila', 'carrement', 'vrai'],
    wait: ['attends', 'attendez', 'un instant', 'une seconde', 'un moment', 'une minute', 'deux secondes', 'laisse moi reflechir', 'minute'],
    around: ['euh', 'ah', 'oh', 'bon', 'alors', 'et', 'oui', 'ouais', "s'il te plait", "s'il vous plait", 'pardon'],
  },
  de: {
    backchannel: ['ja', 'genau', 'mhm', 'mm', 'stimmt', 'klar', 'okay', 'ok', 'aha', 'ach so', 'verstehe', 'richtig', 'natürlich', 'naturlich', 'gut', 'echt'],
    wait: ['warte', 'warten sie', 'moment', 'einen moment', 'augenblick', 'einen augenblick', 'sekunde', 'eine sekunde', 'kurz', 'lass mich nachdenken'],
    around: ['äh', 'ah', 'oh', 'also', 'und', 'ja', 'mal', 'bitte', 'noch', 'kurz', 'entschuldigung'],
  },
} as const satisfies Readonly<Record<string, ShortTurns>>;

/** Whether `text` is some of `kind`'s phrases and nothing but them and the small words around them. */
function onlyThese(text: string, language: string, kind: 'backchannel' | 'wait'): boolean {
  const words = phraseWords(text);
  if (words.length === 0) return false;
  const lexicons: ShortTurns[] = lexiconsFor(LEXICONS, language);
  return onlyPhrases(words, lexicons.flatMap((l) => l[kind]), lexicons.flatMap((l) => l.around));
}

/** Whether `text`, heard in `language` (a BCP 47 tag; one not known here is heard as English), is only a backchannel. */
export function isBackchannel(text: string, language: string): boolean {
  return onlyThese(text, language, 'backchannel');
}

/**
 * Whether `text` could still become a backchannel: it ends with the start of one of more words
 * ("I" of "I see", "of" of "of course"), after nothing but backchannels and small words. What a
 * recogniser gives word by word is not judged on its first word.
 */
export function beginsBackchannel(text: string, language: string): boolean {
  const words = phraseWords(text);
  if (words.length === 0) return false;
  const lexicons: ShortTurns[] = lexiconsFor(LEXICONS, language);
  const backchannel = lexicons.flatMap((l) => l.backchannel);
  const around = lexicons.flatMap((l) => l.around);
  const smallOrSaid = (head: readonly string[]) => {
    const known = new Set([...covered(head, phrasesOf(backchannel)), ...covered(head, phrasesOf(around))]);
    return head.every((_, i) => known.has(i));
  };
  for (const phrase of phrasesOf(backchannel)) {
    for (let k = 1; k < phrase.length && k <= words.length; k++) {
      const tail = words.slice(words.length - k);
      if (tail.every((word, i) => word === phrase[i]) && smallOrSaid(words.slice(0, words.length - k))) return true;
    }
  }
  return false;
}

/** Whether `text`, as a whole turn, only asks the bot to wait ("hold on", "give me a second"). */
export function asksToWait(text: string, language: string): boolean {
  return onlyThese(text, language, 'wait');
}

/** The languages with their own lists here; every other is heard with English's. */
export const SHORT_TURN_LANGUAGES = Object.keys(LEXICONS);
