import { describe, expect, it } from 'vitest';
import { webActiveLock } from '../../src/platform/activeLock';

/**
 * One lock manager per browser: requests as Web Locks grant them (exclusive, ifAvailable, steal);
 * `free()` resolves once no tab holds the lock (the browser has seen its callback end).
 */
function fakeLocks(): { locks: LockManager; free: () => Promise<void> } {
  let holder: { reject: (error: unknown) => void; release: () => void } | null = null;
  const freed: (() => void)[] = [];
  const request = (async (_name: string, options: LockOptions, callback: LockGrantedCallback<unknown>) => {
    if (holder !== null && options.ifAvailable === true) return callback(null);
    if (holder !== null && options.steal === true) {
      holder.reject(new DOMException('The lock was stolen.', 'AbortError'));
      holder = null;
    }
    if (holder !== null) throw new Error('this fake does not queue');
    return new Promise<unknown>((resolve, reject) => {
      const mine = {
        reject,
        release: () => {
          if (holder !== mine) return;
          holder = null;
          for (const done of freed.splice(0)) done();
        },
      };
      holder = mine;
      void Promise.resolve(callback({ name: 'active', mode: 'exclusive' })).then((value) => {
        mine.release();
        resolve(value);
      });
    });
  }) as LockManager['request'];
  return {
    locks: { request, query: () => Promise.resolve({ held: [], pending: [] }) },
    free: () => (holder === null ? Promise.resolve() : new Promise<void>((resolve) => freed.push(resolve))),
  };
}

describe('the active lock', () => {
  it('is taken by one tab; another asking only if free gets nothing; a steal moves it and tells the first', async () => {
    const { locks, free } = fakeLocks();
    const one = webActiveLock('confab.active.demo', locks);
    const two = webActiveLock('confab.active.demo', locks);
    if (one === null || two === null) throw new Error('locks were given');
    let stolen = 0;
    const told = new Promise<void>((resolve) => {
      one.onStolen(() => {
        stolen += 1;
        resolve();
      });
    });
    expect(await one.take({ steal: false })).toBe(true);
    expect(await two.take({ steal: false })).toBe(false);
    expect(await two.take({ steal: true })).toBe(true);
    await told;
    expect(one.owned).toBe(false);
    expect(stolen).toBe(1);
    two.release();
    // A lock let go is free once the browser has seen its callback end.
    await free();
    expect(await one.take({ steal: false })).toBe(true);
  });

  it('is not there without Web Locks (not a secure context)', () => {
    expect(webActiveLock('confab.active.demo', undefined)).toBeNull();
  });
});
