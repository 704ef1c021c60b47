/** The bot limits the benchmarks run under: the shipped windows, each raised out of the way. */
import type { BotLimits } from '../../server/bots';

/** `limits` with each ceiling it sets far above what a benchmark asks for; a window it leaves unset stays unset. */
export function generous(limits: BotLimits): BotLimits {
  const raised: BotLimits = { ...limits };
  for (const window of ['perMinute', 'perHour', 'perDay', 'perWeek', 'perMonth'] as const) {
    const ceiling = limits[window];
    if (ceiling === undefined) continue;
    raised[window] = {
      ...(ceiling.answers === undefined ? {} : { answers: 1_000_000 }),
      ...(ceiling.spend === undefined ? {} : { spend: 1_000_000 }),
    };
  }
  return raised;
}
