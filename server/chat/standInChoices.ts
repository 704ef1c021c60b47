/**
 * Where the stand-in offers a choice, so choices to tap are seen and tested with no key: asked to
 * add something to "my list" without saying which — in one of the ways the person's words give
 * (`stand-in.adds-to-list`) — it asks which — shopping or to-do — as an answer ending in a `- ` list
 * (common/conversation/choices.ts), and the person's pick (pressed, said or typed: the page sends
 * the choice's own words) is the list it goes on. All of it in the person's language.
 */
import type { PromptMessage } from './providerWire';
import { plainLine } from './standInModel';
import { wordsOf } from '../../common/wordsOf';
import { intlLanguage } from '../apps/spoken';
import { say } from '../words/words';
import type { Words } from '../words/words';
import type { Verb } from '../verbs/verb';

/** The verb whose list the offer picks. */
const ADDS = 'lists.add';
/** Where the things go in a way of asking (`stand-in.adds-to-list`). */
const ITEMS = '{items}';
/** Most words a pick may have besides its choice's own: "the to-do list", "lista de la compra". */
const PICK_WORDS_AROUND = 3;

/** The lists offered, by the name the lists app keeps each under, with the word the person reads. */
const LISTS = [
  { list: 'shopping', word: 'stand-in.list-shopping' },
  { list: 'todo', word: 'stand-in.list-todo' },
] as const;

/** The stand-in's offer: which list, the shopping list or the to-do list. */
function offerOf(words: Words): string {
  return `${say(words, 'stand-in.which-list')}\n\n${LISTS.map(({ word }) => `- ${say(words, word)}`).join('\n')}`;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A word of a way of asking, alternatives split at `/`, as a RegExp source. */
function wordPattern(word: string): string {
  return word === ITEMS ? '(.+?)' : `(?:${word.split('/').map(escaped).join('|')})`;
}

/**
 * What `question` asks to put on a list it leaves unnamed ("add milk and eggs to my list": "milk
 * and eggs"), when it is asked in one of the ways `words` give; undefined otherwise.
 */
function thingsAsked(question: string, words: Words): string | undefined {
  const line = plainLine(question);
  for (const way of words['stand-in.adds-to-list'].split('|')) {
    const places = plainLine(way).split(' ');
    if (!places.includes(ITEMS)) continue;
    const things = new RegExp(`^${places.map(wordPattern).join(' ')}$`, 'u').exec(line)?.[1];
    if (things !== undefined) return things;
  }
  return undefined;
}

/** The word `language` joins the last two things of a list with ("and", "y", "et", "und"), as `Intl` writes it. */
function conjunction(language: string): string {
  const parts = new Intl.ListFormat(intlLanguage(language), { type: 'conjunction' }).formatToParts(['a', 'b']);
  return parts.find((part) => part.type === 'literal')?.value.trim().toLowerCase() ?? '';
}

/** Things as a person lists them in `language`: "milk, eggs and bread" → milk, eggs, bread. */
function thingsOf(said: string, language: string): string[] {
  const and = escaped(conjunction(language));
  const between = and === '' ? /\s*,\s*/u : new RegExp(`\\s*,\\s*(?:${and}\\s+)?|\\s+${and}\\s+`, 'u');
  return said
    .split(between)
    .map((thing) => thing.trim())
    .filter((thing) => thing !== '');
}

/** The list `pick` names among those offered in `words`: one choice's words among its own, and few others. */
function listPicked(pick: string, words: Words): string | undefined {
  const said = wordsOf(pick);
  const chosen = LISTS.filter(({ word }) => {
    const choice = wordsOf(say(words, word));
    if (choice.length === 0 || said.length > choice.length + PICK_WORDS_AROUND) return false;
    return said.some((_, start) => choice.every((one, i) => said[start + i] === one));
  });
  return chosen.length === 1 ? chosen[0]?.list : undefined;
}

/** What the stand-in answers `question` with when it asks which list; undefined when it does not. */
export function listOffer(question: string, verbs: readonly Verb[], words: Words): string | undefined {
  if (!verbs.some((verb) => verb.name === ADDS) || thingsAsked(question, words) === undefined) return undefined;
  return offerOf(words);
}

/**
 * The call that puts what the person asked for on the list they picked, when their last words pick
 * one of the lists the stand-in just offered; undefined otherwise. `words` are in `language`.
 */
export function pickedList(messages: readonly PromptMessage[], verbs: readonly Verb[], words: Words, language: string): { verb: Verb; input: unknown } | undefined {
  const adds = verbs.find((verb) => verb.name === ADDS);
  const [asked, offered, picked] = messages.filter((m) => m.role === 'user' || m.role === 'assistant').slice(-3);
  if (adds === undefined || asked?.role !== 'user' || offered?.role !== 'assistant' || picked?.role !== 'user') return undefined;
  if (typeof offered.content !== 'string' || offered.content.trim() !== offerOf(words)) return undefined;
  const things = thingsAsked(asked.content, words);
  const list = listPicked(picked.content, words);
  return things === undefined || list === undefined ? undefined : { verb: adds, input: { list, items: thingsOf(things, language) } };
}
