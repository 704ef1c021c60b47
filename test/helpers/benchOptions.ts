/**
 * What `npm run bench -- [NAME…] [--clips DIR] [--load N] [--leaks a,b,c] [--short] [--help]` asks for: the
 * benchmarks by name, and the options handed to each one's `run` (a benchmark takes the ones it
 * knows and leaves the rest).
 */

/** The options a benchmark's `run` is given. */
export interface BenchOptions {
  /**
   * A folder of clips with the same clips.json manifest as test/e2e/speech/clips/ and its WAVs,
   * for the benchmarks that play recordings (turn-taking); default the kept clips.
   */
  clips?: string;
  /**
   * How many busy processes (each spinning one core) the runner keeps going beside the benchmark,
   * from before it starts until it ends: a machine with other work on it. Default 0.
   */
  load?: number;
  /**
   * The speaker's leak levels at the microphone (each the leak's loudest sample, over 0 and at most
   * 1), in place of the benchmark's own, for the benchmarks that play a leak (barge-in, turn-taking).
   */
  leaks?: number[];
  /**
   * The short form, for CI: the benchmarks that know it (scale-out) shorten their slow parts — fewer
   * memories, fewer repeats — and say so in their result. Default false.
   */
  short?: boolean;
}

/** The command line, read. */
export interface BenchArgs {
  names: string[];
  options: BenchOptions;
  /** `--help` was asked for: say what there is, run nothing. */
  help: boolean;
}

/** A command line the runner cannot read; says what to write instead. */
export class BenchArgsError extends Error {
  override readonly name = 'BenchArgsError';
}

/** The most busy processes `--load` starts: more is a mistake, not a machine. */
export const MAX_LOAD = 16;

/** How each flag's value is read into its option; throws `BenchArgsError` saying what to write. */
const VALUE_FLAGS = {
  '--clips': { usage: '--clips DIR', read: (value: string) => ({ clips: value }) },
  '--load': { usage: '--load N', read: (value: string) => ({ load: loadOf(value) }) },
  '--leaks': { usage: '--leaks 0.15,0.35,0.55', read: (value: string) => ({ leaks: leaksOf(value) }) },
} as const satisfies Readonly<Record<string, { usage: string; read: (value: string) => BenchOptions }>>;

/** The flags that take no value, each with the option it sets. */
const BARE_FLAGS = { '--short': { short: true } } as const satisfies Readonly<Record<string, BenchOptions>>;

/** Every option, as `--help` lists it. */
export const BENCH_FLAGS: readonly string[] = [...Object.values(VALUE_FLAGS).map((flag) => flag.usage), ...Object.keys(BARE_FLAGS), '--help'];

const isValueFlag = (flag: string): flag is keyof typeof VALUE_FLAGS => Object.hasOwn(VALUE_FLAGS, flag);
const isBareFlag = (flag: string): flag is keyof typeof BARE_FLAGS => Object.hasOwn(BARE_FLAGS, flag);

function loadOf(value: string): number {
  const load = Number(value);
  if (!/^\d+$/.test(value) || load > MAX_LOAD) throw new BenchArgsError(`--load takes a whole number of busy processes from 0 to ${MAX_LOAD}, not ${value}: --load 2.`);
  return load;
}

function leaksOf(value: string): number[] {
  const leaks = value.split(',').map((part) => part.trim());
  const bad = leaks.filter((part) => !/^\d*\.?\d+$/.test(part) || Number(part) <= 0 || Number(part) > 1);
  if (bad.length > 0) throw new BenchArgsError(`--leaks takes leak levels over 0 and at most 1, separated by commas; ${bad.map((b) => `"${b}"`).join(', ')} is not one: --leaks 0.15,0.35,0.55.`);
  return leaks.map(Number);
}

/** Reads `argv` (after the script's own): names, `--help`, and `--flag value` or `--flag=value` options. Throws `BenchArgsError`. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const names: string[] = [];
  let options: BenchOptions = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('-')) {
      names.push(arg);
      continue;
    }
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (isBareFlag(arg)) {
      options = { ...options, ...BARE_FLAGS[arg] };
      continue;
    }
    const [flag = '', inline] = arg.split(/=(.*)/s, 2);
    if (!isValueFlag(flag)) throw new BenchArgsError(`No bench option ${flag}; the options are ${BENCH_FLAGS.join(', ')}.`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) {
      throw new BenchArgsError(`${flag} needs a value: ${VALUE_FLAGS[flag].usage}.`);
    }
    options = { ...options, ...VALUE_FLAGS[flag].read(value) };
  }
  return { names, options, help };
}
