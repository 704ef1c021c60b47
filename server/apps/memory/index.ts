/**
 * Memory: what a person asks a bot to remember, and to forget. The memories are the same ones the
 * bot recalls (`memory: person+recall`) and the person lists and forgets in their page; the server
 * writes them, in the person's transaction, never a client.
 */
import { z } from 'zod';
import { VerbInputError } from '../../verbs/errors';
import { defineApp, defineVerb } from '../../verbs/verb';
import type { Queryable } from '../../db/queryable';
import { appWords } from '../appWords';
import { forgottenInTurn } from '../../db/memories';
import { forgetWords, yourWords } from '../../db/forgotten';
import { joinWords, saysEnglish } from '../spoken';
import { forgetMemories, memoriesAbout, rememberAsPerson } from './remembered';
import type { Embedder } from '../../memory/embed';

declare module '../../verbs/verb' {
  interface AppServices {
    /** The memory embedder (vectors for `memory.remember` and recall). */
    embedder: Embedder;
  }
}

export { yourWords } from '../../db/forgotten';

/** Most memories one question to forget may name. */
export const FORGET_IDS_MAX = 100;
/** Most other phrases one call to forget may gather (`also`): the calls of one model step, as one. */
export const FORGET_ALSO_MAX = 31;

/** Spaces collapsed, no end punctuation. */
function tidy(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;:!?]+$/, '');
}

/** What the app says aloud, in the person's language (`words/<lang>.md`). */
const WORDS = appWords(new URL('.', import.meta.url));

/** What the person is told, in their language. */
const saidField = z.string().describe('What to tell the person now.');

const remember = defineVerb({
  name: 'memory.remember',
  description: 'Keeps something the person asked this bot to remember, so it is recalled in later conversations.',
  example: 'remember that my sister is called Ana',
  input: z.object({
    text: z.string().min(1).max(500).describe('What to remember, in the person\'s words ("my sister is called Ana").'),
  }),
  output: z.object({
    id: z.string().describe('The memory, as the person sees it in their list of memories.'),
    text: z.string().describe('What was remembered.'),
    said: saidField,
  }),
  risk: 'write',
  deadlineMs: 5000,
  // Embedding may be a network call: it is made before the transaction opens, never inside it.
  prepare: (input, ctx) => ctx.services.embedder.embed(tidy(input.text), ctx.signal),
  async run(input, ctx) {
    const text = tidy(input.text);
    const embedding = ctx.prepared instanceof Float32Array ? ctx.prepared : await ctx.services.embedder.embed(text);
    const id = await rememberAsPerson(ctx.tx, { bot: ctx.bot, text, embedder: ctx.services.embedder.name, embedding });
    if (id === undefined) throw new VerbInputError(WORDS.say(ctx.language, 'nothing-to-remember'));
    return { id, text, said: WORDS.say(ctx.language, 'remembered', { text }) };
  },
  standIn: {
    phrasings: [{ pattern: /^(?:please )?remember (?:that )?(.+)$/, input: (m) => ({ text: m[1] ?? '' }) }],
    say: ({ said }) => said,
  },
});

interface ForgetInput {
  about: string;
  also?: string[] | undefined;
  ids?: string[] | undefined;
}

/** The words a call asks to forget: `about`, then each of `also`, tidied, once each. */
function aboutsOf(input: ForgetInput): string[] {
  return [...new Set([input.about, ...(input.also ?? [])].map(tidy))];
}

/**
 * The memories of the person's for this bot `memory.forget` would forget, each with the words it was
 * found by: those that mention `about` or one of `also` — of them, only the ones `ids` names when it
 * is given (a question's, fixed when it was asked). Words with no word in them are refused in the
 * person's language.
 */
async function forgetting(input: ForgetInput, ctx: { tx: Queryable; bot: string; language?: string | undefined }): Promise<{ id: string; about: string }[]> {
  const abouts = aboutsOf(input);
  if (abouts.some((about) => forgetWords(about).length === 0)) throw new VerbInputError(WORDS.say(ctx.language, 'say-in-words'));
  const found = new Map<string, string>();
  for (const about of abouts) for (const id of await memoriesAbout(ctx.tx, { bot: ctx.bot, about })) if (!found.has(id)) found.set(id, about);
  const named = input.ids;
  return [...found].filter(([id]) => named === undefined || named.includes(id)).map(([id, about]) => ({ id, about }));
}

/** How many memories the call's turn has forgotten before it: a turn is counted whole, not call by call. */
async function forgottenBefore(ctx: { tx: Queryable; turn?: string | undefined }): Promise<number> {
  return ctx.turn === undefined ? 0 : forgottenInTurn(ctx.tx, ctx.turn);
}

const forget = defineVerb({
  name: 'memory.forget',
  description:
    'Forgets everything the person told this bot to remember that mentions the given words (whole words, any case). When that is more than one memory the person is asked first. It cannot be undone.',
  example: 'forget what I said about my sister',
  input: z.object({
    about: z.string().min(3).max(200).describe('Words the memories to forget mention ("my sister").'),
    also: z
      .array(z.string().min(3).max(200))
      .max(FORGET_ALSO_MAX)
      .optional()
      .describe('Leave this out: when one step calls this more than once, the server gathers here the other calls\' words, to ask once.'),
    ids: z
      .array(z.uuid())
      .max(FORGET_IDS_MAX)
      .optional()
      .describe('Leave this out: when the person is asked first, the server fixes here the memories the question names.'),
  }),
  output: z.object({
    count: z.number().int().describe('How many memories were forgotten.'),
    said: saidField,
  }),
  risk: 'destructive',
  deadlineMs: 5000,
  // One memory goes without a question; more than one in a turn — in one call, in the calls of one
  // step (gathered into one), or over several steps — is the person's to agree to.
  confirm: async (input, ctx) => (await forgottenBefore(ctx)) + (await forgetting(input, ctx)).length > 1,
  // The calls of one model step are one call: what they would forget together is counted, and asked about, once.
  gather: (inputs) => {
    const [first, ...rest] = inputs.flatMap((input) => [input.about, ...(input.also ?? [])]);
    const named = inputs.every((input) => input.ids !== undefined) ? [...new Set(inputs.flatMap((input) => input.ids ?? []))] : undefined;
    return { about: first ?? '', ...(rest.length === 0 ? {} : { also: rest }), ...(named === undefined ? {} : { ids: named }) };
  },
  // The question names these memories and no others: a yes forgets exactly them.
  pin: async (input, ctx) => ({ ...input, ids: (await forgetting(input, ctx)).slice(0, FORGET_IDS_MAX).map((found) => found.id) }),
  ask: async (input, ctx) => {
    const count = (await forgetting(input, ctx)).length;
    // "my sister" is said back as "your sister" in English; other languages say the words as given.
    const abouts = aboutsOf(input).map((about) => (saysEnglish(ctx.language) ? yourWords(about) : about));
    return WORDS.count(ctx.language, 'forget', count, { about: joinWords(abouts, ctx.language) });
  },
  async run(input, ctx) {
    if (aboutsOf(input).some((about) => about.length < 3)) throw new VerbInputError(WORDS.say(ctx.language, 'say-more'));
    const found = await forgetting(input, ctx);
    const count = await forgetMemories(ctx.tx, { found, person: ctx.person, turn: ctx.turn, nowMs: ctx.nowMs });
    return { count, said: count === 0 ? WORDS.say(ctx.language, 'forgot-nothing') : WORDS.count(ctx.language, 'forgot', count) };
  },
  standIn: {
    phrasings: [
      { pattern: /^(?:please )?forget (?:what i (?:said|told you) about|everything about|about) (.+)$/, input: (m) => ({ about: m[1] ?? '' }) },
      { pattern: /^(?:please )?forget that (.+)$/, input: (m) => ({ about: m[1] ?? '' }) },
    ],
    say: ({ said }) => said,
  },
});

export default defineApp({
  name: 'memory',
  description: 'What the person asks a bot to remember or to forget.',
  verbs: [remember, forget],
});
