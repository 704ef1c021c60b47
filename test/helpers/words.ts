/** The shipped words, as the door says them when a test gives it none. */
import { shippedWords } from '../../server/words/loadWords';
import { closingSentence } from '../../server/chat/answer';
import type { Cut } from '../../server/chat/answer';
import type { Words } from '../../server/words/words';

export const english: Words = shippedWords().wordsIn('en');

/** The English ending for a cut answer. */
export const closingOf = (why: Cut): string => closingSentence(english, why);
