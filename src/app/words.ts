/** The page's words in the person's language, for the views (which may not reach the platform): see `platform/words.ts`. */
export { onWordsChanged, sayWord, speakLanguage, wordsLanguage } from '../platform/words';
