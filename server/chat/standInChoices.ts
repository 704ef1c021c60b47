/**
 * Where the stand-in offers a choice, so choices to tap are seen and tested with no key: asked to
 * add something to "my list" without saying which, it asks which — shopping or to-do — as an answer
 * ending in a `- ` list (common/conversation/choices.ts), and the person's pick (pressed, said or
 * typed: the page sends the choice's own words) is the list it goes on.
 */
import type { PromptMessage } from './providerWire';
import { plainLine } from './standInModel';
import { shippedWords } from '../words/loadWords';
import { say } from '../words/words';
import type { Words } from '../words/words';
import type { Verb } from '../verbs/verb';

/** "add milk to my list": a thing put on a list the person did not name. */
const UNNAMED_LIST = /^((?:please )?(?:add|put) .+? (?:to|on|onto) (?:my|the|our)) list$/u;
/** The verb whose list the offer picks. */
const ADDS = 'lists.add';

/** The lists offered, by the name the lists app keeps each under, with the word the person reads. */
const LISTS = [
  { list: 'shopping', word: 'stand-in.list-shopping' },
  { list: 'todo', word: 'stand-in.list-todo' },
] as const;

/** The stand-in's offer: which list, the shopping list or the to-do list. */
function offerOf(words: Words): string {
  return `${say(words, 'stand-in.which-list')}\n\n${LISTS.map(({ word }) => `- ${say(words, word)}`).join('\n')}`;
}

/** What the stand-in answers `question` with when it asks which list; undefined when it does not. */
export function listOffer(question: string, verbs: readonly Verb[], words: Words = shippedWords().wordsIn('en')): string | undefined {
  if (!verbs.some((verb) => verb.name === ADDS) || !UNNAMED_LIST.test(plainLine(question))) return undefined;
  return offerOf(words);
}

/**
 * The person's question with the list they picked named in it ("add milk to my shopping list"),
 * when their last words pick one of the lists the stand-in just offered; undefined otherwise.
 */
export function pickedList(messages: readonly PromptMessage[], words: Words = shippedWords().wordsIn('en')): string | undefined {
  const [asked, offered, picked] = messages.filter((m) => m.role === 'user' || m.role === 'assistant').slice(-3);
  if (asked?.role !== 'user' || offered?.role !== 'assistant' || picked?.role !== 'user') return undefined;
  if (typeof offered.content !== 'string' || offered.content.trim() !== offerOf(words)) return undefined;
  const unnamed = UNNAMED_LIST.exec(plainLine(asked.content));
  const pick = plainLine(picked.content).replace(/ list$/u, '');
  const chosen = LISTS.find(({ word }) => plainLine(say(words, word)) === pick);
  return unnamed === null || chosen === undefined ? undefined : `${unnamed[1] ?? ''} ${chosen.list} list`;
}
