import { describe, expect, it } from 'vitest';
import { isRecord } from '../../common/isRecord';

describe('isRecord', () => {
  it('takes an object with keys, and neither null, an array nor a plain value', () => {
    expect(isRecord({ error: 'x' })).toBe(true);
    expect(isRecord({})).toBe(true);
    expect(isRecord(null)).toBe(false);
    expect(isRecord([])).toBe(false);
    expect(isRecord('{}')).toBe(false);
    expect(isRecord(undefined)).toBe(false);
  });
});
