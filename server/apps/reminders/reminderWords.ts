/**
 * What the reminders app says aloud, in the person's language (`words/<lang>.md`): one set, for the
 * verbs (`index.ts`) and for how a time is read and said back (`when.ts`).
 */
import { appWords } from '../appWords';

export const WORDS = appWords(new URL('.', import.meta.url));
