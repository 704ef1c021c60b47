/**
 * How every options-taking module takes its options: the given ones merged over its defaults, each
 * checked against the limit it declares, and one error, `OptionError`, that names the option, the
 * value it had and what it may be — so a person fixing a bot file, a setting or a call reads the
 * same kind of sentence whichever module refused it.
 */
/** The keys of `T` whose values are numbers: the ones a `Limit` can bound. */
export type NumericKey<T> = {
    [K in keyof T]-?: T[K] extends number ? K : never;
}[keyof T] & string;
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
export type Limits<T> = {
    readonly [K in NumericKey<T>]: Limit;
};
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
export declare class OptionError extends Error {
    readonly option: string;
    readonly value: unknown;
    readonly limit: string;
    readonly name = "OptionError";
    constructor(option: string, value: unknown, limit: string);
}
/** A limit as a person reads it: "a whole number from 1 to 64", "a number over 0". */
export declare function describeLimit(limit: Limit): string;
/** `value`, when it is a number within `limit`; otherwise throws `OptionError` naming `option`. */
export declare function checkOption(option: string, value: unknown, limit: Limit): number;
/**
 * Checks a whole set of options, `<scope>.<name>` each: every limit in the order `limits` declares
 * them, then every relation in order. Throws `OptionError` for the first that fails; answers
 * `options` as they were.
 */
export declare function checkOptions<T extends object>(scope: string, options: T, limits: Limits<T>, relations?: readonly Relation<T>[]): T;
/**
 * The options of `scope`: each of `defaults`' keys taken from `given` where it is set there (a key
 * given as `undefined` keeps its default; a key `defaults` lacks is ignored), then checked as
 * `checkOptions` does. A fresh object; neither argument is changed.
 */
export declare function resolveOptions<T extends object>(scope: string, defaults: Readonly<T>, given: Partial<T> | undefined, limits: Limits<T>, relations?: readonly Relation<T>[]): T;
