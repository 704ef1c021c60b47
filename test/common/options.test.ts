import { describe, expect, it } from 'vitest';
import { checkOption, checkOptions, describeLimit, OptionError, resolveOptions } from '../../common/options';
import type { Limits, Relation } from '../../common/options';

interface Knobs {
  count: number;
  shareOf: number;
  firstMs: number;
  lastMs: number;
}

const DEFAULTS: Readonly<Knobs> = Object.freeze({ count: 3, shareOf: 0.25, firstMs: 100, lastMs: 1000 });
const LIMITS: Limits<Knobs> = {
  count: { min: 1, max: 10, whole: true },
  shareOf: { min: 0, max: 1 },
  firstMs: { over: 0 },
  lastMs: { over: 0 },
};
const RELATIONS: readonly Relation<Knobs>[] = [{ option: 'lastMs', is: 'at least', than: 'firstMs', because: 'the waits only grow' }];

const knobs = (given?: Partial<Knobs>) => resolveOptions('knobs', DEFAULTS, given, LIMITS, RELATIONS);

describe('resolveOptions', () => {
  it('takes the defaults for what is not given, or given as undefined, and ignores keys the defaults lack', () => {
    expect(knobs()).toEqual(DEFAULTS);
    expect(knobs({ count: 5, shareOf: undefined })).toEqual({ ...DEFAULTS, count: 5 });
    const withDeps = { count: 2, api: () => 'not an option' };
    expect(resolveOptions('knobs', DEFAULTS, withDeps, LIMITS)).toEqual({ ...DEFAULTS, count: 2 });
  });

  it('answers a fresh object and leaves the defaults as they were', () => {
    const resolved = knobs({ count: 4 });
    expect(resolved).not.toBe(DEFAULTS);
    expect(DEFAULTS.count).toBe(3);
  });

  it('throws one error type naming the option, its value and its limit', () => {
    let thrown: unknown;
    try {
      knobs({ count: 2.5 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(OptionError);
    expect(thrown).toMatchObject({ name: 'OptionError', option: 'knobs.count', value: 2.5, limit: 'a whole number from 1 to 10' });
    expect((thrown as Error).message).toBe('knobs.count is 2.5; it must be a whole number from 1 to 10.');
  });

  it('refuses values past either bound, an open bound reached, NaN, Infinity and what is not a number', () => {
    expect(() => knobs({ count: 0 })).toThrow('knobs.count is 0; it must be a whole number from 1 to 10.');
    expect(() => knobs({ count: 11 })).toThrow(OptionError);
    expect(() => knobs({ firstMs: 0 })).toThrow('knobs.firstMs is 0; it must be a number over 0.');
    expect(() => knobs({ shareOf: Number.NaN })).toThrow('knobs.shareOf is NaN; it must be a number from 0 to 1.');
    expect(() => knobs({ lastMs: Number.POSITIVE_INFINITY })).toThrow('knobs.lastMs is Infinity; it must be a number over 0.');
    expect(() => knobs({ count: '3' as unknown as number })).toThrow('knobs.count is "3"; it must be a whole number from 1 to 10.');
  });

  it('accepts every bound that is inclusive', () => {
    expect(knobs({ count: 10, shareOf: 0 })).toMatchObject({ count: 10, shareOf: 0 });
    expect(knobs({ count: 1, shareOf: 1 })).toMatchObject({ count: 1, shareOf: 1 });
  });

  it('checks each option against its own limit before any relation, in the order the limits are declared', () => {
    expect(() => knobs({ count: 0, firstMs: -1 })).toThrow(/^knobs\.count/);
    expect(() => knobs({ firstMs: -1, lastMs: -2 })).toThrow(/^knobs\.firstMs/);
  });

  it('says a relation between two options with the other’s value and why', () => {
    expect(() => knobs({ firstMs: 500, lastMs: 400 })).toThrow('knobs.lastMs is 400; it must be at least knobs.firstMs (500): the waits only grow.');
    expect(knobs({ firstMs: 500, lastMs: 500 })).toMatchObject({ lastMs: 500 });
    const under: Relation<Knobs> = { option: 'firstMs', is: 'under', than: 'lastMs' };
    expect(() => resolveOptions('knobs', DEFAULTS, { firstMs: 1000 }, LIMITS, [under])).toThrow('knobs.firstMs is 1000; it must be under knobs.lastMs (1000).');
    const atMost: Relation<Knobs> = { option: 'firstMs', is: 'at most', than: 'lastMs' };
    expect(resolveOptions('knobs', DEFAULTS, { firstMs: 1000 }, LIMITS, [atMost]).firstMs).toBe(1000);
  });
});

describe('checkOptions and checkOption', () => {
  it('check a whole set as given, with no defaults, and answer it unchanged', () => {
    const given = { count: 2, shareOf: 0.5, firstMs: 1, lastMs: 1 };
    expect(checkOptions('knobs', given, LIMITS, RELATIONS)).toBe(given);
    expect(() => checkOptions('knobs', { ...given, shareOf: 2 }, LIMITS)).toThrow('knobs.shareOf is 2; it must be a number from 0 to 1.');
  });

  it('checks one value by its full name, saying a missing one is missing', () => {
    expect(checkOption('piece.rateHz', 8000, { min: 8000, max: 96_000 })).toBe(8000);
    expect(() => checkOption('tts.json ae.sample_rate', undefined, { over: 0, whole: true })).toThrow('tts.json ae.sample_rate is missing; it must be a whole number over 0.');
  });
});

describe('describeLimit', () => {
  it('says each kind of limit as a person reads it', () => {
    expect(describeLimit({ min: 1, max: 64, whole: true })).toBe('a whole number from 1 to 64');
    expect(describeLimit({ over: 0, max: 1 })).toBe('a number over 0 and at most 1');
    expect(describeLimit({ min: 0 })).toBe('a number, 0 or more');
    expect(describeLimit({ over: 0, whole: true })).toBe('a whole number over 0');
    expect(describeLimit({ max: 5 })).toBe('a number, 5 or less');
    expect(describeLimit({})).toBe('a number');
  });
});
