/**
 * A `PeoplePort` for the views' tests: a person the test sets up, what each call was asked, and a
 * clock the test moves (`tick`), so nothing waits on real time.
 */
import { vi } from 'vitest';
import type { Devices, Me, PeoplePort, Usage } from '../../../src/app/people';

export interface FakePeople {
  me: Me;
  devices: Devices;
  usage: Usage;
}

const COOKIE: Me = { kind: 'cookie', owner: false, name: null };
export const PASSKEY_OWNER: Me = { kind: 'passkey', owner: true, name: null };

export const TWO_DEVICES: Devices = {
  owner: true,
  passkeys: [{ id: 'pk1', label: 'Chrome on Linux', synced: true, createdAt: '2026-12-01T10:00:00.000Z', lastUsedAt: '2026-12-05T10:00:00.000Z' }],
  devices: [
    { id: 's1', label: 'Chrome on Linux', via: 'passkey', createdAt: '2026-12-01T10:00:00.000Z', seenAt: '2026-12-07T09:00:00.000Z', thisDevice: true },
    { id: 's2', label: 'Safari on iPhone', via: 'link', createdAt: '2026-12-02T10:00:00.000Z', seenAt: '2026-12-06T09:00:00.000Z', thisDevice: false },
  ],
};

/** 2026-12-07 12:00 UTC. */
export const NOW_MS = Date.UTC(2026, 11, 7, 12, 0, 0);

export function fakePeoplePort(start: Partial<FakePeople> = {}) {
  const people: FakePeople = { me: COOKIE, devices: TWO_DEVICES, usage: { bots: [] }, ...start };
  let nowMs = NOW_MS;
  const ticking = new Set<() => void>();
  const port = {
    me: vi.fn(() => Promise.resolve(people.me)),
    passkeysHere: vi.fn(() => true),
    keepOnDevices: vi.fn(() => {
      people.me = { kind: 'passkey', owner: true, name: null };
      return Promise.resolve(people.me);
    }),
    signInWithPasskey: vi.fn(() => Promise.resolve(PASSKEY_OWNER)),
    enterCode: vi.fn((_code: string) => Promise.resolve<Me>({ kind: 'passkey', owner: false, name: null })),
    devices: vi.fn(() => Promise.resolve(people.devices)),
    removePasskey: vi.fn((id: string) => {
      people.devices = { ...people.devices, passkeys: people.devices.passkeys.filter((p) => p.id !== id) };
      return Promise.resolve();
    }),
    removeDevice: vi.fn((id: string) => {
      people.devices = { ...people.devices, devices: people.devices.devices.filter((d) => d.id !== id) };
      return Promise.resolve();
    }),
    signOut: vi.fn(() => Promise.resolve()),
    linkCode: vi.fn(() => Promise.resolve({ code: 'ABCD-EFGH', expiresAt: nowMs + 5 * 60_000, url: 'http://localhost:8787/link#ABCD-EFGH' })),
    nameInvite: vi.fn((_name: string) => Promise.resolve({ url: 'http://localhost:8787/invite#tok', expiresAt: nowMs + 7 * 24 * 60 * 60_000 })),
    acceptInvite: vi.fn((_token: string) => Promise.resolve<Me>({ kind: 'passkey', owner: false, name: 'ana' })),
    usage: vi.fn(() => Promise.resolve(people.usage)),
    download: vi.fn(() => Promise.resolve()),
    forget: vi.fn((_typed: string, _bot: string) => Promise.resolve()),
    reload: vi.fn(),
    qrImage: vi.fn((text: string) => `data:image/svg+xml;charset=utf-8,qr-of-${encodeURIComponent(text)}`),
    copy: vi.fn((_text: string) => Promise.resolve()),
    clock: {
      nowMs: () => nowMs,
      every: (_intervalMs: number, run: () => void) => {
        ticking.add(run);
        return () => ticking.delete(run);
      },
    },
  } satisfies PeoplePort;
  /** Moves the clock on by `ms` and runs whatever ticks on it. */
  const tick = (ms: number) => {
    nowMs += ms;
    for (const run of ticking) run();
  };
  return { port, people, tick, ticking };
}
