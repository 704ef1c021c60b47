/**
 * The page's words for the views: `say` read while a component renders (or in a `computed`) is
 * read again when the words change — the person picked another language, or the site's arrived.
 */
import { shallowRef } from 'vue';
import type { PageSay } from '../../common/pageWords';
import { onWordsChanged, sayWord } from '../app/words';

/** A new function each time the words change, so whatever read it reads it again. */
const current = shallowRef<PageSay>((key, fill) => sayWord(key, fill));
onWordsChanged(() => {
  current.value = (key, fill) => sayWord(key, fill);
});

export const say: PageSay = (key, fill) => current.value(key, fill);
