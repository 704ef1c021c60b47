/**
 * What `npm run bench -- [NAME…] [--clips DIR]` asks for: the benchmarks by name, and the options
 * handed to each one's `run` (a benchmark takes the ones it knows and leaves the rest).
 */

/** The options a benchmark's `run` is given. */
export interface BenchOptions {
  /**
   * A folder of clips with the same clips.json manifest as test/e2e/speech/clips/ and its WAVs,
   * for the benchmarks that play recordings (turn-taking); default the kept clips.
   */
  clips?: string;
}

/** The command line, read. */
export interface BenchArgs {
  names: string[];
  options: BenchOptions;
}

/** A command line the runner cannot read; says what to write instead. */
export class BenchArgsError extends Error {
  override readonly name = 'BenchArgsError';
}

/** The flags that take a value, and the option each sets. */
const VALUE_FLAGS = { '--clips': 'clips' } as const satisfies Readonly<Record<string, keyof BenchOptions>>;

const isValueFlag = (flag: string): flag is keyof typeof VALUE_FLAGS => Object.hasOwn(VALUE_FLAGS, flag);

/** Reads `argv` (after the script's own): names, and `--flag value` or `--flag=value` options. Throws `BenchArgsError`. */
export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const names: string[] = [];
  const options: BenchOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('-')) {
      names.push(arg);
      continue;
    }
    const [flag = '', inline] = arg.split(/=(.*)/s, 2);
    if (!isValueFlag(flag)) throw new BenchArgsError(`No bench option ${flag}; the options are ${Object.keys(VALUE_FLAGS).join(', ')}.`);
    const value = inline ?? argv[++i];
    if (value === undefined || value === '' || (inline === undefined && value.startsWith('-'))) {
      throw new BenchArgsError(`${flag} needs a value: ${flag} DIR.`);
    }
    options[VALUE_FLAGS[flag]] = value;
  }
  return { names, options };
}
