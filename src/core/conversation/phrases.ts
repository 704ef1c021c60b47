/**
 * Short things people say, matched as words rather than characters (`wordsOf`): case and accents
 * folded, a phrase found only where its words stand together. The yes-or-no of a confirmation
 * (`yesNo.ts`) and the short turns (`shortTurns.ts`: backchannels, asking to wait) are heard with
 * these.
 */
import { withoutAccents, wordsOf } from '../../../common/wordsOf';

/**
 * The words of `text` as phrases are matched: `wordsOf` with accents folded, and a negation said
 * short read as the word it stands for — English "n't" as "not", French "n'" as "ne" ("don't" is
 * "do not", "n'annule" is "ne annule") — so that every negation a lexicon names is heard.
 */
export function phraseWords(text: string): string[] {
  return wordsOf(withoutAccents(text).replace(/n['’ʼ]t\b/gi, ' not').replace(/(?<![\p{L}\p{N}])n['’ʼ](?=\p{L})/giu, 'ne '));
}

/** Every phrase of `phrases` as its words, longest first, so "do not" is matched before "do". */
export function phrasesOf(phrases: readonly string[]): string[][] {
  return phrases.map(phraseWords).filter((words) => words.length > 0).sort((a, b) => b.length - a.length);
}

/** Where each of `phrases` occurs in `words`: the indices of the words it covers. */
export function covered(words: readonly string[], phrases: readonly string[][]): Set<number> {
  const at = new Set<number>();
  for (const phrase of phrases) {
    for (let start = 0; start + phrase.length <= words.length; start++) {
      if (phrase.every((word, i) => words[start + i] === word)) {
        for (let i = 0; i < phrase.length; i++) at.add(start + i);
      }
    }
  }
  return at;
}

/**
 * The lexicons a language is heard with: its own (by its primary subtag of a BCP 47 tag such as
 * `en-GB`), then English's, which people speak whatever else they speak; English alone for a
 * language with none of its own.
 */
export function lexiconsFor<L>(lexicons: Readonly<Record<string, L>> & { en: L }, language: string): L[] {
  const primary = language.toLowerCase().split(/[-_]/)[0] ?? 'en';
  const own = (lexicons as Readonly<Record<string, L | undefined>>)[primary];
  return own === undefined || own === lexicons.en ? [lexicons.en] : [own, lexicons.en];
}

/**
 * Whether `words` say one of `phrases` and nothing else but the small words of `around` ("yes
 * please", "oh, I see"): one phrase at least, and every word covered by one or the other.
 */
export function onlyPhrases(words: readonly string[], phrases: readonly string[], around: readonly string[]): boolean {
  const said = covered(words, phrasesOf(phrases));
  if (said.size === 0) return false;
  const small = covered(words, phrasesOf(around));
  return words.every((_, i) => said.has(i) || small.has(i));
}
