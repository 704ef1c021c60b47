/**
 * Tasks: work that outlives a turn. `tasks.start` hands what the person asked to a run (a row the
 * server's workers take one step at a time, `server/runs/`), and the turn ends with the bot saying
 * it has taken it on; what the run does is said later, between turns, on the person's active page.
 * One run is busy at a time per person, bot and conversation: a second start is refused with a
 * sentence rather than a task invented over work in flight. What it says is in the person's language
 * (`words/<lang>.md`), and a verb's output carries it worded, for the stand-in to say as it is. `tasks.status` answers "how's that
 * going?" from the run's steps, `tasks.cancel` stops it, and schedules start a run at each
 * occurrence of a recurrence ("every weekday at eight"). Runs and schedules are made only for whom
 * the bot's `work:` admits — people, not bare cookies, unless it says anyone (`RunServices.plan`).
 */
import { z } from 'zod';
import { isTimeZone } from '../localTime';
import { VerbInputError } from '../../verbs/errors';
import { defineApp, defineVerb } from '../../verbs/verb';
import type { VerbContext } from '../../verbs/verb';
import { EVERY, EXCEPT_MAX, INTERVAL_MAX, dayIn, dayNamed, nextOccurrence } from '../../runs/recurrence';
import type { Recurrence } from '../../runs/recurrence';
import { cancelRun, insertRun, latestRun, readSteps } from '../../runs/runs';
import { activeSchedules, cancelSchedules, fullFor, insertSchedule } from '../../runs/schedules';
import { ENDED_STATES } from '../../runs/types';
import type { RunServices } from '../../runs/types';
import { appWords } from '../appWords';
import { opening } from '../spoken';
import { SCHEDULES_MAX, spokenSchedule } from './spokenSchedule';

declare module '../../verbs/verb' {
  interface AppServices {
    /** How a bot takes work on that outlives a turn; absent where no worker runs. */
    runs?: RunServices;
  }
}

const WHAT_MAX = 500;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** What the app says aloud, in the person's language (`words/<lang>.md`). */
export const WORDS = appWords(new URL('.', import.meta.url));

function servicesOf(ctx: VerbContext) {
  const runs = ctx.services.runs;
  if (runs === undefined) throw new VerbInputError(WORDS.say(ctx.language, 'no-workers'));
  return runs;
}

/** What a run of `what` would start with, for this caller: refused, with how to be let, when the bot's `work:` is not for them. */
async function plannedFor(ctx: VerbContext, what: string) {
  const runs = servicesOf(ctx);
  const plan = await runs.plan(ctx, what);
  if (plan === 'people-only') throw new VerbInputError(WORDS.say(ctx.language, 'people-only'));
  if (plan === undefined) throw new VerbInputError(WORDS.say(ctx.language, 'cannot-take-work'));
  return { runs, plan };
}

const start = defineVerb({
  name: 'tasks.start',
  description:
    'Take on work that needs several steps or more time than one answer — going through a list and acting on each thing, or anything the person says to do in the background. Give what to do in the person own words. Answer only that it is taken on; what it comes to is said later.',
  example: 'go through my shopping list and remind me about each thing in an hour',
  input: z.object({ what: z.string().min(1).max(WHAT_MAX).describe("What to do, in the person's own words.") }),
  output: z.object({ id: z.string().describe("The run's id."), said: z.string().describe('What to tell the person now.') }),
  risk: 'write',
  always: true,
  deadlineMs: 3000,
  async run({ what }, ctx) {
    const { runs, plan } = await plannedFor(ctx, what);
    const conversationKey = ctx.conversationKey ?? null;
    const busy = await latestRun(ctx.tx, ctx.bot, conversationKey ?? '');
    if (busy !== undefined && !ENDED_STATES.has(busy.state)) throw new VerbInputError(WORDS.say(ctx.language, 'already-busy'));
    const id = await insertRun(ctx.tx, { person: ctx.person, bot: ctx.bot, conversationKey, asked: what, script: plan.script, timeZone: ctx.timeZone, ...(ctx.language === undefined ? {} : { language: ctx.language }), ...plan.budget }, ctx.nowMs);
    if (id === undefined) throw new VerbInputError(WORDS.say(ctx.language, 'already-busy'));
    runs.queued();
    return { id, said: WORDS.say(ctx.language, 'taken-on') };
  },
  standIn: {
    phrasings: [
      { pattern: /^(?:please )?((?:go|work|run) through .+)$/, input: (m) => ({ what: m[1] ?? '' }) },
      { pattern: /^(?:in the background|take this on|take it on)[:,]? (.+)$/, input: (m) => ({ what: m[1] ?? '' }) },
    ],
    say: ({ said }) => said,
  },
});

const status = defineVerb({
  name: 'tasks.status',
  description: "How the work taken on in this conversation is going (or how it ended): its steps so far, from the run's own record.",
  example: "how's that going",
  input: z.object({}),
  output: z.object({
    state: z.enum(['none', 'queued', 'running', 'waiting', 'finished', 'failed', 'cancelled', 'out_of_budget']).describe("The run's state; none when there is no run."),
    stepsDone: z.number().int().describe('Verb calls it has made so far.'),
    spoken: z.string().describe('How it is going, as said aloud.'),
  }),
  risk: 'read',
  always: true,
  deadlineMs: 2000,
  async run(_input, ctx) {
    const run = await latestRun(ctx.tx, ctx.bot, ctx.conversationKey ?? null);
    if (run === undefined) return { state: 'none' as const, stepsDone: 0, spoken: WORDS.say(ctx.language, 'nothing-under-way') };
    const steps = await readSteps(ctx.tx, run.id);
    const done = steps.filter((step) => step.body.kind === 'tool').length;
    const spoken = ENDED_STATES.has(run.state)
      ? run.state === 'finished'
        ? WORDS.say(ctx.language, 'finished', { answer: run.answer ?? '' })
        : (run.answer ?? WORDS.say(ctx.language, 'stopped-early'))
      : done === 0
        ? WORDS.say(ctx.language, 'just-started')
        : WORDS.count(ctx.language, 'progress', done);
    return { state: run.state, stepsDone: done, spoken };
  },
  standIn: {
    phrasings: [
      { pattern: /^how(?:['’]s| is) (?:that|it|the task) going$/, input: () => ({}) },
      { pattern: /^(?:what(?:['’]s| is) the status|are you done(?: yet)?|is it done(?: yet)?)$/, input: () => ({}) },
    ],
    say: ({ spoken }) => spoken,
  },
});

const cancel = defineVerb({
  name: 'tasks.cancel',
  description: 'Stop the work taken on in this conversation. Nothing it has not done yet is done.',
  example: 'stop that',
  input: z.object({}),
  output: z.object({ cancelled: z.boolean().describe('Whether there was work under way, now stopped.'), said: z.string().describe('What to tell the person now.') }),
  risk: 'write',
  always: true,
  deadlineMs: 2000,
  async run(_input, ctx) {
    const run = await latestRun(ctx.tx, ctx.bot, ctx.conversationKey ?? null);
    const cancelled = run !== undefined && !ENDED_STATES.has(run.state) && (await cancelRun(ctx.tx, run.id, ctx.nowMs));
    return { cancelled, said: WORDS.say(ctx.language, cancelled ? 'stopped' : 'nothing-under-way') };
  },
  standIn: {
    phrasings: [{ pattern: /^(?:please )?(?:stop|cancel) (?:that|it|the task|what you(?:['’]re| are) doing)$/, input: () => ({}) }],
    say: ({ said }) => said,
  },
});

const dayField = z.enum(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']);

const schedule = defineVerb({
  name: 'tasks.schedule',
  description:
    'Do something again and again: every day, weekday, weekend day or week (on given days) at a time, or every hour — or every so many of them (interval: every 2 weeks) — in the person time zone, until a day if given, leaving out any days named in except. Each time, the work is taken on as tasks.start would.',
  example: "every weekday at eight, tell me what's on my to-do list",
  input: z.object({
    what: z.string().min(1).max(WHAT_MAX).describe("What to do each time, in the person's own words."),
    every: z.enum(EVERY as [string, ...string[]]).describe('How often: day, weekday, weekend, week (with on) or hour.'),
    on: z.array(dayField).max(7).optional().describe('For every week: the days.'),
    at: z.string().regex(/^\d{1,2}:\d{2}$/).optional().describe('Wall-clock time, HH:MM on the 24-hour clock (default 09:00; for every hour, 00:MM).'),
    interval: z.number().int().min(1).max(INTERVAL_MAX).optional().describe('Every so many days, weeks (for weekday, weekend and week) or hours, counted from today; default 1.'),
    until: z.string().regex(ISO_DAY).optional().describe('The last day it runs, YYYY-MM-DD, in the person time zone.'),
    except: z.array(z.string().regex(ISO_DAY)).max(EXCEPT_MAX).optional().describe('Days it does not run, YYYY-MM-DD, in the person time zone.'),
  }),
  output: z.object({
    id: z.string(),
    said: z.string().describe('How it runs, as said back.'),
    firstAt: z.string().nullable().describe('Its first time, ISO 8601; null if none is left.'),
    spoken: z.string().describe('What to tell the person now.'),
  }),
  risk: 'write',
  always: true,
  deadlineMs: 3000,
  async run(input, ctx) {
    // Each occurrence starts a run as `tasks.start` would: made only by whom such a run may be.
    const { runs } = await plannedFor(ctx, input.what);
    if (!isTimeZone(ctx.timeZone)) throw new VerbInputError(WORDS.say(ctx.language, 'no-time-zone'));
    const recurrence: Recurrence = {
      every: input.every as Recurrence['every'],
      zone: ctx.timeZone,
      ...(input.on === undefined ? {} : { on: input.on.map((day) => dayNamed(day) ?? 1) }),
      ...(input.at === undefined ? {} : { at: input.at.padStart(5, '0') }),
      // An interval counts from the day it is made, in the person's zone.
      ...(input.interval === undefined || input.interval === 1 ? {} : { interval: input.interval, from: dayIn(ctx.nowMs, ctx.timeZone) }),
      ...(input.until === undefined ? {} : { until: input.until }),
      ...(input.except === undefined || input.except.length === 0 ? {} : { except: input.except }),
    };
    let nextAtMs: number | undefined;
    try {
      nextAtMs = nextOccurrence(recurrence, ctx.nowMs);
    } catch (error) {
      throw new VerbInputError(WORDS.say(ctx.language, 'not-a-time'), { cause: error });
    }
    // Over all the person's bots (row level security counts only theirs), then over the whole site.
    const full = await fullFor(ctx.tx, { personMax: SCHEDULES_MAX, siteMax: runs.siteSchedules });
    if (full !== undefined) throw new VerbInputError(WORDS.say(ctx.language, full, { n: String(SCHEDULES_MAX) }));
    const said = spokenSchedule(WORDS, recurrence, ctx.language);
    const made = await insertSchedule(ctx.tx, { person: ctx.person, bot: ctx.bot, conversationKey: ctx.conversationKey ?? null, asked: input.what, said, recurrence, ...(ctx.language === undefined ? {} : { language: ctx.language }), nextAtMs: nextAtMs ?? null }, ctx.nowMs);
    const spoken = WORDS.say(ctx.language, nextAtMs === undefined ? 'never-runs' : 'scheduled', { said });
    return { id: made.id, said, firstAt: nextAtMs === undefined ? null : new Date(nextAtMs).toISOString(), spoken: opening(spoken) };
  },
  standIn: {
    phrasings: [
      {
        // "every weekday at eight, …", "every other monday at 6 pm, …", "every 3 days, …".
        pattern: /^every (?:(other|\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) )?(day|weekday|weekend|hour|week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?(?: (?:at|around) ([a-z0-9: .]+?))?(?: in the (morning|evening|afternoon))?,? (?:please )?(.+)$/,
        input: (m) => {
          const interval = m[1] === undefined ? 1 : m[1] === 'other' ? 2 : NUMBERS.includes(m[1]) ? NUMBERS.indexOf(m[1]) : Number(m[1]);
          const day = dayNamed(m[2] ?? '');
          const at = clockSaid(m[3], m[4]);
          return {
            what: m[5] ?? '',
            every: day === undefined ? (m[2] ?? 'day') : 'week',
            ...(day === undefined ? {} : { on: [dayField.options[day] ?? 'monday'] }),
            ...(at === undefined ? {} : { at }),
            ...(interval === 1 ? {} : { interval }),
          };
        },
      },
    ],
    say: ({ spoken }) => spoken,
  },
});

const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

/** "eight", "8", "8 am", "7:30 pm", "eight in the evening" → HH:MM; undefined when no time is named. */
export function clockSaid(said: string | undefined, part?: string): string | undefined {
  if (said === undefined) return undefined;
  const match = /^(\d{1,2}|[a-z]+)(?::(\d{2}))?(?: ?([ap])\.? ?m\.?)?(?: o['’]clock)?$/.exec(said.trim());
  if (match === null) return undefined;
  const word = NUMBERS.indexOf(match[1] ?? '');
  let hour = word === -1 ? Number(match[1]) : word;
  if (!Number.isInteger(hour) || hour > 23) return undefined;
  const pm = match[3] === 'p' || part === 'evening' || part === 'afternoon';
  if ((match[3] !== undefined || part !== undefined) && hour <= 12) hour = (hour % 12) + (pm ? 12 : 0);
  return `${String(hour).padStart(2, '0')}:${match[2] ?? '00'}`;
}

const schedules = defineVerb({
  name: 'tasks.schedules',
  description: 'The things the person has asked to be done again and again, and when.',
  example: 'what have I scheduled',
  input: z.object({}),
  output: z.object({ schedules: z.array(z.object({ id: z.string(), what: z.string(), said: z.string() })), spoken: z.string().describe('The schedules, as said aloud.') }),
  risk: 'read',
  always: true,
  deadlineMs: 2000,
  async run(_input, ctx) {
    const kept = await activeSchedules(ctx.tx, ctx.bot, SCHEDULES_MAX);
    const spoken = kept.length === 0 ? WORDS.say(ctx.language, 'no-schedules') : kept.map((s) => opening(WORDS.say(ctx.language, 'schedule', { said: s.said, what: s.asked }))).join(' ');
    return { schedules: kept.map((s) => ({ id: s.id, what: s.asked, said: s.said })), spoken };
  },
  standIn: {
    phrasings: [{ pattern: /^(?:what (?:have i|did i) (?:got )?scheduled|(?:what are|list|tell me) my schedules)$/, input: () => ({}) }],
    say: ({ spoken }) => spoken,
  },
});

/** The person's schedules with this bot whose words contain `about`, or every one when it is not given. */
async function chosenSchedules(ctx: Pick<VerbContext, 'tx' | 'bot'>, about: string | undefined) {
  const kept = await activeSchedules(ctx.tx, ctx.bot, SCHEDULES_MAX);
  const words = about?.trim().toLowerCase();
  return words === undefined || words === '' ? kept : kept.filter((s) => s.asked.toLowerCase().includes(words));
}

const unschedule = defineVerb({
  name: 'tasks.unschedule',
  description: 'Stop something the person scheduled: those whose words contain `about`, or every one when `about` is not given.',
  example: 'cancel the schedule about my to-do list',
  input: z.object({ about: z.string().max(WHAT_MAX).optional().describe('Words of the schedule to stop; all of them when absent.') }),
  output: z.object({ cancelled: z.number().int().describe('How many were stopped.'), said: z.string().describe('What to tell the person now.') }),
  risk: 'write',
  always: true,
  deadlineMs: 2000,
  // Stopping more than one schedule (every one, when `about` is not given) is asked about first (the executor's rule).
  changesMany: async ({ about }, ctx) => (await chosenSchedules(ctx, about)).length > 1,
  ask: async ({ about }, ctx) => {
    const n = (await chosenSchedules(ctx, about)).length;
    const words = about?.trim() ?? '';
    return words === '' ? WORDS.count(ctx.language, 'stop-ask', n) : WORDS.count(ctx.language, 'stop-ask-about', n, { about: words });
  },
  async run({ about }, ctx) {
    const chosen = await chosenSchedules(ctx, about);
    const cancelled = await cancelSchedules(ctx.tx, chosen.map((s) => s.id));
    return { cancelled, said: cancelled === 0 ? WORDS.say(ctx.language, 'none-to-stop') : WORDS.count(ctx.language, 'unscheduled', cancelled) };
  },
  standIn: {
    phrasings: [
      { pattern: /^(?:please )?(?:cancel|stop|delete) (?:my |the |all my )?schedules?(?: (?:about|for|to) (.+))?$/, input: (m) => (m[1] === undefined ? {} : { about: m[1] }) },
    ],
    say: ({ said }) => said,
  },
});

export default defineApp({
  name: 'tasks',
  description: 'Work that outlives a turn: taken on, said how it goes, cancelled, and done again on a schedule.',
  verbs: [start, status, cancel, schedule, schedules, unschedule],
});
