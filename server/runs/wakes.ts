/**
 * A person allows a bot to wake them, or not: the page asks ("Sage can speak first every weekday at
 * 8 am — allow?") for each wake its file declares (`hears:`, `server/botHears.ts`), and only an
 * allowed one runs — as the person's own schedule, under the same rule as one they made (`work:`,
 * `RunServices.plan`), counted in their schedules and the site's, and stopped as any of theirs is:
 * here, or by voice ("cancel my schedules about …"). Its clock starts when it is allowed.
 *
 * - `GET /api/wakes?bot=<slug>&zone=<IANA zone>&language=<tag>`: the bot's wakes, each with the
 *   question and the sentence that says it runs, in the person's zone and language (one the bot
 *   speaks), and their answer so far; none for a person who could not allow them (`work:`).
 * - `POST /api/wakes` `{ bot, wake, allow, zone, language }`: allow it (a schedule from now), or
 *   stop it / not now.
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppWords } from '../apps/appWords';
import { SCHEDULES_MAX, spokenSchedule } from '../apps/tasks/spokenSchedule';
import { isTimeZone, spokenClock } from '../apps/localTime';
import type { Bot } from '../bots';
import { recurrenceOf } from '../botHears';
import type { Wake } from '../botHears';
import type { Database } from '../db/database';
import type { Queryable } from '../db/queryable';
import { flag, readJson, text } from '../json';
import type { PersonEnv, PersonKind } from '../person';
import { shippedWords } from '../words/loadWords';
import { refusal } from '../words/requestWords';
import { botWords, turnLanguage } from '../words/turnWords';
import { say } from '../words/words';
import { clockOf, dayIn, nextOccurrence } from './recurrence';
import { allowWake, fullFor, refuseWake, wakeAnswers } from './schedules';
import type { NewSchedule } from './schedules';
import type { RunServices } from './types';
import type { ShownWake, WakeState } from '../../common/wakes';

export interface WakeRoutesDeps {
  db: Pick<Database, 'asPerson'>;
  bots: ReadonlyMap<string, Bot>;
  /** Who may have the bot take work on (`work:`), and the site's cap on schedules. */
  runs: Pick<RunServices, 'plan' | 'siteSchedules'>;
  clock: () => number;
  /** The tasks app's words: a wake is one of the person's schedules, said and refused as the app says them. */
  tasksWords: AppWords;
}

/** A wake's schedule before its clock is set. */
type WakeSchedule = Omit<NewSchedule, 'nextAtMs'> & { wake: string };

/** Allowing refused, with the tasks app's sentence that says why (as `tasks.schedule` would say it). */
class WakeRefused extends Error {
  override readonly name = 'WakeRefused';
  constructor(
    readonly status: 403 | 404 | 409,
    readonly sentence: string,
  ) {
    super(sentence);
  }
}

export function wakeRoutes({ db, bots, runs, clock, tasksWords: WORDS }: WakeRoutesDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();

  /** The bot, and the reader's zone and language (one the bot speaks, else its own); a zone Intl does not know is refused. */
  function readerOf(c: Context<PersonEnv>, slug: string, zone: string | undefined, language: string | undefined) {
    const bot = bots.get(slug);
    if (bot === undefined) throw refusal(c, 404, 'requests.no-bot', { bot: slug });
    if (zone === undefined || !isTimeZone(zone)) throw refusal(c, 400, 'wakes.no-zone');
    return { bot, zone, language: turnLanguage(bot, language) };
  }

  /** The wake as said to this reader: in their zone, or the file's when it names one, its time as their language says a time. */
  function shown(c: Context<PersonEnv>, reader: ReturnType<typeof readerOf>, wake: Wake, state: WakeState): ShownWake {
    const { bot, zone, language } = reader;
    const recurrence = recurrenceOf(wake, zone, dayIn(clock(), zone));
    const fill = { bot: bot.name, when: spokenSchedule(WORDS, recurrence, language, spokenClock(clockOf(recurrence.at), language)), zone: recurrence.zone };
    const words = botWords(c.get('wordBook') ?? shippedWords(), bot, language);
    const zoned = recurrence.zone !== zone;
    return { wake: wake.key, state, question: say(words, zoned ? 'wakes.ask-in-zone' : 'wakes.ask', fill), said: say(words, zoned ? 'wakes.allowed-in-zone' : 'wakes.allowed', fill) };
  }

  routes.get('/wakes', async (c) => {
    const reader = readerOf(c, c.req.query('bot') ?? '', c.req.query('zone'), c.req.query('language'));
    const hears = reader.bot.hears ?? [];
    // Nobody is asked what they could not allow: a bare cookie, where the bot's `work:` is for people.
    const answers = await db.asPerson(c.get('person'), async (tx) =>
      hears.length === 0 || typeof (await runs.plan({ bot: reader.bot.slug, kind: c.get('personKind'), tx }, hears[0]?.ask ?? '')) !== 'object' ? undefined : wakeAnswers(tx, reader.bot.slug),
    );
    return c.json({ wakes: answers === undefined ? [] : hears.map((wake) => shown(c, reader, wake, answers.get(wake.key) ?? 'ask')) });
  });

  routes.post('/wakes', async (c) => {
    const body = await readJson(c);
    const reader = readerOf(c, text(c, body, 'bot', { maxChars: 64 }), text(c, body, 'zone', { maxChars: 64 }), text(c, body, 'language', { maxChars: 35, optional: true }));
    const key = text(c, body, 'wake', { maxChars: 64 });
    const allow = flag(c, body, 'allow');
    const { bot, zone, language } = reader;
    const wake = bot.hears?.find((each) => each.key === key);
    if (wake === undefined) throw refusal(c, 404, 'wakes.no-wake', { bot: bot.name });
    const nowMs = clock();
    // An interval counts from the day it is allowed.
    const recurrence = recurrenceOf(wake, zone, dayIn(nowMs, zone));
    const schedule: WakeSchedule = { person: c.get('person'), bot: bot.slug, conversationKey: null, asked: wake.ask, said: spokenSchedule(WORDS, recurrence, language), recurrence, language, wake: wake.key };
    try {
      await db.asPerson(c.get('person'), (tx) => (allow ? allowed(tx, c.get('personKind'), schedule, nowMs) : refuseWake(tx, { ...schedule, nextAtMs: null }, nowMs)));
    } catch (error) {
      if (!(error instanceof WakeRefused)) throw error;
      return c.json({ error: error.sentence }, error.status);
    }
    return c.json({ wake: shown(c, reader, wake, allow ? 'allowed' : 'declined') });
  });

  /** The person's schedule for the wake, its clock from now, made only for whom and while `tasks.schedule` would make one. */
  async function allowed(tx: Queryable, kind: PersonKind, schedule: WakeSchedule, nowMs: number): Promise<void> {
    const { language } = schedule;
    const plan = await runs.plan({ bot: schedule.bot, kind, tx }, schedule.asked);
    if (plan === 'people-only') throw new WakeRefused(403, WORDS.say(language, 'people-only'));
    if (plan === undefined) throw new WakeRefused(404, WORDS.say(language, 'cannot-take-work'));
    if ((await wakeAnswers(tx, schedule.bot)).get(schedule.wake) === 'allowed') return;
    const nextAtMs = nextOccurrence(schedule.recurrence, nowMs);
    if (nextAtMs === undefined) throw new WakeRefused(409, WORDS.say(language, 'never-runs', { said: schedule.said }));
    const full = await fullFor(tx, { personMax: SCHEDULES_MAX, siteMax: runs.siteSchedules });
    if (full !== undefined) throw new WakeRefused(409, WORDS.say(language, full, { n: String(SCHEDULES_MAX) }));
    await allowWake(tx, { ...schedule, nextAtMs }, nowMs);
  }

  return routes;
}
