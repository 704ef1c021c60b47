import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../src/platform/newId';

describe('newId', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('makes version 4 UUIDs, never the same twice', () => {
    const ids = Array.from({ length: 1000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('works where the page is not a secure context and crypto has no randomUUID', () => {
    const real = globalThis.crypto;
    const getRandomValues = (array: Uint8Array<ArrayBuffer>) => real.getRandomValues(array);
    vi.stubGlobal('crypto', { getRandomValues });
    expect('randomUUID' in globalThis.crypto).toBe(false);
    expect(newId()).toMatch(/^[0-9a-f-]{36}$/);
  });
});
