/**
 * Skills: opening one. `skills.open` is in every conversation's scope whose bot has skills; it
 * answers a skill's instructions, and only the bot's own skills (`server/skills.ts`). Once opened,
 * the verbs the skill brings are offered for the rest of the conversation — the scope reads which
 * skills were opened off this verb's recorded calls, so another server instance knows too.
 */
import { z } from 'zod';
import { VerbInputError } from '../../verbs/errors';
import { defineApp, defineVerb } from '../../verbs/verb';
import { appWords } from '../appWords';

declare module '../../verbs/verb' {
  interface AppServices {
    /** The skills a bot may open, by the bot's slug (`server/skills.ts`), for `skills.open`; unset: none. */
    skills?: (bot: string) => readonly { name: string; body: string }[];
  }
}

/** What the app says aloud, in the person's language (`words/<lang>.md`). */
const WORDS = appWords(new URL('.', import.meta.url));

const open = defineVerb({
  name: 'skills.open',
  description: 'Opens one of your skills by name and answers its instructions; open a skill before doing what its line in your prompt describes.',
  example: 'open the skill plan-the-day',
  input: z.object({ name: z.string().min(1).max(64).describe('The skill\'s name, as your prompt lists it (e.g. "plan-the-day").') }),
  output: z.object({
    name: z.string().describe('The skill opened.'),
    instructions: z.string().describe('What to do: follow these for the rest of the conversation when the skill applies.'),
  }),
  risk: 'read',
  always: true,
  deadlineMs: 1000,
  run({ name }, ctx) {
    const skill = ctx.services.skills?.(ctx.bot).find((s) => s.name === name);
    if (skill === undefined) throw new VerbInputError(WORDS.say(ctx.language, 'no-skill', { name }));
    return Promise.resolve({ name: skill.name, instructions: skill.body });
  },
  standIn: {
    phrasings: [{ pattern: /^open (?:the |your )?skill ([a-z0-9-]+)$/, input: (match) => ({ name: match[1] ?? '' }) }],
    // The stand-in has no model to follow them, so it reads them out.
    say: ({ instructions }) => instructions,
  },
});

export default defineApp({
  name: 'skills',
  description: 'Opens what a bot knows how to do: its skills.',
  verbs: [open],
});
