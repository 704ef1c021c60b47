/**
 * Tasks: work that outlives a turn. `tasks.start` hands what the person asked to a run (a row the
 * server's workers take one step at a time, `server/runs/`), and the turn ends with the bot saying
 * it has taken it on; what the run does is said later, between turns, on the person's active page.
 * One run is busy at a time per person, bot and conversation: a second start is refused with a
 * sentence rather than a task invented over work in flight. `tasks.status` answers "how's that
 * going?" from the run's steps, `tasks.cancel` stops it, and schedules start a run at each
 * occurrence of a recurrence ("every weekday at eight").
 */
import { z } from 'zod';
import { isTimeZone } from '../localTime';
import { VerbInputError } from '../../verbs/errors';
import { defineApp, defineVerb } from '../../verbs/verb';
import type { VerbContext } from '../../verbs/verb';
import { EVERY, dayNamed, nextOccurrence, spokenRecurrence } from '../../runs/recurrence';
import type { Recurrence } from '../../runs/recurrence';
import { cancelRun, insertRun, latestRun, readSteps } from '../../runs/runs';
import { activeSchedules, cancelSchedules, countOwnSchedules, countSiteSchedules, insertSchedule } from '../../runs/schedules';
import { ENDED_STATES } from '../../runs/types';
import { counted } from '../spoken';

const WHAT_MAX = 500;
/** Most active schedules a person may keep, over all their bots. */
export const SCHEDULES_MAX = 20;
/** Said when the person already keeps `SCHEDULES_MAX`. */
export const PERSON_SCHEDULES_FULL = `You already keep ${String(SCHEDULES_MAX)} schedules, the most one person may; cancel one first.`;
/** Said when the site keeps as many as `CONFAB_SITE_SCHEDULES` allows. */
export const SITE_SCHEDULES_FULL = 'This site is keeping as many schedules as it can right now, so I cannot add yours; try again another day.';

export const TAKEN_ON = "I'm on it — I'll tell you when it's done.";
export const ALREADY_BUSY = "I'm still working on what you asked before. Ask me how it's going, or say “stop that” first.";
const NOTHING_UNDER_WAY = "I'm not working on anything for you right now.";

function servicesOf(ctx: VerbContext) {
  const runs = ctx.services.runs;
  if (runs === undefined) throw new VerbInputError('I cannot take work on here: this server runs no workers.');
  return runs;
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
    const runs = servicesOf(ctx);
    const plan = runs.plan(ctx.bot, what);
    if (plan === undefined) throw new VerbInputError('This bot cannot take work on.');
    const conversationKey = ctx.conversationKey ?? null;
    const busy = await latestRun(ctx.tx, ctx.bot, conversationKey ?? '');
    if (busy !== undefined && !ENDED_STATES.has(busy.state)) throw new VerbInputError(ALREADY_BUSY);
    const id = await insertRun(ctx.tx, { person: ctx.person, bot: ctx.bot, conversationKey, asked: what, script: plan.script, timeZone: ctx.timeZone, ...(ctx.language === undefined ? {} : { language: ctx.language }), ...plan.budget }, ctx.nowMs);
    if (id === undefined) throw new VerbInputError(ALREADY_BUSY);
    runs.queued();
    return { id, said: TAKEN_ON };
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
    if (run === undefined) return { state: 'none' as const, stepsDone: 0, spoken: NOTHING_UNDER_WAY };
    const steps = await readSteps(ctx.tx, run.id);
    const done = steps.filter((step) => step.body.kind === 'tool').length;
    const spoken = ENDED_STATES.has(run.state)
      ? run.state === 'finished'
        ? `That's done. ${run.answer ?? ''}`.trim()
        : (run.answer ?? 'It stopped before it finished.')
      : done === 0
        ? "I've only just started on it."
        : `I'm still on it: ${counted(done, 'step')} done so far.`;
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
  output: z.object({ cancelled: z.boolean().describe('Whether there was work under way, now stopped.') }),
  risk: 'write',
  always: true,
  deadlineMs: 2000,
  async run(_input, ctx) {
    const run = await latestRun(ctx.tx, ctx.bot, ctx.conversationKey ?? null);
    if (run === undefined || ENDED_STATES.has(run.state)) return { cancelled: false };
    return { cancelled: await cancelRun(ctx.tx, run.id, ctx.nowMs) };
  },
  standIn: {
    phrasings: [{ pattern: /^(?:please )?(?:stop|cancel) (?:that|it|the task|what you(?:['’]re| are) doing)$/, input: () => ({}) }],
    say: ({ cancelled }) => (cancelled ? "I've stopped it; nothing more of it will be done." : NOTHING_UNDER_WAY),
  },
});

const dayField = z.enum(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']);

const schedule = defineVerb({
  name: 'tasks.schedule',
  description:
    'Do something again and again: every day, weekday, weekend day or week (on given days) at a time, or every hour, in the person time zone, until a date if given. Each time, the work is taken on as tasks.start would.',
  example: "every weekday at eight, tell me what's on my to-do list",
  input: z.object({
    what: z.string().min(1).max(WHAT_MAX).describe("What to do each time, in the person's own words."),
    every: z.enum(EVERY as [string, ...string[]]).describe('How often: day, weekday, weekend, week (with on) or hour.'),
    on: z.array(dayField).max(7).optional().describe('For every week: the days.'),
    at: z.string().regex(/^\d{1,2}:\d{2}$/).optional().describe('Wall-clock time, HH:MM on the 24-hour clock (default 09:00; for every hour, 00:MM).'),
    until: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe('The last day it runs, YYYY-MM-DD.'),
  }),
  output: z.object({ id: z.string(), said: z.string().describe('How it runs, as said back.'), firstAt: z.string().nullable().describe('Its first time, ISO 8601; null if none is left.') }),
  risk: 'write',
  always: true,
  deadlineMs: 3000,
  async run(input, ctx) {
    const runs = servicesOf(ctx);
    if (!isTimeZone(ctx.timeZone)) throw new VerbInputError('I do not know your time zone, so I cannot keep a schedule.');
    const recurrence: Recurrence = {
      every: input.every as Recurrence['every'],
      zone: ctx.timeZone,
      ...(input.on === undefined ? {} : { on: input.on.map((day) => dayNamed(day) ?? 1) }),
      ...(input.at === undefined ? {} : { at: input.at.padStart(5, '0') }),
      ...(input.until === undefined ? {} : { untilMs: Date.parse(`${input.until}T23:59:59Z`) }),
    };
    let nextAtMs: number | undefined;
    try {
      nextAtMs = nextOccurrence(recurrence, ctx.nowMs);
    } catch (error) {
      throw new VerbInputError(error instanceof Error ? error.message : 'That is not a time I can keep.');
    }
    // Over all the person's bots (row level security counts only theirs), then over the whole site.
    if ((await countOwnSchedules(ctx.tx)) >= SCHEDULES_MAX) throw new VerbInputError(PERSON_SCHEDULES_FULL);
    if ((await countSiteSchedules(ctx.tx)) >= runs.siteSchedules) throw new VerbInputError(SITE_SCHEDULES_FULL);
    const said = spokenRecurrence(recurrence);
    const made = await insertSchedule(ctx.tx, { person: ctx.person, bot: ctx.bot, conversationKey: ctx.conversationKey ?? null, asked: input.what, said, recurrence, ...(ctx.language === undefined ? {} : { language: ctx.language }), nextAtMs: nextAtMs ?? null }, ctx.nowMs);
    return { id: made.id, said, firstAt: nextAtMs === undefined ? null : new Date(nextAtMs).toISOString() };
  },
  standIn: {
    phrasings: [
      {
        pattern: /^every (day|weekday|weekend|hour|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?(?: (?:at|around) ([a-z0-9: .]+?))?(?: in the (morning|evening|afternoon))?,? (?:please )?(.+)$/,
        input: (m) => {
          const day = dayNamed(m[1] ?? '');
          const at = clockSaid(m[2], m[3]);
          return {
            what: m[4] ?? '',
            every: day === undefined ? (m[1] ?? 'day') : 'week',
            ...(day === undefined ? {} : { on: [dayField.options[day] ?? 'monday'] }),
            ...(at === undefined ? {} : { at }),
          };
        },
      },
    ],
    say: ({ said, firstAt }) => (firstAt === null ? `That would never run: ${said} has no time left.` : `All right: ${said}, I'll do that.`),
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
  output: z.object({ schedules: z.array(z.object({ id: z.string(), what: z.string(), said: z.string() })) }),
  risk: 'read',
  always: true,
  deadlineMs: 2000,
  async run(_input, ctx) {
    const kept = await activeSchedules(ctx.tx, ctx.bot, SCHEDULES_MAX);
    return { schedules: kept.map((s) => ({ id: s.id, what: s.asked, said: s.said })) };
  },
  standIn: {
    phrasings: [{ pattern: /^(?:what (?:have i|did i) (?:got )?scheduled|(?:what are|list|tell me) my schedules)$/, input: () => ({}) }],
    say: ({ schedules: kept }) =>
      kept.length === 0 ? 'You have nothing scheduled with me.' : kept.map((s) => `${s.said.replace(/^./, (c) => c.toUpperCase())}: ${s.what}.`).join(' '),
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
  output: z.object({ cancelled: z.number().int().describe('How many were stopped.') }),
  risk: 'write',
  always: true,
  deadlineMs: 2000,
  // Stopping more than one schedule (every one, when `about` is not given) is asked about first (the executor's rule).
  changesMany: async ({ about }, ctx) => (await chosenSchedules(ctx, about)).length > 1,
  ask: async ({ about }, ctx) => `Shall I stop ${counted((await chosenSchedules(ctx, about)).length, 'schedule')}${about === undefined || about.trim() === '' ? '' : ` about ${about.trim()}`}?`,
  async run({ about }, ctx) {
    const chosen = await chosenSchedules(ctx, about);
    return { cancelled: await cancelSchedules(ctx.tx, chosen.map((s) => s.id)) };
  },
  standIn: {
    phrasings: [
      { pattern: /^(?:please )?(?:cancel|stop|delete) (?:my |the |all my )?schedules?(?: (?:about|for|to) (.+))?$/, input: (m) => (m[1] === undefined ? {} : { about: m[1] }) },
    ],
    say: ({ cancelled }) => (cancelled === 0 ? 'There was no schedule like that to stop.' : `I've stopped ${counted(cancelled, 'schedule')}.`),
  },
});

export default defineApp({
  name: 'tasks',
  description: 'Work that outlives a turn: taken on, said how it goes, cancelled, and done again on a schedule.',
  verbs: [start, status, cancel, schedule, schedules, unschedule],
});
