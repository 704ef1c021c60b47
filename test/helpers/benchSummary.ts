/**
 * The table `npm run bench` writes to bench-results/summary.md: each benchmark's headline figures
 * beside their targets, and whether each was met. A benchmark module declares its own targets by
 * exporting `targets`; the ones written before that convention are declared here, from the targets
 * their files and issues name. A benchmark with no target still shows its top-level figures.
 */

/** One figure's target: `figure` is a dotted path into the benchmark's result. */
export interface BenchTarget {
  figure: string;
  atMost?: number;
  atLeast?: number;
  /** What the figure measures, for a reader of the table. */
  what?: string;
}

/** The result of one benchmark as run.ts has it: its final JSON line, or why it failed. */
export type BenchOutcome = { name: string; result: Record<string, unknown> } | { name: string; error: string };

/** Targets of the benchmarks that do not export their own. */
export const DECLARED_TARGETS: Readonly<Record<string, readonly BenchTarget[]>> = {
  door: [
    { figure: 'addedMsP50', atMost: 5, what: 'what the door adds to the first token, median' },
    { figure: 'errors', atMost: 0, what: 'failed turns, 100 at once included' },
  ],
  recall: [{ figure: 'p95Ms', atMost: 20, what: 'nearest-neighbour recall over 100,000 memories, p95' }],
  'recall-quality': [
    { figure: 'default.top3', atLeast: 0.8, what: 'the right memory among the first three' },
    { figure: 'default.falseRecall', atMost: 0.05, what: 'a memory recalled for an unrelated question' },
  ],
  tools: [{ figure: 'addedFirstAudioMsP50', atMost: 50, what: 'what a verb adds to the first audio, median' }],
  'tts-first-audio': [
    { figure: 'ratio', atMost: 0.25, what: 'first sound streamed / first sound as one piece' },
    { figure: 'ratioOpening3', atMost: 0.12, what: 'the same with the opening piece at 3 steps' },
    { figure: 'playbackStallMs', atMost: 0, what: 'silence between pieces while playing' },
  ],
  'barge-in': [
    { figure: 'p95Ms', atMost: 120, what: 'a person talking over the answer → silence, p95' },
    { figure: 'falseTriggers', atMost: 0, what: 'barge-ins by the assistant’s own leak' },
  ],
  presence: [
    { figure: 'handoverMsP95', atMost: 200, what: '"Use this one" → the other page silent, p95' },
    { figure: 'fanOutMsP95', atMost: 150, what: 'a line said → shown on the other page, p95' },
  ],
};

/** The value at `path` (dotted) in `result`, if it is a number. */
export function figureAt(result: Record<string, unknown>, path: string): number | undefined {
  let at: unknown = result;
  for (const key of path.split('.')) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'number' ? at : undefined;
}

function targetText(target: BenchTarget): string {
  const bounds = [target.atMost === undefined ? null : `≤ ${String(target.atMost)}`, target.atLeast === undefined ? null : `≥ ${String(target.atLeast)}`];
  return bounds.filter((b) => b !== null).join(' and ');
}

/** Whether `value` meets `target`; undefined when there is no value to judge. */
export function meets(target: BenchTarget, value: number | undefined): boolean | undefined {
  if (value === undefined || Number.isNaN(value)) return undefined;
  return (target.atMost === undefined || value <= target.atMost) && (target.atLeast === undefined || value >= target.atLeast);
}

/** The top-level numeric figures of a result, for a benchmark with no target. */
function headlineFigures(result: Record<string, unknown>): string {
  const figures = Object.entries(result).filter((entry): entry is [string, number] => typeof entry[1] === 'number');
  return figures.length === 0 ? 'no figures' : figures.map(([key, value]) => `${key} ${String(value)}`).join(', ');
}

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The summary table, as Markdown, for `outcomes` (in the order they ran). */
export function summaryTable(outcomes: readonly BenchOutcome[], targetsOf: (name: string) => readonly BenchTarget[] | undefined, ranAt: Date): string {
  const rows: string[] = [];
  let met = 0;
  let missed = 0;
  for (const outcome of outcomes) {
    if ('error' in outcome) {
      rows.push(`| ${outcome.name} | — | failed: ${cell(outcome.error)} | — | ✗ |`);
      missed += 1;
      continue;
    }
    const targets = targetsOf(outcome.name) ?? [];
    if (targets.length === 0) {
      rows.push(`| ${outcome.name} | ${cell(headlineFigures(outcome.result))} | | no target | |`);
      continue;
    }
    for (const target of targets) {
      const value = figureAt(outcome.result, target.figure);
      const verdict = meets(target, value);
      if (verdict === true) met += 1;
      else missed += 1;
      const figure = target.what === undefined ? target.figure : `${target.figure} (${target.what})`;
      rows.push(`| ${outcome.name} | ${cell(figure)} | ${value === undefined ? 'missing' : String(value)} | ${targetText(target)} | ${verdict === true ? '✓' : '✗'} |`);
    }
  }
  return [
    '# Benchmarks',
    '',
    `Run ${ranAt.toISOString()} by \`npm run bench\`; each figure is from bench-results/<name>.json. ${String(met)} target${met === 1 ? '' : 's'} met, ${String(missed)} not.`,
    '',
    '| benchmark | figure | value | target | met |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
