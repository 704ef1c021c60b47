/**
 * Reminders: something to be said to the person at a time, by the bot they asked. Each is a notice
 * (the core `notices` table) that the person's open page for that bot says when it comes due; a page
 * opened later says the ones that came due while none was open.
 */
import { z } from 'zod';
import { cancelNotices, countPendingNotices, pendingNotices, scheduleNotice } from '../../db/notices';
import type { StoredNotice } from '../../db/notices';
import type { Queryable } from '../../db/queryable';
import { countKey, oneMakingAtATime } from '../../db/sharedCounts';
import { VerbInputError } from '../../verbs/errors';
import { defineApp, defineVerb } from '../../verbs/verb';
import type { Narrator } from '../../verbs/verb';
import { isoLocal } from '../localTime';
import { joinWords } from '../spoken';
import { WORDS } from './reminderWords';
import { AT_PATTERN, LONGEST_S, SAID_DELAY, SAID_TIME, dueFrom, spokenAt, spokenIn, whenSaid } from './when';

const APP = 'reminders';
/** Most reminders a person may have waiting with one bot. */
export const PENDING_MAX = 100;
/** Most reminders `reminders.list` answers. */
export const LIST_MAX = 20;
/** Most reminders said aloud in a list's answer. */
const SAID_MAX = 5;

/** The reminder as kept and said back: spaces collapsed, no end punctuation. */
function tidy(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.,;:!?]+$/, '');
}

/** What the page says for a reminder when it comes due, in the language it was asked for in: "Reminder: take the tea out." */
const noticeText = (reminder: string, language: string | undefined) => WORDS.say(language, 'said', { reminder });

/** The reminder inside a notice this app wrote, in whichever language it was written. */
const reminderOf = (notice: StoredNotice) => WORDS.filling('said', 'reminder', notice.text) ?? notice.text;

/** "Remind me about the milk" is kept as "about the milk", and said back without a "to": the key's `-about` form. */
const aboutOr = (text: string, key: string) => (/^about /.test(text) ? `${key}-about` : key);

/** When a waiting reminder is, said from now in `language`: "in 10 minutes" within the hour, else "at 7:30 pm". */
function whenFromNow(dueAtMs: number, nowMs: number, timeZone: string, language: string | undefined): string {
  const aheadS = (dueAtMs - nowMs) / 1000;
  return aheadS > 0 && aheadS < 3600 ? spokenIn(aheadS, language) : spokenAt(dueAtMs, nowMs, timeZone, language);
}

/** What the person is told, in their language. */
const saidField = z.string().describe('What to tell the person now.');

const reminderShape = z.object({
  id: z.string().describe('The reminder, for cancelling it.'),
  text: z.string().describe('What the person will be reminded of.'),
  dueAt: z.string().describe("When it is due, as an ISO 8601 date-time in the person's time zone."),
  inWords: z.string().describe('When it is due, as said aloud in the person\'s language: "in 10 minutes", "at 7:30 pm".'),
});

const set = defineVerb({
  name: 'reminders.set',
  description:
    "Sets a reminder that the person's page will say aloud when it comes due. Give exactly one of inSeconds (a delay) and at (a time of day or a date-time).",
  example: 'remind me in ten minutes to take the tea out',
  input: z.object({
    text: z.string().min(1).max(200).describe('What to remind the person of, as a short phrase ("take the tea out").'),
    inSeconds: z.number().int().min(1).max(LONGEST_S).optional().describe('Remind after this many seconds. Leave out when giving at.'),
    at: z
      .string()
      .regex(AT_PATTERN)
      .optional()
      .describe(
        "Remind at this time: \"HH:MM\" on the 24-hour clock in the person's time zone (today, or tomorrow if that time has passed), or an ISO 8601 date-time. Leave out when giving inSeconds.",
      ),
  }),
  output: reminderShape.extend({ said: saidField }),
  risk: 'write',
  deadlineMs: 5000,
  async run(input, ctx) {
    const text = tidy(input.text);
    if (text === '') throw new VerbInputError(WORDS.say(ctx.language, 'needs-words'));
    const { dueAtMs, inWords } = dueFrom(input, ctx.nowMs, ctx.timeZone, ctx.language);
    await oneMakingAtATime(ctx.tx, countKey('reminders', ctx.person));
    if ((await countPendingNotices(ctx.tx, { bot: ctx.bot, app: APP })) >= PENDING_MAX) {
      throw new VerbInputError(WORDS.say(ctx.language, 'too-many', { n: String(PENDING_MAX) }));
    }
    const notice = await scheduleNotice(ctx.tx, { person: ctx.person, bot: ctx.bot, app: APP, text: noticeText(text, ctx.language), dueAtMs });
    const setSaid = WORDS.say(ctx.language, aboutOr(text, 'set'), { when: inWords, text });
    return { id: notice.id, text, dueAt: isoLocal(dueAtMs, ctx.timeZone), inWords, said: setSaid };
  },
  standIn: {
    phrasings: [
      {
        pattern: new RegExp(`^remind me (${SAID_DELAY}|${SAID_TIME}) (?:to )?(.+)$`),
        input: (m) => ({ text: m[2] ?? '', ...whenSaid(m[1] ?? '') }),
      },
      {
        pattern: new RegExp(`^remind me (?:to )?(.+?) (${SAID_DELAY}|${SAID_TIME})$`),
        input: (m) => ({ text: m[1] ?? '', ...whenSaid(m[2] ?? '') }),
      },
    ],
    say: ({ said }) => said,
  },
});

const list = defineVerb({
  name: 'reminders.list',
  description: `The person's reminders with this bot that have not been said yet, soonest first (at most ${LIST_MAX}).`,
  example: 'what reminders do I have',
  input: z.object({}),
  output: z.object({
    reminders: z.array(reminderShape).describe('Soonest first.'),
    total: z.number().int().describe('How many are waiting, which may be more than are given.'),
    said: saidField,
  }),
  risk: 'read',
  deadlineMs: 2000,
  async run(_input, ctx) {
    const waiting = await pendingNotices(ctx.tx, { bot: ctx.bot, app: APP, limit: LIST_MAX });
    ctx.signal.throwIfAborted();
    const total = waiting.length < LIST_MAX ? waiting.length : await countPendingNotices(ctx.tx, { bot: ctx.bot, app: APP });
    const reminders = waiting.map((notice) => ({
      id: notice.id,
      text: reminderOf(notice),
      dueAt: isoLocal(notice.dueAtMs, ctx.timeZone),
      inWords: whenFromNow(notice.dueAtMs, ctx.nowMs, ctx.timeZone, ctx.language),
    }));
    const saidOnes = joinWords(reminders.slice(0, SAID_MAX).map((r) => WORDS.say(ctx.language, aboutOr(r.text, 'item'), { text: r.text, when: r.inWords })), ctx.language);
    return { reminders, total, said: total === 0 ? WORDS.say(ctx.language, 'none-coming') : WORDS.count(ctx.language, 'waiting', total, { reminders: saidOnes }) };
  },
  standIn: {
    phrasings: [
      { pattern: /^(?:what|which) reminders (?:do i have|have i got|are there)(?: set)?$/, input: () => ({}) },
      { pattern: /^(?:what are|list|tell me|read me) my reminders$/, input: () => ({}) },
      { pattern: /^do i have any reminders(?: set)?$/, input: () => ({}) },
    ],
    say: ({ said }) => said,
  },
});

const cancel = defineVerb({
  name: 'reminders.cancel',
  description: "Cancels the person's waiting reminders with this bot whose words contain the given text (any case).",
  example: 'cancel my reminder to take the tea out',
  input: z.object({
    text: z.string().min(2).max(200).describe('Words from the reminder to cancel ("tea").'),
  }),
  output: z.object({
    count: z.number().int().describe('How many reminders were cancelled.'),
    cancelled: z.array(z.string()).describe('What the cancelled reminders were.'),
    said: saidField,
  }),
  risk: 'write',
  deadlineMs: 5000,
  // Cancelling more than one reminder at a time is asked about first (the executor's rule).
  changesMany: async (input, ctx) => (await matchingReminders(ctx.tx, ctx.bot, input.text)).length > 1,
  ask: async (input, ctx) => WORDS.say(ctx.language, 'cancel-many', { n: String((await matchingReminders(ctx.tx, ctx.bot, input.text)).length), text: tidy(input.text) }),
  async run(input, ctx) {
    const wanted = tidy(input.text).toLowerCase();
    if (wanted === '') throw new VerbInputError(WORDS.say(ctx.language, 'which-to-cancel'));
    const matching = await matchingReminders(ctx.tx, ctx.bot, input.text);
    const count = await cancelNotices(ctx.tx, matching.map((notice) => notice.id));
    const cancelled = matching.map(reminderOf);
    return {
      count,
      cancelled,
      said:
        count === 0
          ? WORDS.say(ctx.language, 'none-found', { text: tidy(input.text) })
          : WORDS.count(ctx.language, 'cancelled', count, { reminders: joinWords([...new Set(cancelled)], ctx.language) }),
    };
  },
  standIn: {
    phrasings: [
      {
        pattern: /^(?:please )?(?:cancel|delete|remove) (?:my|the) reminders? (?:to|about|for) (.+)$/,
        input: (m) => ({ text: m[1] ?? '' }),
      },
    ],
    say: ({ said }) => said,
  },
});

/** The waiting reminders with `bot` whose words contain `text` (any case). */
async function matchingReminders(tx: Queryable, bot: string, text: string): Promise<StoredNotice[]> {
  const wanted = tidy(text).toLowerCase();
  if (wanted === '') return [];
  const waiting = await pendingNotices(tx, { bot, app: APP });
  return waiting.filter((notice) => reminderOf(notice).toLowerCase().includes(wanted));
}

/** After a reminder is set or cancelled, in the person's language: "You have 3 reminders coming up." */
const coming: Narrator = {
  follows: 'reminders.*',
  async narrate(ran, ctx) {
    if (ran.verb === 'reminders.list') return undefined;
    const count = await countPendingNotices(ctx.tx, { bot: ctx.bot, app: APP });
    return count === 0 ? WORDS.say(ctx.language, 'none-coming') : WORDS.count(ctx.language, 'coming', count);
  },
};

export default defineApp({
  name: APP,
  description: "Reminders the person's page says aloud when they come due.",
  verbs: [set, list, cancel],
  narrators: [coming],
});
