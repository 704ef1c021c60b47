/**
 * `hears:` in a bot file: what wakes the bot, read at start like every field — kept when it is a
 * schedule and an ask, refused naming the file and the field when it is not one, and refused when
 * it would never act.
 */
import { describe, expect, it } from 'vitest';
import { checkBotHears } from '../../server/botHears';
import { BotFileError, parseBotFile } from '../../server/bots';

const FILE = 'bots/sage.md';
const botFile = (hears: string) => `---\nname: Sage\nhears:\n${hears}\n---\nYou are Sage.\n`;
const MORNINGS = '  - schedule: { every: weekday, at: "8:00" }\n    ask: tell me what is on my to-do list today';
/** 2026-12-02, noon UTC: a Wednesday. */
const NOW_MS = Date.UTC(2026, 11, 2, 12);

function refusal(text: string): string {
  try {
    parseBotFile(FILE, text);
  } catch (error) {
    if (error instanceof BotFileError) return error.message;
    throw error;
  }
  throw new Error('the file was accepted');
}

describe('what wakes a bot', () => {
  it('keeps each schedule and what it wakes up to do, with a key that changes when either does', () => {
    const bot = parseBotFile(FILE, botFile(`${MORNINGS}\n  - schedule: { every: week, on: [monday, friday], at: "18:30", zone: Europe/Lisbon, interval: 2, until: 2027-06-30, except: [2026-12-25] }\n    ask: remind me to water the plants`));
    expect(bot.hears).toMatchObject([
      { schedule: { every: 'weekday', at: '08:00' }, ask: 'tell me what is on my to-do list today' },
      { schedule: { every: 'week', on: [1, 5], at: '18:30', zone: 'Europe/Lisbon', interval: 2, until: '2027-06-30', except: ['2026-12-25'] }, ask: 'remind me to water the plants' },
    ]);
    const [first, second] = bot.hears ?? [];
    expect(first?.key).toMatch(/^[0-9a-f]{16}$/);
    expect(first?.key).not.toBe(second?.key);
    const later = parseBotFile(FILE, botFile(MORNINGS.replace('8:00', '9:00'))).hears?.[0];
    expect(later?.key).not.toBe(first?.key);
    expect(parseBotFile(FILE, '---\nname: Sage\n---\nYou are Sage.\n').hears).toBeUndefined();
  });

  it.each([
    ['no ask', '  - schedule: { every: day }', 'bots/sage.md: hears[0].ask is missing; it must be what it wakes up to do'],
    ['no schedule', '  - ask: say hello', 'bots/sage.md: hears[0].schedule is missing'],
    ['an unknown every', '  - schedule: { every: fortnight }\n    ask: hi', 'bots/sage.md: hears[0].schedule.every is "fortnight"; it must be one of day, weekday, weekend, week, hour.'],
    ['an impossible day', '  - schedule: { every: week, on: [funday] }\n    ask: hi', 'bots/sage.md: hears[0].schedule.on names "funday", which is no day of the week'],
    ['days for a daily schedule', '  - schedule: { every: day, on: [monday] }\n    ask: hi', 'bots/sage.md: hears[0].schedule.on names days, which only every: week takes'],
    ['a time that is none', '  - schedule: { every: day, at: "25:00" }\n    ask: hi', 'bots/sage.md: hears[0].schedule is not a schedule: A schedule\'s time is "25:00"'],
    ['a day that is none', '  - schedule: { every: day, until: 2026-02-30 }\n    ask: hi', 'bots/sage.md: hears[0].schedule is not a schedule: "2026-02-30" is not a day'],
    ['an unknown zone', '  - schedule: { every: day, zone: Mars/Olympus }\n    ask: hi', 'bots/sage.md: hears[0].schedule is not a schedule: "Mars/Olympus" is not a time zone'],
    ['an interval of none', '  - schedule: { every: week, interval: 0 }\n    ask: hi', 'bots/sage.md: hears[0].schedule is not a schedule: An interval of 0'],
    ['a misspelt field', '  - schedule: { every: day, untill: 2027-01-01 }\n    ask: hi', 'bots/sage.md: hears[0].schedule.untill is not a field of hears[0].schedule'],
    ['the same twice', `${MORNINGS}\n${MORNINGS}`, 'bots/sage.md: hears lists the same schedule and ask twice'],
  ])('refuses %s, naming the file and the field', (_what, hears, message) => {
    expect(refusal(botFile(hears))).toContain(message);
  });

  it('refuses at start a wake that would never act, naming the file', () => {
    const bots = (hears: string) => new Map([['sage', parseBotFile(FILE, botFile(hears))]]);
    const over = bots('  - schedule: { every: day, at: "08:00", zone: Europe/Lisbon, until: 2026-12-01 }\n    ask: hi');
    expect(() => {
      checkBotHears(over, NOW_MS);
    }).toThrow('sage.md: hears[0].schedule would never act: it has no occurrence left by its until (2026-12-01); change or remove it.');
    const excepted = bots('  - schedule: { every: day, at: "08:00", zone: Europe/Lisbon, until: 2026-12-04, except: [2026-12-03, 2026-12-04] }\n    ask: hi');
    expect(() => {
      checkBotHears(excepted, NOW_MS);
    }).toThrow(/hears\[0\]\.schedule would never act: .* that its except leaves in/);
    // Today's occurrence is still to come somewhere on Earth: west of here, 08:00 on the 2nd has not happened yet.
    expect(() => {
      checkBotHears(bots('  - schedule: { every: day, at: "08:00", until: 2026-12-02 }\n    ask: hi'), NOW_MS);
    }).not.toThrow();
    expect(() => {
      checkBotHears(bots(MORNINGS), NOW_MS);
    }).not.toThrow();
  });
});
