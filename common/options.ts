/**
 * How every options-taking module takes its options: the given ones merged over its defaults, each
 * checked against the limit it declares, and one error, `OptionError`, that names the option, the
 * value it had and what it may be — so a person fixing a bot file, a setting or a call reads the
 * same kind of sentence whichever module refused it.
 */

/** The keys of `T` whose values are numbers: the ones a `Limit` can bound. */
type NumericKey<T> = { [K in keyof T]-?: T[K] extends number ? K : never }[keyof T] & string;

/** What one numeric option accepts. Every bound is inclusive except `over`; NaN and ±Infinity are never accepted. */
export interface Limit {
  /** The least it may be. */
  readonly min?: number;
  /** What it must be over, not at: `over: 0` is "positive". */
  readonly over?: number;
  /** The most it may be. */
  readonly max?: number;
  /** Whether it must be a whole number (a count, a number of steps). */
  readonly whole?: boolean;
}

/** The limit of every numeric option of `T`. */
export type Limits<T> = { readonly [K in NumericKey<T>]: Limit };

/**
 * A limit between two options of one set, checked after each has passed its own: `option` must be
 * `is` `than` (at least, at most, or under it).
 */
export interface Relation<T> {
  readonly option: NumericKey<T>;
  readonly is: 'at least' | 'at most' | 'under';
  readonly than: NumericKey<T>;
  /** Why the two must agree, said after the limit so the person knows which to change. */
  readonly because?: string;
}

/** An option a person must fix: `option` (`<scope>.<name>`) had `value`, and must be `limit`. */
export class OptionError extends Error {
  override readonly name = 'OptionError';
  constructor(
    readonly option: string,
    readonly value: unknown,
    readonly limit: string,
  ) {
    super(`${option} is ${shown(value)}; it must be ${limit}.`);
  }
}

/** How a value reads in a message: numbers as JavaScript writes them (NaN too), a missing one as "missing", the rest as JSON or their type. */
function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'number') return String(value);
  // JSON has nothing for these.
  if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return typeof value;
  return JSON.stringify(value);
}

/** A limit as a person reads it: "a whole number from 1 to 64", "a number over 0". */
export function describeLimit(limit: Limit): string {
  const kind = limit.whole === true ? 'a whole number' : 'a number';
  const { min, over, max } = limit;
  if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`;
  if (over !== undefined && max !== undefined) return `${kind} over ${over} and at most ${max}`;
  if (min !== undefined) return `${kind}, ${min} or more`;
  if (over !== undefined) return `${kind} over ${over}`;
  if (max !== undefined) return `${kind}, ${max} or less`;
  return kind;
}

function within(value: number, limit: Limit): boolean {
  return (
    Number.isFinite(value) &&
    (limit.min === undefined || value >= limit.min) &&
    (limit.over === undefined || value > limit.over) &&
    (limit.max === undefined || value <= limit.max) &&
    (limit.whole !== true || Number.isInteger(value))
  );
}

/** `value`, when it is a number within `limit`; otherwise throws `OptionError` naming `option`. */
export function checkOption(option: string, value: unknown, limit: Limit): number {
  if (typeof value !== 'number' || !within(value, limit)) throw new OptionError(option, value, describeLimit(limit));
  return value;
}

const holds: Record<Relation<unknown>['is'], (a: number, b: number) => boolean> = {
  'at least': (a, b) => a >= b,
  'at most': (a, b) => a <= b,
  under: (a, b) => a < b,
};

/**
 * Checks a whole set of options, `<scope>.<name>` each: every limit in the order `limits` declares
 * them, then every relation in order. Throws `OptionError` for the first that fails; answers
 * `options` as they were.
 */
export function checkOptions<T extends object>(scope: string, options: T, limits: Limits<T>, relations: readonly Relation<T>[] = []): T {
  for (const key of Object.keys(limits) as NumericKey<T>[]) {
    checkOption(`${scope}.${key}`, options[key], limits[key]);
  }
  for (const { option, is, than, because } of relations) {
    const value = options[option] as number;
    const other = options[than] as number;
    if (!holds[is](value, other)) {
      throw new OptionError(`${scope}.${option}`, value, `${is} ${scope}.${than} (${other})${because === undefined ? '' : `: ${because}`}`);
    }
  }
  return options;
}

/**
 * The options of `scope`: each of `defaults`' keys taken from `given` where it is set there (a key
 * given as `undefined` keeps its default; a key `defaults` lacks is ignored), then checked as
 * `checkOptions` does. A fresh object; neither argument is changed.
 */
export function resolveOptions<T extends object>(
  scope: string,
  defaults: Readonly<T>,
  given: Partial<T> | undefined,
  limits: Limits<T>,
  relations: readonly Relation<T>[] = [],
): T {
  const options = { ...defaults } as T;
  if (given !== undefined) {
    for (const key of Object.keys(defaults) as (keyof T)[]) {
      const value = given[key];
      if (value !== undefined) options[key] = value;
    }
  }
  return checkOptions(scope, options, limits, relations);
}
