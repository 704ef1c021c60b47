/** The page's words in English, from the shipped words file, as a test's machine says them. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pageWordsIn, parsePageWords, sayer } from '../../common/pageWords';
import type { PageSay } from '../../common/pageWords';

const EN = join(import.meta.dirname, '..', '..', 'words', 'en.md');

export const englishSay: PageSay = sayer(pageWordsIn(new Map([['en', parsePageWords(EN, readFileSync(EN, 'utf8'))]]), 'en'));
