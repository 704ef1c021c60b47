/** The shipped words, as the door says them when a test gives it none. */
import { shippedWords } from '../../server/words/loadWords';
import { closingSentence } from '../../server/chat/answer';
import type { Cut } from '../../server/chat/answer';
import { say } from '../../server/words/words';
import type { WordKey, Words } from '../../server/words/words';

export const english: Words = shippedWords().wordsIn('en');

/** The English ending for a cut answer. */
export const closingOf = (why: Cut): string => closingSentence(english, why);

/** A request's refusal (`## requests`) as the shipped words say it in `language`, English unless given. */
export const requestRefusal = (key: WordKey, fill: Readonly<Record<string, string>> = {}, language = 'en'): string => say(shippedWords().wordsIn(language), key, fill);
