/**
 * Lists: a person's named lists ("shopping", "todo") — add to one, take things off, read it out,
 * clear it. Lists are the person's, whichever bot they ask.
 */
import { z } from 'zod';
import { VerbInputError } from '../../verbs/errors';
import { defineApp, defineVerb } from '../../verbs/verb';
import type { Narrator, VerbContext } from '../../verbs/verb';
import { appWords } from '../appWords';
import { joinWords, opening } from '../spoken';
import { addItem, clearList, countItems, listItems, listNames, removeItems } from './listItems';
import { itemKey, itemText, listName, splitItems } from './names';

/** Most items one list holds: past this, adding is refused until some are taken off. */
export const LIST_MAX_ITEMS = 200;
/** Most items `lists.read` answers. */
export const READ_MAX_ITEMS = 100;
/** Most items a read says aloud before saying how many there are in all. */
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

/** What the person is told, in their language. */
const saidField = z.string().describe('What to tell the person now.');

/** A sentence of `WORDS` in `language`, opening with a capital (most open with a list or its items). */
function sentence(language: string | undefined, key: string, n: number, fill: Readonly<Record<string, string>>): string {
  return opening(WORDS.count(language, key, n, fill));
}

/** The list named, normalised; a name with nothing left in it ("my list") is refused in `language`. */
function namedList(said: string, language: string | undefined): string {
  const list = listName(said);
  if (list === '') throw new VerbInputError(WORDS.say(language, 'which-list'));
  return list;
}

/** The items given, tidied and without repeats (by key), in the order given; none is refused in `language`. */
function givenItems(items: readonly string[], language: string | undefined): { text: string; key: string }[] {
  const seen = new Map<string, string>();
  for (const said of items) {
    const text = itemText(said);
    const key = itemKey(text);
    if (key !== '' && !seen.has(key)) seen.set(key, text);
  }
  if (seen.size === 0) throw new VerbInputError(WORDS.say(language, 'no-items'));
  return [...seen].map(([key, text]) => ({ key, text }));
}

/** `my shopping list`, `the list`, `my to do list`: the name is the first group when given. */
const LIST = String.raw`(?:my|the|our) (?:(.+?) )?list`;
const onList = (name: string | undefined) => name ?? DEFAULT_LIST;

const add = defineVerb({
  name: 'lists.add',
  description: 'Adds things to one of the person\'s lists (shopping, todo, …), creating the list if needed. Something already on the list is not added twice.',
  example: 'add milk and eggs to my shopping list',
  input: z.object({ list: listField, items: itemsField }),
  output: z.object({
    list: z.string().describe('The list, by its kept name.'),
    added: z.array(z.string()).describe('What was added.'),
    alreadyThere: z.array(z.string()).describe('What was on the list already, so not added again.'),
    said: saidField,
  }),
  risk: 'write',
  deadlineMs: 5000,
  async run(input, ctx) {
    const list = namedList(input.list, ctx.language);
    const items = givenItems(input.items, ctx.language);
    const had = await countItems(ctx.tx, list);
    const added: string[] = [];
    const alreadyThere: string[] = [];
    for (const item of items) {
      if (had + added.length >= LIST_MAX_ITEMS) {
        throw new VerbInputError(WORDS.say(ctx.language, 'full', { n: String(LIST_MAX_ITEMS) }));
      }
      const isNew = await addItem(ctx.tx, { person: ctx.person, list, text: item.text, key: item.key });
      (isNew ? added : alreadyThere).push(item.text);
    }
    const fill = { list: spokenList(list, ctx.language), items: joinWords(added, ctx.language), others: joinWords(alreadyThere, ctx.language) };
    const said =
      added.length === 0
        ? sentence(ctx.language, 'all-there', alreadyThere.length, { ...fill, items: fill.others })
        : sentence(ctx.language, alreadyThere.length === 0 ? 'added' : 'added-but', alreadyThere.length, fill);
    return { list, added, alreadyThere, said };
  },
  standIn: {
    phrasings: [
      {
        pattern: new RegExp(String.raw`^(?:please )?(?:add|put) (.+?) (?:to|on|onto) ${LIST}$`),
        input: (m) => ({ list: onList(m[2]), items: splitItems(m[1] ?? '') }),
      },
    ],
    say: ({ said }) => said,
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
    said: saidField,
  }),
  risk: 'write',
  deadlineMs: 5000,
  async run(input, ctx) {
    const list = namedList(input.list, ctx.language);
    const items = givenItems(input.items, ctx.language);
    const gone = new Set(await removeItems(ctx.tx, list, items.map((item) => item.key)));
    const removed = items.filter((item) => gone.has(item.key)).map((item) => item.text);
    const notThere = items.filter((item) => !gone.has(item.key)).map((item) => item.text);
    const fill = { list: spokenList(list, ctx.language), items: joinWords(removed, ctx.language), others: joinWords(notThere, ctx.language) };
    const said =
      removed.length === 0
        ? sentence(ctx.language, 'none-there', notThere.length, { ...fill, items: fill.others })
        : sentence(ctx.language, notThere.length === 0 ? 'removed' : 'removed-but', notThere.length, fill);
    return { list, removed, notThere, said };
  },
  standIn: {
    phrasings: [
      {
        pattern: new RegExp(String.raw`^(?:please )?(?:remove|take|delete|cross) (.+?) (?:from|off|off of) ${LIST}$`),
        input: (m) => ({ list: onList(m[2]), items: splitItems(m[1] ?? '') }),
      },
    ],
    say: ({ said }) => said,
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
    said: saidField,
  }),
  risk: 'read',
  deadlineMs: 2000,
  async run(input, ctx) {
    const list = namedList(input.list, ctx.language);
    const items = await listItems(ctx.tx, list, READ_MAX_ITEMS);
    ctx.signal.throwIfAborted();
    const total = items.length < READ_MAX_ITEMS ? items.length : await countItems(ctx.tx, list);
    const fill = { list: spokenList(list, ctx.language), items: joinWords(items.slice(0, SAID_MAX_ITEMS), ctx.language) };
    const said = sentence(ctx.language, total === 0 ? 'has-none' : total <= SAID_MAX_ITEMS ? 'has' : 'has-more', total, fill);
    return { list, items, total, said };
  },
  standIn: {
    phrasings: [
      { pattern: new RegExp(String.raw`^what(?:['’]s| is| do i have) on ${LIST}$`), input: (m) => ({ list: onList(m[1]) }) },
      { pattern: new RegExp(String.raw`^(?:please )?(?:read|show|tell)(?: me)?(?: out)? ${LIST}$`), input: (m) => ({ list: onList(m[1]) }) },
    ],
    say: ({ said }) => said,
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
    said: saidField,
  }),
  risk: 'destructive',
  confirm: true,
  ask: (input, ctx) => opening(WORDS.say(ctx.language, 'clear', { list: spokenList(listName(input.list) || DEFAULT_LIST, ctx.language) })),
  deadlineMs: 5000,
  async run(input, ctx) {
    const list = namedList(input.list, ctx.language);
    const cleared = await clearList(ctx.tx, list);
    return { list, cleared, said: sentence(ctx.language, cleared === 0 ? 'already-empty' : 'cleared', cleared, { list: spokenList(list, ctx.language) }) };
  },
  standIn: {
    phrasings: [{ pattern: new RegExp(String.raw`^(?:please )?(?:clear|empty|wipe)(?: out)? ${LIST}$`), input: (m) => ({ list: onList(m[1]) }) }],
    say: ({ said }) => said,
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
