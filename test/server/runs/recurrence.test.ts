import { describe, expect, it } from 'vitest';
import { fromLocal } from '../../../server/apps/localTime';
import { spokenSchedule } from '../../../server/apps/tasks/index';
import { firing, nextOccurrence } from '../../../server/runs/recurrence';
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
    expect(nextOccurrence({ every: 'day', at: '08:00', zone: LISBON, untilMs: at(3, 12) }, at(3, 9))).toBeUndefined();
  });

  it('comes at the minute past each hour for hourly work', () => {
    expect(nextOccurrence({ every: 'hour', at: '00:15', zone: LISBON }, at(2, 7, 20))).toBe(at(2, 8, 15));
  });

  it('refuses a time that is not one', () => {
    expect(() => nextOccurrence({ every: 'day', at: '25:00', zone: LISBON }, at(2, 7))).toThrow(/HH:MM/);
  });

  it('is said back as it runs, in the person’s language', () => {
    expect(spokenSchedule(WEEKDAYS_AT_8, 'en')).toBe('every weekday at 08:00');
    expect(spokenSchedule({ every: 'week', on: [1, 5], at: '09:30', zone: LISBON }, 'en')).toBe('every week on Monday and Friday at 09:30');
    expect(spokenSchedule({ every: 'week', on: [1, 5], at: '09:30', zone: LISBON }, 'es')).toBe('cada semana el lunes y viernes a las 09:30');
    expect(spokenSchedule({ every: 'hour', at: '00:15', zone: LISBON }, 'de')).toBe('jede Stunde um 15 Minuten nach');
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
    const until = { ...WEEKDAYS_AT_8, untilMs: at(3, 12) };
    expect(firing(until, at(3, 8), at(3, 8, 1))).toEqual({ fire: true, nextAtMs: null });
    expect(firing(until, null, at(4, 8))).toEqual({ fire: false, nextAtMs: null });
  });
});
