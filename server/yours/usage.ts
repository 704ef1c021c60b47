/**
 * What a person's talk has cost them, per bot, as the ledger counts it (`server/ledger.ts`): answers
 * and spend today and this month on the calendar of their own time zone, and each of the bot's
 * rolling windows (its file's `limits:`) as the next answer would meet it — how full, and when it
 * frees up for one more. Pure: it is handed the person's reservations and recorded costs
 * (`db/reservations.ts`, `db/usage.ts`) and counts them as `reserveAnswer` does.
 */
import type { SpanUse, Usage, WindowUse } from '../../common/people';
import { fromLocal, localTime } from '../apps/localTime';
import type { Bot } from '../bots';
import { LIMIT_WINDOWS, WINDOW_MS } from '../db/limits';
import type { CostRow } from '../db/usage';
import type { ReservedRow } from '../db/reservations';

/** Money is compared in whole micro-dollars, as the database compares numerics exactly. */
const micro = (usd: number) => Math.round(usd * 1_000_000);

/** How far back the rows must reach at `nowMs` in `zone`: the month's start or the longest window's, whichever is earlier. */
export function usageSinceMs(nowMs: number, zone: string): number {
  return Math.min(monthStartMs(nowMs, zone), nowMs - WINDOW_MS.perMonth);
}

function dayStartMs(nowMs: number, zone: string): number {
  const t = localTime(nowMs, zone);
  return fromLocal({ year: t.year, month: t.month, day: t.day, hour: 0, minute: 0 }, zone);
}

function monthStartMs(nowMs: number, zone: string): number {
  const t = localTime(nowMs, zone);
  return fromLocal({ year: t.year, month: t.month, day: 1, hour: 0, minute: 0 }, zone);
}

export interface UsageRows {
  /** The person's reservations since `usageSinceMs`, every bot's. */
  reserved: readonly ReservedRow[];
  /** Their recorded costs since then. */
  costs: readonly CostRow[];
}

/**
 * The person's use of every bot they have used in the rows, by the bot's name (a bot no longer here
 * by its slug, with no windows), at `nowMs` in `zone`.
 */
export function usageOf(rows: UsageRows, bots: ReadonlyMap<string, Bot>, nowMs: number, zone: string): Usage {
  const slugs = [...new Set([...rows.reserved.map((row) => row.bot), ...rows.costs.map((row) => row.bot)])];
  const spans = { today: dayStartMs(nowMs, zone), thisMonth: monthStartMs(nowMs, zone) };
  const used = slugs.map((slug) => {
    const reserved = rows.reserved.filter((row) => row.bot === slug);
    const costs = rows.costs.filter((row) => row.bot === slug);
    const bot = bots.get(slug);
    return {
      bot: slug,
      name: bot?.name ?? slug,
      today: spanUse(reserved, costs, spans.today),
      thisMonth: spanUse(reserved, costs, spans.thisMonth),
      windows: bot === undefined ? [] : LIMIT_WINDOWS.flatMap((window) => windowUse(window, bot, reserved, costs, nowMs) ?? []),
    };
  });
  return { bots: used.sort((a, b) => a.name.localeCompare(b.name)) };
}

/** Answers begun and money spent (recorded, not held) from `fromMs` on. */
function spanUse(reserved: readonly ReservedRow[], costs: readonly CostRow[], fromMs: number): SpanUse {
  return {
    answers: reserved.filter((row) => row.atMs >= fromMs && row.answers > 0).length,
    spent: sum(costs.filter((row) => row.atMs >= fromMs).map((row) => row.costUsd)),
  };
}

/**
 * One of the bot's windows ending at `nowMs`, as its next answer would meet it: answers begun in it,
 * spend recorded and held in it, and — when it is full — when enough of it has left for one more
 * answer (the bot's per-answer spend held): for answers, when the `answers`-th newest leaves it; for
 * spend, when enough of the oldest spending has. Undefined when the bot has no such window.
 */
function windowUse(window: WindowUse['window'], bot: Bot, reserved: readonly ReservedRow[], costs: readonly CostRow[], nowMs: number): WindowUse | undefined {
  const ceiling = bot.limits[window];
  if (ceiling === undefined) return undefined;
  const lengthMs = WINDOW_MS[window];
  const sinceMs = nowMs - lengthMs;
  const answered = reserved.filter((row) => row.atMs > sinceMs && row.answers > 0).map((row) => row.atMs);
  const spending = [
    ...reserved.filter((row) => row.atMs > sinceMs && row.holdUsd > 0).map((row) => ({ atMs: row.atMs, usd: row.holdUsd })),
    ...costs.filter((row) => row.atMs > sinceMs && row.costUsd > 0).map((row) => ({ atMs: row.atMs, usd: row.costUsd })),
  ].sort((a, b) => a.atMs - b.atMs);
  const spent = spending.reduce((total, each) => total + micro(each.usd), 0);
  const hold = micro(bot.limits.spend);

  const frees: (number | null)[] = [];
  if (ceiling.answers !== undefined && answered.length >= ceiling.answers) {
    // The answers-th newest leaves the window; a ceiling of 0 never frees.
    const leaving = [...answered].sort((a, b) => b - a)[ceiling.answers - 1];
    frees.push(leaving === undefined ? null : leaving + lengthMs);
  }
  if (ceiling.spend !== undefined) {
    const limit = micro(ceiling.spend);
    if (spent >= limit || spent + hold > limit) {
      let gone = 0;
      const leaving = spending.find((each) => {
        gone += micro(each.usd);
        return spent - gone < limit && spent - gone + hold <= limit;
      });
      frees.push(limit === 0 || leaving === undefined ? null : leaving.atMs + lengthMs);
    }
  }
  return {
    window,
    answers: answered.length,
    answersLimit: ceiling.answers ?? null,
    spent: spent / 1_000_000,
    spendLimit: ceiling.spend ?? null,
    // Room for one more needs every full ceiling to have freed. A ceiling of 0 never frees: its
    // limit says so, and null is all the contract has for it.
    freesAt: frees.length === 0 || frees.includes(null) ? null : Math.max(...(frees as number[])),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + micro(value), 0) / 1_000_000;
}
