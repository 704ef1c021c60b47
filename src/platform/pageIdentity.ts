/**
 * Who this page is, for presence: its device (this browser profile, kept in localStorage) and the
 * page itself (this tab), kept in sessionStorage across a reload so the referee knows a reloaded
 * tab for the one that was active — with the last window `seq` it had, so it is owed only what
 * it missed. The tab's entry is taken out as the page loads and put back as it goes, so a tab
 * duplicated meanwhile (which copies sessionStorage) is a page of its own.
 */
import type { PageRef } from '../../common/presence/protocol';
import { newId } from './newId';

export interface PageIdentity {
  me: PageRef;
  /** The last `seq` this tab had before it was reloaded, or null. */
  since: number | null;
  /** Keeps the page's id and its last `seq` for the next load of this tab. */
  leaving(lastSeq: number): void;
}

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function storeOrNull(get: () => Store): Store | null {
  try {
    return get();
  } catch {
    return null;
  }
}

export function pageIdentity(bot: string, stores: { tab?: Store | null; device?: Store | null } = {}): PageIdentity {
  const tab = stores.tab === undefined ? storeOrNull(() => globalThis.sessionStorage) : stores.tab;
  const device = stores.device === undefined ? storeOrNull(() => globalThis.localStorage) : stores.device;
  const deviceKey = 'confab.device';
  const tabKey = `confab.page.${bot}`;
  let deviceId = device?.getItem(deviceKey) ?? null;
  if (deviceId === null) {
    deviceId = newId();
    device?.setItem(deviceKey, deviceId);
  }
  let kept: { page?: unknown; since?: unknown };
  try {
    kept = (JSON.parse(tab?.getItem(tabKey) ?? '{}') ?? {}) as { page?: unknown; since?: unknown };
  } catch {
    kept = {};
  }
  tab?.removeItem(tabKey);
  const page = typeof kept.page === 'string' && kept.page !== '' ? kept.page : newId();
  const since = typeof kept.since === 'number' && Number.isSafeInteger(kept.since) && kept.since > 0 ? kept.since : null;
  return {
    me: { page, device: deviceId },
    since,
    leaving(lastSeq) {
      tab?.setItem(tabKey, JSON.stringify({ page, since: lastSeq }));
    },
  };
}
