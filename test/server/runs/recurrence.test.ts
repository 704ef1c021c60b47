import { describe, expect, it } from 'vitest';
import { fromLocal } from '../../../server/apps/localTime';
import { WORDS } from '../../../server/apps/tasks/index';
import { spokenSchedule } from '../../../server/apps/tasks/spokenSchedule';
import { checkRecurrence, firing, nextOccurrence } from '../../../server/runs/recurrence';
import type { Recurrence } from '../../../server/runs/recurrence';

const LISBON = 'Europe/Lisbon';
const at = (day: number, hour: number, minute = 0, zone = LISBON) => fromLocal({ year: 2026, month: 12, day, hour, minute }, zone);
// 2026-12-04 is a Friday.
const WEEKDAYS_AT_8: Recurrence = { every: 'weekday', at: '08:00', zone: LISBON };

describe('a schedule’s next occurrence', () => {
  it('is today’s when today’s is still to come, tomorrow’s once it has passed', () => {
    expect(nextOccurrence({ every: 'day', at: '08:00', zone: LISBON }, at(2, 7))).toBe(at(2, 8));
    expect(nextOccurrence({ every: 'day', at: '08:00', zone: LISBON }, at(2, 8))).toBe(at(3, 8));
  });

  it('skips the weekend for weekdays, from Friday to Monday', () => {
    expect(nextOccurrence(WEEKDAYS_AT_8, at(4, 9))).toBe(at(7, 8));
  });

  it('keeps to the named days of a week', () => {
    // Tuesday and Thursday, from Friday the 4th: Tuesday the 8th.
    expect(nextOccurrence({ every: 'week', on: [2, 4], at: '18:30', zone: LISBON }, at(4, 9))).toBe(at(8, 18, 30));
  });

  it('reads the wall clock across a change of offset', () => {
    const nyMarch = (day: number, hour: number) => fromLocal({ year: 2026, month: 3, day, hour, minute: 0 }, 'America/New_York');
    // Clocks go forward on 8 March 2026: 08:00 is still 08:00 on the wall.
    expect(nextOccurrence({ every: 'day', at: '08:00', zone: 'America/New_York' }, nyMarch(7, 9))).toBe(nyMarch(8, 8));
    expect(nyMarch(8, 8) - nyMarch(7, 8)).toBe(23 * 3_600_000);
  });

  it('has none after its until', () => {
    expect(nextOccurrence({ every: 'day', at: '08:00', zone: LISBON, until: '2026-12-03' }, at(3, 9))).toBeUndefined();
  });

  it('comes at the minute past each hour for hourly work', () => {
    expect(nextOccurrence({ every: 'hour', at: '00:15', zone: LISBON }, at(2, 7, 20))).toBe(at(2, 8, 15));
  });

  it('refuses a time that is not one', () => {
    expect(() => nextOccurrence({ every: 'day', at: '25:00', zone: LISBON }, at(2, 7))).toThrow(/HH:MM/);
  });

  it('is said back as it runs, in the person’s language', () => {
    expect(spokenSchedule(WORDS, WEEKDAYS_AT_8, 'en')).toBe('every weekday at 08:00');
    expect(spokenSchedule(WORDS, { every: 'week', on: [1, 5], at: '09:30', zone: LISBON }, 'en')).toBe('every week on Monday and Friday at 09:30');
    expect(spokenSchedule(WORDS, { every: 'week', on: [1, 5], at: '09:30', zone: LISBON }, 'es')).toBe('cada semana el lunes y viernes a las 09:30');
    expect(spokenSchedule(WORDS, { every: 'hour', at: '00:15', zone: LISBON }, 'de')).toBe('jede Stunde um 15 Minuten nach');
  });
});

describe('a look at a schedule', () => {
  it('fires once for a week of downtime, and its clock moves past now', () => {
    const made = at(1, 12);
    const clock = nextOccurrence(WEEKDAYS_AT_8, made) ?? null;
    expect(clock).toBe(at(2, 8));
    // Down from Wednesday the 2nd, 07:00, to Wednesday the 9th, 10:00: five weekday mornings missed.
    const back = firing(WEEKDAYS_AT_8, clock, at(9, 10));
    expect(back).toEqual({ fire: true, nextAtMs: at(10, 8) });
    expect(firing(WEEKDAYS_AT_8, back.nextAtMs, at(9, 10, 1))).toEqual({ fire: false, nextAtMs: at(10, 8) });
  });

  it('does not replay the past for a schedule made today', () => {
    const made = at(2, 12);
    const clock = nextOccurrence(WEEKDAYS_AT_8, made) ?? null;
    expect(firing(WEEKDAYS_AT_8, clock, made)).toEqual({ fire: false, nextAtMs: at(3, 8) });
  });

  it('ends once its last occurrence has fired', () => {
    const until = { ...WEEKDAYS_AT_8, until: '2026-12-03' };
    expect(firing(until, at(3, 8), at(3, 8, 1))).toEqual({ fire: true, nextAtMs: null });
    expect(firing(until, null, at(4, 8))).toEqual({ fire: false, nextAtMs: null });
  });
});

/** A wall-clock reading in `zone`, as an instant. */
const wall = (zone: string, month: number, day: number, hour: number, minute = 0, year = 2026) => fromLocal({ year, month, day, hour, minute }, zone);

describe('until is a day in the schedule’s zone', () => {
  // Each: the zone, the time, the last day; its last occurrence is on that day on the zone's own wall clock.
  it.each([
    { zone: 'Australia/Sydney', at: '08:00', until: '2026-12-04', last: wall('Australia/Sydney', 12, 4, 8) },
    { zone: 'America/Los_Angeles', at: '18:00', until: '2026-12-04', last: wall('America/Los_Angeles', 12, 4, 18) },
    { zone: 'Asia/Kolkata', at: '23:45', until: '2026-12-04', last: wall('Asia/Kolkata', 12, 4, 23, 45) },
    // The day Lisbon's clocks go back, and the day New York's go forward (02:30 never happens: 03:30).
    { zone: LISBON, at: '23:30', until: '2026-10-25', last: wall(LISBON, 10, 25, 23, 30) },
    { zone: 'America/New_York', at: '02:30', until: '2026-03-08', last: wall('America/New_York', 3, 8, 3, 30) },
  ])('runs on $until itself in $zone, and not after', ({ zone, at: time, until, last }) => {
    const recurrence: Recurrence = { every: 'day', at: time, zone, until };
    expect(nextOccurrence(recurrence, last - 12 * 3_600_000)).toBe(last);
    expect(nextOccurrence(recurrence, last)).toBeUndefined();
  });
});

describe('every so many (interval), counted from its first day', () => {
  it.each([
    // 2026-11-30 is a Monday.
    { what: 'every 2 weeks on Monday', recurrence: { every: 'week', on: [1], interval: 2, from: '2026-11-30' }, after: at(4, 9), next: at(14, 8), then: at(28, 8) },
    { what: 'weekdays every 2 weeks', recurrence: { every: 'weekday', interval: 2, from: '2026-11-30' }, after: at(4, 9), next: at(14, 8), then: at(15, 8) },
    { what: 'every 3 days', recurrence: { every: 'day', interval: 3, from: '2026-12-01' }, after: at(2, 9), next: at(4, 8), then: at(7, 8) },
    { what: 'every 2 hours at a quarter past', recurrence: { every: 'hour', at: '00:15', interval: 2, from: '2026-12-02' }, after: at(2, 7, 20), next: at(2, 8, 15), then: at(2, 10, 15) },
  ] as const)('$what', ({ recurrence, after, next, then }) => {
    const full: Recurrence = { at: '08:00', zone: LISBON, ...recurrence };
    expect(nextOccurrence(full, after)).toBe(next);
    expect(nextOccurrence(full, next)).toBe(then);
  });

  it('keeps the wall clock across a change of offset, two weeks on', () => {
    // Sunday 1 March 2026; New York's clocks go forward on the 8th.
    const ny = 'America/New_York';
    const fortnightly: Recurrence = { every: 'week', on: [0], at: '08:00', zone: ny, interval: 2, from: '2026-03-01' };
    expect(nextOccurrence(fortnightly, wall(ny, 3, 1, 8))).toBe(wall(ny, 3, 15, 8));
  });
});

describe('except leaves days out', () => {
  it('skips a day it names, in its own zone', () => {
    expect(nextOccurrence({ ...WEEKDAYS_AT_8, except: ['2026-12-07'] }, at(4, 9))).toBe(at(8, 8));
    const sydney: Recurrence = { every: 'day', at: '08:00', zone: 'Australia/Sydney', except: ['2026-12-25'] };
    expect(nextOccurrence(sydney, wall('Australia/Sydney', 12, 24, 9))).toBe(wall('Australia/Sydney', 12, 26, 8));
  });

  it('has none when every day up to its until is left out', () => {
    expect(nextOccurrence({ every: 'day', at: '08:00', zone: LISBON, until: '2026-12-05', except: ['2026-12-03', '2026-12-04', '2026-12-05'] }, at(2, 9))).toBeUndefined();
  });

  it('refuses a day that is no day, and an interval out of range', () => {
    expect(() => {
      checkRecurrence({ every: 'day', zone: LISBON, until: '2026-02-30' });
    }).toThrow(/is not a day/);
    expect(() => {
      checkRecurrence({ every: 'day', zone: LISBON, interval: 0 });
    }).toThrow(/whole number from 1 to 52/);
  });

  it('is said back with its interval, its last day and the days it leaves out', () => {
    expect(spokenSchedule(WORDS, { every: 'week', on: [1], interval: 2, at: '09:30', zone: LISBON, until: '2026-06-30' }, 'en')).toBe('every 2 weeks on Monday at 09:30, until June 30, 2026');
    expect(spokenSchedule(WORDS, { every: 'day', at: '08:00', zone: LISBON, except: ['2026-12-25'] }, 'en')).toBe('every day at 08:00, except December 25, 2026');
    expect(spokenSchedule(WORDS, { every: 'week', on: [1], interval: 2, at: '09:30', zone: LISBON, until: '2026-06-30' }, 'es')).toBe('cada 2 semanas el lunes a las 09:30, hasta el 30 de junio de 2026');
  });
});
