import { describe, expect, it } from 'vitest';
import { pageIdentity } from '../../src/platform/pageIdentity';
import { memoryStorage } from '../helpers/memoryStorage';

describe("a page's identity", () => {
  it('keeps the device across pages, and the page and its last seq across a reload of the tab', () => {
    const tab = memoryStorage();
    const device = memoryStorage();
    const first = pageIdentity('demo', { tab, device });
    expect(first.since).toBeNull();
    first.leaving(42);
    const reloaded = pageIdentity('demo', { tab, device });
    expect(reloaded.me).toEqual(first.me);
    expect(reloaded.since).toBe(42);
  });

  it('gives a tab duplicated meanwhile a page of its own (the entry is taken out as the page loads)', () => {
    const tab = memoryStorage();
    const device = memoryStorage();
    const first = pageIdentity('demo', { tab, device });
    first.leaving(7);
    const reloaded = pageIdentity('demo', { tab, device });
    // A duplicate copies sessionStorage as it is now: without the entry.
    const duplicate = pageIdentity('demo', { tab: memoryStorage(), device });
    expect(duplicate.me.page).not.toBe(reloaded.me.page);
    expect(duplicate.me.device).toBe(reloaded.me.device);
  });

  it('starts afresh from a kept entry it cannot read, and works with no storage at all', () => {
    const tab = memoryStorage();
    tab.setItem('confab.page.demo', 'not json');
    expect(pageIdentity('demo', { tab, device: memoryStorage() }).since).toBeNull();
    tab.setItem('confab.page.demo', 'null');
    expect(pageIdentity('demo', { tab, device: memoryStorage() }).since).toBeNull();
    const bare = pageIdentity('demo', { tab: null, device: null });
    expect(bare.me.page).toMatch(/^[0-9a-f-]{36}$/);
    bare.leaving(3);
  });
});
