/**
 * The words the recogniser is asked to favour (contextual biasing, where the browser takes it):
 * names a general model hears as something else — the bot's name, and the names of the person's
 * lists ("add eggs to the Dinner party list").
 */

/** A phrase to favour and how much: `boost` is about the natural log of how much likelier it is than the model thinks, 0..10. */
export interface RecognitionPhrase {
  text: string;
  boost: number;
}

/** How much the bot's name is favoured: heard over its sound-alikes, not hallucinated into other words. */
export const NAME_BOOST = 3;
/** How much each list's name is favoured: less than the name, as lists are many and said less often. */
export const LIST_BOOST = 2;
/** Most phrases given: the name and the first lists; a long list only dilutes the bias. */
export const MAX_PHRASES = 20;
/** Longest phrase kept, in characters: names, not sentences. */
const MAX_PHRASE_CHARS = 60;

/**
 * The bot's name, then each list's name: trimmed, spaces collapsed, none empty or longer than
 * `MAX_PHRASE_CHARS`, none twice (case aside; the first spelling is kept), at most `MAX_PHRASES`.
 */
export function recognitionPhrases(botName: string, listNames: readonly string[] = []): RecognitionPhrase[] {
  const phrases: RecognitionPhrase[] = [];
  const seen = new Set<string>();
  const add = (said: string, boost: number) => {
    const text = said.trim().replace(/\s+/g, ' ');
    const key = text.toLocaleLowerCase();
    if (text === '' || text.length > MAX_PHRASE_CHARS || seen.has(key) || phrases.length >= MAX_PHRASES) return;
    seen.add(key);
    phrases.push({ text, boost });
  };
  add(botName, NAME_BOOST);
  for (const name of listNames) add(name, LIST_BOOST);
  return phrases;
}
