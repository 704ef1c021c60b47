import { describe, expect, it } from 'vitest';
import clock from '../../../server/apps/clock/index';
import { fromLocal, isTimeZone, offsetMs, spokenClock, spokenSpan } from '../../../server/apps/localTime';
import { spokenAt } from '../../../server/apps/reminders/when';
import type { Queryable } from '../../../server/db/queryable';
import { createRegistry } from '../../../server/verbs/registry';
import { TUESDAY_MS, standInCall, standInSays, verbContext, verbOf } from '../../helpers/verbContext';

/** clock.now reads no table: a connection that refuses every query proves it. */
const noDatabase: Queryable = {
  query: () => Promise.reject(new Error('clock.now must not query the database')),
};

const now = (timeZone: string, nowMs = TUESDAY_MS, language?: string) =>
  verbOf(clock, 'clock.now').run({}, verbContext(noDatabase, { person: 'ana', timeZone, nowMs, ...(language === undefined ? {} : { language }) }));

describe('clock', () => {
  it('passes the registry’s checks and is in every conversation’s scope', () => {
    expect(() => createRegistry([clock])).not.toThrow();
    expect(verbOf(clock, 'clock.now')).toMatchObject({ risk: 'read', always: true, deadlineMs: 2000 });
  });

  it.each([
    ['UTC', '2026-12-01T15:05:00+00:00', "It's 3:05 pm on Tuesday, 1 December."],
    ['America/New_York', '2026-12-01T10:05:00-05:00', "It's 10:05 am on Tuesday, 1 December."],
    ['Asia/Kolkata', '2026-12-01T20:35:00+05:30', "It's 8:35 pm on Tuesday, 1 December."],
    ['Asia/Tokyo', '2026-12-02T00:05:00+09:00', "It's 12:05 am on Wednesday, 2 December."],
  ])('says the time in %s as it is there', async (timeZone, iso, spoken) => {
    expect(await now(timeZone)).toEqual({ iso, timeZone, spoken });
  });

  it('says noon and midnight by name, and a whole hour without minutes', async () => {
    expect(await now('UTC', Date.UTC(2026, 11, 1, 12, 0))).toMatchObject({ spoken: "It's noon on Tuesday, 1 December." });
    expect(await now('UTC', Date.UTC(2026, 11, 1, 0, 0))).toMatchObject({ spoken: "It's midnight on Tuesday, 1 December." });
    expect(await now('UTC', Date.UTC(2026, 11, 1, 19, 0))).toMatchObject({ spoken: "It's 7 pm on Tuesday, 1 December." });
  });

  it.each([
    ['es', 'Es martes, 1 de diciembre, son las 15:05.'],
    ['fr', 'Nous sommes le mardi 1 décembre, il est 15:05.'],
    ['de', 'Es ist 15:05 Uhr am Dienstag, 1. Dezember.'],
    ['en-GB', "It's 3:05 pm on Tuesday, 1 December."],
    // A language the app has no words in is not answered in English: nothing is said.
    ['pt', ''],
  ])('says the time in the person’s language (%s)', async (language, spoken) => {
    expect(await now('UTC', TUESDAY_MS, language)).toMatchObject({ spoken });
  });

  it.each(['What time is it?', "what's the time", 'What’s the time now', 'what day is it today'])('the stand-in hears %j as clock.now', (line) => {
    expect(standInCall([clock], line)).toEqual({ verb: 'clock.now', input: {} });
  });

  it('the stand-in says the spoken time as it is', async () => {
    expect(standInSays(clock, 'clock.now', await now('UTC'), {})).toBe("It's 3:05 pm on Tuesday, 1 December.");
  });
});

describe('local time', () => {
  it('reads a zone’s offset, summer and winter', () => {
    expect(offsetMs(Date.UTC(2026, 0, 15), 'Europe/Lisbon')).toBe(0);
    expect(offsetMs(Date.UTC(2026, 6, 15), 'Europe/Lisbon')).toBe(3_600_000);
    expect(offsetMs(TUESDAY_MS, 'Asia/Kolkata')).toBe(5.5 * 3_600_000);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
  });

  it('takes the first of a wall-clock time that happens twice as the clocks go back', () => {
    // 1 November 2026, New York: 1:30 happens at 05:30 UTC (EDT) and again at 06:30 UTC (EST).
    expect(fromLocal({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, 'America/New_York')).toBe(Date.UTC(2026, 10, 1, 5, 30));
  });

  it.each([
    [45, '45 seconds'],
    [60, '1 minute'],
    [600, '10 minutes'],
    [3599, '1 hour'],
    [3600, '1 hour'],
    [5400, '1 hour and 30 minutes'],
    [7200, '2 hours'],
  ])('says a span of %i s as %j', (seconds, said) => {
    expect(spokenSpan(seconds)).toBe(said);
  });

  it('says a span in the person’s language', () => {
    expect(spokenSpan(5400, 'es')).toBe('1 hora y 30 minutos');
    // French keeps a number and its unit together with a no-break space.
    expect(spokenSpan(45, 'fr')).toBe('45\u00a0secondes');
    expect(spokenSpan(7200, 'de')).toBe('2 Stunden');
  });

  it('says when something is from now: now, today, tomorrow or a date', () => {
    expect(spokenAt(TUESDAY_MS, TUESDAY_MS, 'UTC', undefined)).toBe('now');
    expect(spokenAt(Date.UTC(2026, 11, 1, 19, 30), TUESDAY_MS, 'UTC', undefined)).toBe('at 7:30 pm');
    expect(spokenAt(Date.UTC(2026, 11, 2, 7, 30), TUESDAY_MS, 'UTC', undefined)).toBe('at 7:30 am tomorrow');
    expect(spokenAt(Date.UTC(2026, 11, 25, 9, 0), TUESDAY_MS, 'UTC', undefined)).toBe('at 9 am on Friday, 25 December');
    expect(spokenAt(Date.UTC(2026, 11, 25, 9, 0), TUESDAY_MS, 'UTC', 'es')).toBe('el viernes, 25 de diciembre a las 9:00');
    expect(spokenClock({ hour: 12, minute: 15 })).toBe('12:15 pm');
    expect(spokenClock({ hour: 12, minute: 15 }, 'de')).toBe('12:15');
  });
});
