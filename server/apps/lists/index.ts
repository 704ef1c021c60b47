/**
 * Lists: a person's named lists ("shopping", "todo") — add to one, take things off, read it out,
 * clear it. Lists are the person's, whichever bot they ask.
 */
import { z } from 'zod';
import { VerbInputError } from '../../verbs/errors';
import { defineApp, defineVerb } from '../../verbs/verb';
import type { Narrator, VerbContext } from '../../verbs/verb';
import { appWords } from '../appWords';
import { counted, joinWords, opening } from '../spoken';
import { addItem, clearList, countItems, listItems, listNames, removeItems } from './listItems';
import { itemKey, itemText, listName, splitItems } from './names';

/** Most items one list holds: past this, adding is refused until some are taken off. */
export const LIST_MAX_ITEMS = 200;
/** Most items `lists.read` answers. */
export const READ_MAX_ITEMS = 100;
/** Most items the stand-in reads out before saying how many more there are. */
const SAID_MAX_ITEMS = 10;
/** Most list names given to the recogniser to expect. */
const PHRASES_MAX = 20;
/** The list a person means when they say only "my list". */
export const DEFAULT_LIST = 'shopping';

/** What the app says aloud, in the person's language (`words/<lang>.md`). */
const WORDS = appWords(new URL('.', import.meta.url));

/** A list's name as said in a sentence: "your shopping list", "tu lista de la compra"; English where no language is given. */
export function spokenList(list: string, language?: string): string {
  if (list === 'shopping' || list === 'todo') return WORDS.say(language, `list-${list}`);
  return WORDS.say(language, 'list', { name: list });
}

const listField = z
  .string()
  .min(1)
  .max(60)
  .describe(`The list's name, such as "shopping" or "todo". Use "${DEFAULT_LIST}" when the person does not say which list.`);
const itemsField = z
  .array(z.string().min(1).max(100))
  .min(1)
  .max(20)
  .describe('The items, one per entry, as the person said them ("milk", "call the dentist").');

/** The list named, normalised; a name with nothing left in it ("my list") is refused. */
function namedList(said: string): string {
  const list = listName(said);
  if (list === '') throw new VerbInputError('Which list? Give it a name, like your shopping list.');
  return list;
}

/** The items given, tidied and without repeats (by key), in the order given. */
function givenItems(items: readonly string[]): { text: string; key: string }[] {
  const seen = new Map<string, string>();
  for (const said of items) {
    const text = itemText(said);
    const key = itemKey(text);
    if (key !== '' && !seen.has(key)) seen.set(key, text);
  }
  if (seen.size === 0) throw new VerbInputError('There was nothing to put on the list; say the things by name.');
  return [...seen].map(([key, text]) => ({ key, text }));
}

/** `my shopping list`, `the list`, `my to do list`: the name is the first group when given. */
const LIST = String.raw`(?:my|the|our) (?:(.+?) )?list`;
const onList = (name: string | undefined) => name ?? DEFAULT_LIST;
const wasWere = (items: readonly string[]) => (items.length === 1 ? 'was' : 'were');

const add = defineVerb({
  name: 'lists.add',
  description: 'Adds things to one of the person\'s lists (shopping, todo, …), creating the list if needed. Something already on the list is not added twice.',
  example: 'add milk and eggs to my shopping list',
  input: z.object({ list: listField, items: itemsField }),
  output: z.object({
    list: z.string().describe('The list, by its kept name.'),
    added: z.array(z.string()).describe('What was added.'),
    alreadyThere: z.array(z.string()).describe('What was on the list already, so not added again.'),
  }),
  risk: 'write',
  deadlineMs: 5000,
  async run(input, ctx) {
    const list = namedList(input.list);
    const items = givenItems(input.items);
    const had = await countItems(ctx.tx, list);
    const added: string[] = [];
    const alreadyThere: string[] = [];
    for (const item of items) {
      if (had + added.length >= LIST_MAX_ITEMS) {
        throw new VerbInputError(`That list already has ${LIST_MAX_ITEMS} things on it; take some off before adding more.`);
      }
      const isNew = await addItem(ctx.tx, { person: ctx.person, list, text: item.text, key: item.key });
      (isNew ? added : alreadyThere).push(item.text);
    }
    return { list, added, alreadyThere };
  },
  standIn: {
    phrasings: [
      {
        pattern: new RegExp(String.raw`^(?:please )?(?:add|put) (.+?) (?:to|on|onto) ${LIST}$`),
        input: (m) => ({ list: onList(m[2]), items: splitItems(m[1] ?? '') }),
      },
    ],
    say({ list, added, alreadyThere }) {
      const yours = spokenList(list);
      if (added.length === 0) return `${opening(joinWords(alreadyThere))} ${wasWere(alreadyThere)} already on ${yours}.`;
      const also = alreadyThere.length === 0 ? '' : `; ${joinWords(alreadyThere)} ${wasWere(alreadyThere)} already on it`;
      return `I've added ${joinWords(added)} to ${yours}${also}.`;
    },
  },
});

const remove = defineVerb({
  name: 'lists.remove',
  description: 'Takes things off one of the person\'s lists. Says which of them were not on it.',
  example: 'take milk off my shopping list',
  input: z.object({ list: listField, items: itemsField }),
  output: z.object({
    list: z.string().describe('The list, by its kept name.'),
    removed: z.array(z.string()).describe('What was taken off.'),
    notThere: z.array(z.string()).describe('What was asked for but not on the list.'),
  }),
  risk: 'write',
  deadlineMs: 5000,
  async run(input, ctx) {
    const list = namedList(input.list);
    const items = givenItems(input.items);
    const gone = new Set(await removeItems(ctx.tx, list, items.map((item) => item.key)));
    return {
      list,
      removed: items.filter((item) => gone.has(item.key)).map((item) => item.text),
      notThere: items.filter((item) => !gone.has(item.key)).map((item) => item.text),
    };
  },
  standIn: {
    phrasings: [
      {
        pattern: new RegExp(String.raw`^(?:please )?(?:remove|take|delete|cross) (.+?) (?:from|off|off of) ${LIST}$`),
        input: (m) => ({ list: onList(m[2]), items: splitItems(m[1] ?? '') }),
      },
    ],
    say({ list, removed, notThere }) {
      const yours = spokenList(list);
      const missing = notThere.length === 1 ? "wasn't" : "weren't";
      if (removed.length === 0) return `${opening(joinWords(notThere))} ${missing} on ${yours}.`;
      const also = notThere.length === 0 ? '' : `; ${joinWords(notThere)} ${missing} on it`;
      return `I've taken ${joinWords(removed)} off ${yours}${also}.`;
    },
  },
});

const read = defineVerb({
  name: 'lists.read',
  description: `What is on one of the person's lists, in the order it was added (the first ${READ_MAX_ITEMS} things).`,
  example: "what's on my shopping list",
  input: z.object({ list: listField }),
  output: z.object({
    list: z.string().describe('The list, by its kept name.'),
    items: z.array(z.string()).describe('The items, oldest first.'),
    total: z.number().int().describe('How many items the list has, which may be more than are given.'),
  }),
  risk: 'read',
  deadlineMs: 2000,
  async run(input, ctx) {
    const list = namedList(input.list);
    const items = await listItems(ctx.tx, list, READ_MAX_ITEMS);
    ctx.signal.throwIfAborted();
    const total = items.length < READ_MAX_ITEMS ? items.length : await countItems(ctx.tx, list);
    return { list, items, total };
  },
  standIn: {
    phrasings: [
      { pattern: new RegExp(String.raw`^what(?:['’]s| is| do i have) on ${LIST}$`), input: (m) => ({ list: onList(m[1]) }) },
      { pattern: new RegExp(String.raw`^(?:please )?(?:read|show|tell)(?: me)?(?: out)? ${LIST}$`), input: (m) => ({ list: onList(m[1]) }) },
    ],
    say({ list, items, total }) {
      const yours = opening(spokenList(list));
      if (total === 0) return `${yours} is empty.`;
      if (total <= SAID_MAX_ITEMS) return `${yours} has ${joinWords(items)}.`;
      return `${yours} has ${counted(total, 'thing')}, starting with ${joinWords(items.slice(0, SAID_MAX_ITEMS))}.`;
    },
  },
});

const clear = defineVerb({
  name: 'lists.clear',
  description: 'Empties one of the person\'s lists. The person is asked first.',
  example: 'clear my shopping list',
  input: z.object({ list: listField }),
  output: z.object({
    list: z.string().describe('The list, by its kept name.'),
    cleared: z.number().int().describe('How many items were taken off.'),
  }),
  risk: 'destructive',
  confirm: true,
  ask: (input, ctx) => opening(WORDS.say(ctx.language, 'clear', { list: spokenList(listName(input.list) || DEFAULT_LIST, ctx.language) })),
  deadlineMs: 5000,
  async run(input, ctx) {
    const list = namedList(input.list);
    return { list, cleared: await clearList(ctx.tx, list) };
  },
  standIn: {
    phrasings: [{ pattern: new RegExp(String.raw`^(?:please )?(?:clear|empty|wipe)(?: out)? ${LIST}$`), input: (m) => ({ list: onList(m[1]) }) }],
    say: ({ list, cleared }) => (cleared === 0 ? `${opening(spokenList(list))} was already empty.` : `I've cleared ${spokenList(list)}.`),
  },
});

const changed = z.object({ list: z.string() });

/** After a change, how many things the list has now, in the person's language: "That's 5 things on your shopping list." */
const howMany: Narrator = {
  follows: 'lists.*',
  async narrate(ran, ctx: VerbContext) {
    if (ran.verb === 'lists.read') return undefined;
    const parsed = changed.safeParse(ran.output);
    if (!parsed.success) return undefined;
    const { list } = parsed.data;
    const count = await countItems(ctx.tx, list);
    const yours = spokenList(list, ctx.language);
    return opening(count === 0 ? WORDS.say(ctx.language, 'empty', { list: yours }) : WORDS.count(ctx.language, 'count', count, { list: yours }));
  },
};

export default defineApp({
  name: 'lists',
  description: "The person's named lists: shopping, to-do and any other they name.",
  verbs: [add, remove, read, clear],
  narrators: [howMany],
  // The lists' own names, so "add it to the groceries" is heard as the person says it.
  phrases: (tx) => listNames(tx, PHRASES_MAX),
});
