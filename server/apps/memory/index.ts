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
import { yourWords } from '../../db/forgotten';
import { forgetMemories, memoriesAbout, rememberAsPerson } from './remembered';

export { yourWords } from '../../db/forgotten';

/** Most memories one question to forget may name. */
export const FORGET_IDS_MAX = 100;

/** Spaces collapsed, no end punctuation. */
function tidy(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;:!?]+$/, '');
}

/** What the app says aloud, in the person's language (`words/<lang>.md`). */
const WORDS = appWords(new URL('.', import.meta.url));

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
  }),
  risk: 'write',
  deadlineMs: 5000,
  // Embedding may be a network call: it is made before the transaction opens, never inside it.
  prepare: (input, ctx) => ctx.services.embedder.embed(tidy(input.text), ctx.signal),
  async run(input, ctx) {
    const text = tidy(input.text);
    const embedding = ctx.prepared instanceof Float32Array ? ctx.prepared : await ctx.services.embedder.embed(text);
    const id = await rememberAsPerson(ctx.tx, { bot: ctx.bot, text, embedder: ctx.services.embedder.name, embedding });
    if (id === undefined) throw new VerbInputError('There was nothing in that to remember; say it in words.');
    return { id, text };
  },
  standIn: {
    phrasings: [{ pattern: /^(?:please )?remember (?:that )?(.+)$/, input: (m) => ({ text: m[1] ?? '' }) }],
    say: ({ text }) => `I'll remember that ${text}.`,
  },
});

/**
 * The memories of the person's for this bot `memory.forget` would forget: those that mention
 * `about` — of them, only the ones `ids` names when it is given (a question's, fixed when it was asked).
 */
async function forgetting(input: { about: string; ids?: string[] | undefined }, ctx: { tx: Queryable; bot: string }): Promise<string[]> {
  const about = await memoriesAbout(ctx.tx, { bot: ctx.bot, about: tidy(input.about) });
  const named = input.ids;
  return named === undefined ? about : about.filter((id) => named.includes(id));
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
    ids: z
      .array(z.uuid())
      .max(FORGET_IDS_MAX)
      .optional()
      .describe('Leave this out: when the person is asked first, the server fixes here the memories the question names.'),
  }),
  output: z.object({
    count: z.number().int().describe('How many memories were forgotten.'),
  }),
  risk: 'destructive',
  deadlineMs: 5000,
  // One memory goes without a question; more than one in a turn — in one call or over several — is
  // the person's to agree to.
  confirm: async (input, ctx) => (await forgottenBefore(ctx)) + (await forgetting(input, ctx)).length > 1,
  // The question names these memories and no others: a yes forgets exactly them.
  pin: async (input, ctx) => ({ ...input, ids: (await forgetting(input, ctx)).slice(0, FORGET_IDS_MAX) }),
  ask: async (input, ctx) => {
    const count = (await forgetting(input, ctx)).length;
    // "my sister" is said back as "your sister" in English; other languages say the words as given.
    const about = ctx.language === undefined || ctx.language.split('-')[0] === 'en' ? yourWords(tidy(input.about)) : tidy(input.about);
    return WORDS.count(ctx.language, 'forget', count, { about });
  },
  async run(input, ctx) {
    const about = tidy(input.about);
    if (about.length < 3) throw new VerbInputError('Say a little more about what to forget.');
    const ids = await forgetting({ ...input, about }, ctx);
    return { count: await forgetMemories(ctx.tx, { ids, about, person: ctx.person, turn: ctx.turn, nowMs: ctx.nowMs }) };
  },
  standIn: {
    phrasings: [
      { pattern: /^(?:please )?forget (?:what i (?:said|told you) about|everything about|about) (.+)$/, input: (m) => ({ about: m[1] ?? '' }) },
      { pattern: /^(?:please )?forget that (.+)$/, input: (m) => ({ about: m[1] ?? '' }) },
    ],
    say: ({ count }) =>
      count === 0 ? 'I had nothing like that to forget.' : count === 1 ? "I've forgotten that." : `I've forgotten ${count} things you told me about that.`,
  },
});

export default defineApp({
  name: 'memory',
  description: 'What the person asks a bot to remember or to forget.',
  verbs: [remember, forget],
});
