/**
 * The clock: what time it is where the person is. In every conversation's scope (`always`), so a
 * bot never guesses the time or the day.
 */
import { z } from 'zod';
import { defineApp, defineVerb } from '../../verbs/verb';
import { appWords } from '../appWords';
import { isoLocal, localTime, spokenClock, spokenDate } from '../localTime';

/** What the app says aloud, in the person's language (`words/<lang>.md`). */
const WORDS = appWords(new URL('.', import.meta.url));

const now = defineVerb({
  name: 'clock.now',
  description: "The current date and time in the person's time zone.",
  example: 'what time is it',
  input: z.object({}),
  output: z.object({
    iso: z.string().describe("Now, as an ISO 8601 date-time with the person's UTC offset."),
    timeZone: z.string().describe("The person's IANA time zone."),
    spoken: z.string().describe('Now, as said aloud in the person\'s language: "It\'s 3:05 pm on Tuesday, 1 December."'),
  }),
  risk: 'read',
  always: true,
  deadlineMs: 2000,
  run(_input, ctx) {
    const local = localTime(ctx.nowMs, ctx.timeZone);
    return Promise.resolve({
      iso: isoLocal(ctx.nowMs, ctx.timeZone),
      timeZone: ctx.timeZone,
      spoken: WORDS.say(ctx.language, 'now', { time: spokenClock(local, ctx.language), date: spokenDate(local, ctx.language) }),
    });
  },
  standIn: {
    phrasings: [
      { pattern: /^what(?:['’]s| is) the time(?: now)?$/, input: () => ({}) },
      { pattern: /^what time is it(?: now)?$/, input: () => ({}) },
      { pattern: /^(?:what(?:['’]s| is) the date|what day is it)(?: today)?$/, input: () => ({}) },
    ],
    say: ({ spoken }) => spoken,
  },
});

export default defineApp({
  name: 'clock',
  description: "The date and time where the person is.",
  verbs: [now],
});
