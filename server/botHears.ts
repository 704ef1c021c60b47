/**
 * What wakes a bot (`hears:` in its file): each entry a schedule in the grammar of a person's own
 * (`server/runs/recurrence.ts`) and what it wakes up to do, in the person's words.
 *
 * ```yaml
 * hears:
 *   - schedule: { every: weekday, at: "08:00" }
 *     ask: tell me what's on my to-do list today
 * ```
 *
 * A wake runs for nobody until a person allows it (`server/runs/wakes.ts`); then it is their
 * schedule. A schedule with no `zone` runs in the person's own. Read at start like every field:
 * a malformed one stops the start naming the file and the field, and so does one that would never
 * act (`checkBotHears`: its `until` before its first occurrence, every day to it left out) — a file
 * that says `hears:` and means nothing is worse than one that says nothing.
 */
import { createHash } from 'node:crypto';
import { BotFileError, describe, list, mapping, missing, text1 } from './botFields';
import { EVERY, checkRecurrence, dayIn, dayNamed, nextOccurrence } from './runs/recurrence';
import type { Recurrence } from './runs/recurrence';

/** When a wake runs: a person's recurrence, its zone the file's or, left out, the person's. */
type WakeSchedule = Omit<Recurrence, 'zone' | 'from'> & { zone?: string };

export interface Wake {
  /**
   * Names the entry in a person's allowing: a digest of its schedule and its ask, so an entry whose
   * time or words change is a new one, asked about again, and the old allowing no longer runs.
   */
  key: string;
  schedule: WakeSchedule;
  /** What it wakes up to do, in the person's words. */
  ask: string;
}

const ENTRY_KEYS = ['schedule', 'ask'] as const;
const SCHEDULE_KEYS = ['every', 'on', 'at', 'zone', 'interval', 'until', 'except'] as const;
/** Most wakes one bot may declare. */
const WAKES_MAX = 8;
/** As long as what a person may ask a run to do (`tasks.start`). */
const ASK_CHARS_MAX = 500;
/**
 * The zone a wake with none is checked in: its wall clock is the earliest on Earth (UTC−12), so a
 * wake refused there would act for nobody anywhere.
 */
const LATEST_ZONE = 'Etc/GMT+12';

/** The wake's recurrence in `zone` (the person's, where the file names none), its interval counted from `fromDay`. */
export function recurrenceOf(wake: Pick<Wake, 'schedule'>, zone: string, fromDay: string): Recurrence {
  const recurrence: Recurrence = { ...wake.schedule, zone: wake.schedule.zone ?? zone };
  if ((wake.schedule.interval ?? 1) > 1) recurrence.from = fromDay;
  return recurrence;
}

/** Reads `hears:`; undefined when the file leaves it out. */
export function readHears(file: string, value: unknown): Wake[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > WAKES_MAX) {
    throw new BotFileError(file, 'hears', `is ${describe(value)}; it must be a list of 1 to ${String(WAKES_MAX)} entries, each { schedule: { every, at, … }, ask: "what it wakes up to do" }.`);
  }
  const wakes = value.map((entry, index) => readWake(file, `hears[${String(index)}]`, entry));
  const twice = wakes.find((wake, index) => wakes.findIndex((other) => other.key === wake.key) !== index);
  if (twice !== undefined) throw new BotFileError(file, 'hears', `lists the same schedule and ask twice ("${twice.ask}").`);
  return wakes;
}

function readWake(file: string, where: string, value: unknown): Wake {
  const fields = mapping(file, where, value, ENTRY_KEYS, `${where}.`);
  const ask = text1(file, `${where}.ask`, fields.ask, ASK_CHARS_MAX) ?? missing(file, `${where}.ask`, 'what it wakes up to do, in the person’s words');
  if (fields.schedule === undefined) missing(file, `${where}.schedule`, 'when it wakes, e.g. { every: weekday, at: "08:00" }');
  const schedule = readSchedule(file, `${where}.schedule`, fields.schedule);
  const key = createHash('sha256').update(JSON.stringify([schedule, ask])).digest('hex').slice(0, 16);
  return { key, schedule, ask };
}

function readSchedule(file: string, where: string, value: unknown): WakeSchedule {
  const fields = mapping(file, where, value, SCHEDULE_KEYS, `${where}.`);
  const every = fields.every;
  if (typeof every !== 'string' || !(EVERY as readonly string[]).includes(every)) {
    throw new BotFileError(file, `${where}.every`, `is ${describe(every)}; it must be one of ${EVERY.join(', ')}.`);
  }
  const schedule: WakeSchedule = { every: every as Recurrence['every'] };
  const on = list(file, `${where}.on`, fields.on);
  if (on !== undefined) {
    if (every !== 'week') throw new BotFileError(file, `${where}.on`, `names days, which only every: week takes (every: ${every} says its own days).`);
    schedule.on = on.map((name) => dayNamed(name) ?? impossibleDay(file, `${where}.on`, name));
  }
  for (const key of ['at', 'zone', 'until'] as const) {
    const given = fields[key];
    if (given === undefined) continue;
    if (typeof given !== 'string') throw new BotFileError(file, `${where}.${key}`, `is ${describe(given)}; it must be a string${key === 'at' ? ', e.g. "08:00"' : key === 'until' ? ', a day as YYYY-MM-DD' : ', an IANA zone'}.`);
    schedule[key] = key === 'at' ? given.padStart(5, '0') : given;
  }
  if (fields.interval !== undefined) {
    if (typeof fields.interval !== 'number') throw new BotFileError(file, `${where}.interval`, `is ${describe(fields.interval)}; it must be a whole number (every 2 weeks: interval: 2).`);
    schedule.interval = fields.interval;
  }
  if (fields.except !== undefined) {
    const except = list(file, `${where}.except`, fields.except);
    if (except !== undefined) schedule.except = except;
  }
  try {
    checkRecurrence({ ...schedule, zone: schedule.zone ?? LATEST_ZONE });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new BotFileError(file, where, `is not a schedule: ${error.message}`, { cause: error });
  }
  return schedule;
}

function impossibleDay(file: string, field: string, name: string): never {
  throw new BotFileError(file, field, `names "${name}", which is no day of the week; name days as monday … sunday.`);
}

/**
 * Refuses the start when a bot's wake would never act from `nowMs` on: its `until` is before its
 * first occurrence, or every day up to it is left out (`except`). One with no zone is looked at in
 * the zone whose clock is the earliest, so it is refused only when it would act for nobody anywhere.
 */
export function checkBotHears(bots: ReadonlyMap<string, { slug: string; hears?: readonly Wake[] }>, nowMs: number): void {
  for (const bot of bots.values()) {
    (bot.hears ?? []).forEach((wake, index) => {
      const zone = wake.schedule.zone ?? LATEST_ZONE;
      if (nextOccurrence(recurrenceOf(wake, zone, dayIn(nowMs, zone)), nowMs) === undefined) {
        throw new BotFileError(`${bot.slug}.md`, `hears[${String(index)}].schedule`, `would never act: it has no occurrence left${wake.schedule.until === undefined ? '' : ` by its until (${wake.schedule.until})`}${wake.schedule.except === undefined ? '' : ' that its except leaves in'}; change or remove it.`);
      }
    });
  }
}
