/**
 * A person's devices: a code that makes another device the same person (once, for five minutes), the
 * Devices view, removing a device (signed out at its next request), signing out, and a session cookie
 * that rolls — on the app in process, a simulated clock, and a software authenticator per device.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devices, LinkCode } from '../../../common/people';
import { PERSON_COOKIE, SESSION_COOKIE, SESSION_COOKIE_ROLL_MS, SESSION_IDLE_MS, SESSION_SEEN_EVERY_MS } from '../../../server/person';
import { SIGNED_OUT_HEADER } from '../../../common/people';
import { LINK_CODE_MS } from '../../../server/people/deviceRoutes';
import { LINK_TRIES_MAX, LINK_TRIES_WINDOW_MS } from '../../../server/people/linkTries';
import { waitWords } from '../../../server/words/refusalWords';
import { SAFARI_ON_IPHONE, PasskeyDevice } from '../../helpers/passkeyDevice';
import { openTestBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { requestRefusal } from '../../helpers/words';
import { DB_TEST_MS, OPENING_MS } from '../db/fixtures';

let backend: TestBackend;
let nowMs = 1_750_000_000_000;

beforeAll(async () => {
  backend = await openTestBackend({ clock: () => nowMs });
}, OPENING_MS);

afterAll(async () => {
  await backend.close();
});

const device = (userAgent?: string) => new PasskeyDevice(backend.request, undefined, userAgent);

/** A person with a passkey, signed in on their laptop. */
async function signedInLaptop(): Promise<PasskeyDevice> {
  const laptop = device();
  expect((await laptop.register()).status).toBe(200);
  return laptop;
}

async function linkCode(on: PasskeyDevice): Promise<LinkCode> {
  const made = await on.call<LinkCode>('POST', '/api/devices/link-code');
  expect(made.status).toBe(200);
  return made.body;
}

const devicesOf = async (on: PasskeyDevice) => (await on.call<Devices>('GET', '/api/devices')).body;

describe('linking a device by a code', { timeout: DB_TEST_MS }, () => {
  it('makes the device entering it the same person, once', async () => {
    const laptop = await signedInLaptop();
    const code = await linkCode(laptop);
    expect(code.code).toMatch(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/);
    expect(code.url).toBe(`http://localhost:8787/link#${code.code}`);
    expect(code.expiresAt).toBe(nowMs + LINK_CODE_MS);
    const phone = device(SAFARI_ON_IPHONE);
    // Typed as a person would: lower case, the dash left out.
    const linked = await phone.call('POST', '/api/devices/link', { code: code.code.replace('-', '').toLowerCase() });
    expect(linked).toMatchObject({ status: 200, body: { kind: 'passkey', name: null } });
    const seen = await devicesOf(phone);
    expect(seen.devices.map((each) => [each.label, each.via, each.thisDevice]).sort()).toEqual([
      ['Chrome on Linux', 'passkey', false],
      ['Safari on iPhone', 'link', true],
    ]);
    const again = device();
    expect(await again.call('POST', '/api/devices/link', { code: code.code })).toMatchObject({ status: 400, body: { error: requestRefusal('devices.link-unknown') } });
  });

  it('lets the linked device make a passkey of its own, and then lists it as signed in by one', async () => {
    const laptop = await signedInLaptop();
    const phone = device(SAFARI_ON_IPHONE);
    expect((await phone.call('POST', '/api/devices/link', { code: (await linkCode(laptop)).code })).status).toBe(200);
    expect(await phone.register()).toMatchObject({ status: 200, body: { kind: 'passkey' } });
    const seen = await devicesOf(phone);
    expect(seen.passkeys.map((each) => each.label).sort()).toEqual(['Chrome on Linux', 'Safari on iPhone']);
    expect(seen.devices.filter((each) => each.thisDevice).map((each) => each.via)).toEqual(['passkey']);
  });

  it('stops working five minutes after it was made', async () => {
    const laptop = await signedInLaptop();
    const code = await linkCode(laptop);
    nowMs += LINK_CODE_MS;
    const phone = device(SAFARI_ON_IPHONE);
    expect(await phone.call('POST', '/api/devices/link', { code: code.code })).toMatchObject({ status: 400, body: { error: requestRefusal('devices.link-expired') } });
    expect((await phone.me()).body.kind).toBe('cookie');
  });

  it('is made only for a passkey person: a bare cookie is told to keep Confab on its devices first', async () => {
    const bare = device();
    expect(await bare.call('POST', '/api/devices/link-code')).toMatchObject({ status: 403, body: { error: requestRefusal('devices.keep-first') } });
  });

  it('refuses a client that keeps guessing, until the oldest wrong guess is out of the window', async () => {
    const guesser = device();
    for (let guess = 0; guess < LINK_TRIES_MAX; guess += 1) {
      expect((await guesser.call('POST', '/api/devices/link', { code: 'ABCD-EFGH' })).status).toBe(400);
    }
    const refused = await guesser.call('POST', '/api/devices/link', { code: 'ABCD-EFGH' });
    expect(refused).toMatchObject({ status: 429, body: { error: requestRefusal('devices.link-tries', { wait: waitWords(LINK_TRIES_WINDOW_MS) }) } });
    expect(refused.headers.get('retry-after')).toBe(String(LINK_TRIES_WINDOW_MS / 1000));
    nowMs += LINK_TRIES_WINDOW_MS;
    expect((await guesser.call('POST', '/api/devices/link', { code: 'ABCD-EFGH' })).status).toBe(400);
  });
});

describe('Devices', { timeout: DB_TEST_MS }, () => {
  it('signs a removed device out at its next request, saying so, and it is a new bare cookie person', async () => {
    const laptop = await signedInLaptop();
    const phone = device(SAFARI_ON_IPHONE);
    await phone.call('POST', '/api/devices/link', { code: (await linkCode(laptop)).code });
    const phoneSession = (await devicesOf(phone)).devices.find((each) => each.thisDevice)?.id ?? '';
    expect((await laptop.call('DELETE', `/api/devices/sessions/${phoneSession}`)).status).toBe(204);
    const next = await phone.me();
    expect(next.body).toEqual({ kind: 'cookie', owner: false, name: null });
    expect(next.headers.get(SIGNED_OUT_HEADER)).toBe('1');
    expect(phone.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(phone.cookies.has(PERSON_COOKIE)).toBe(true);
    expect((await phone.me()).headers.get(SIGNED_OUT_HEADER)).toBeNull();
    expect((await devicesOf(laptop)).devices.map((each) => each.label)).toEqual(['Chrome on Linux']);
  });

  it('removes only the person’s own: another’s passkey or device is not there', async () => {
    const one = await signedInLaptop();
    const other = await signedInLaptop();
    const theirs = await devicesOf(other);
    const passkey = theirs.passkeys[0]?.id ?? '';
    const session = theirs.devices[0]?.id ?? '';
    expect(await one.call('DELETE', `/api/devices/passkeys/${passkey}`)).toMatchObject({ status: 404, body: { error: requestRefusal('devices.no-passkey') } });
    expect(await one.call('DELETE', `/api/devices/sessions/${session}`)).toMatchObject({ status: 404, body: { error: requestRefusal('devices.no-device') } });
    expect(await one.call('DELETE', '/api/devices/sessions/not-an-id')).toMatchObject({ status: 404 });
    expect((await other.me()).body.kind).toBe('passkey');
  });

  it('removes a passkey, which then signs nobody in', async () => {
    const laptop = await signedInLaptop();
    const passkey = (await devicesOf(laptop)).passkeys[0]?.id ?? '';
    expect((await laptop.call('DELETE', `/api/devices/passkeys/${encodeURIComponent(passkey)}`)).status).toBe(204);
    expect((await devicesOf(laptop)).passkeys).toEqual([]);
    expect(await laptop.signIn()).toMatchObject({ status: 400, body: { error: requestRefusal('devices.unknown-passkey') } });
  });

  it('signs this device out when it removes its own session', async () => {
    const laptop = await signedInLaptop();
    const here = (await devicesOf(laptop)).devices[0]?.id ?? '';
    expect((await laptop.call('DELETE', `/api/devices/sessions/${here}`)).status).toBe(204);
    expect(laptop.cookies.size).toBe(0);
    expect((await laptop.me()).body.kind).toBe('cookie');
  });

  it('lists nothing for a bare cookie person', async () => {
    expect(await devicesOf(device())).toEqual({ passkeys: [], devices: [], owner: false });
  });
});

describe('signing out', { timeout: DB_TEST_MS }, () => {
  it('forgets this device only: the next request is a new bare cookie person, the other device stays', async () => {
    const laptop = await signedInLaptop();
    const phone = device(SAFARI_ON_IPHONE);
    await phone.call('POST', '/api/devices/link', { code: (await linkCode(laptop)).code });
    const out = await phone.call('POST', '/api/sign-out');
    expect(out.status).toBe(204);
    expect(phone.cookies.size).toBe(0);
    expect((await phone.me()).body.kind).toBe('cookie');
    expect((await laptop.me()).body.kind).toBe('passkey');
    expect((await devicesOf(laptop)).devices).toHaveLength(1);
    // Signing back in with the passkey is the same person again.
    expect((await laptop.signIn()).body.kind).toBe('passkey');
  });

  it('is refused to a bare cookie person, who would lose everything they have', async () => {
    const bare = device();
    await bare.me();
    expect(await bare.call('POST', '/api/sign-out')).toMatchObject({ status: 409, body: { error: requestRefusal('devices.not-signed-in') } });
    expect(bare.cookies.has(PERSON_COOKIE)).toBe(true);
  });
});

describe('a session cookie', { timeout: DB_TEST_MS }, () => {
  it('rolls once it is a day old, and moves when the device was last seen at most once a minute', async () => {
    const laptop = await signedInLaptop();
    const issued = laptop.cookies.get(SESSION_COOKIE);
    const seenAt = async () => (await devicesOf(laptop)).devices[0]?.seenAt;
    const first = await seenAt();
    nowMs += SESSION_SEEN_EVERY_MS - 1;
    expect(await seenAt()).toBe(first);
    expect(laptop.cookies.get(SESSION_COOKIE)).toBe(issued);
    nowMs += 1;
    expect(await seenAt()).toBe(new Date(nowMs).toISOString());
    nowMs += SESSION_COOKIE_ROLL_MS;
    const rolled = await laptop.me();
    expect(rolled.headers.getSetCookie().find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`))).toMatch(/Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(laptop.cookies.get(SESSION_COOKIE)).not.toBe(issued);
    expect((await laptop.me()).body.kind).toBe('passkey');
  });

  it('lapses when its device has not been seen for a year', async () => {
    const laptop = await signedInLaptop();
    nowMs += SESSION_IDLE_MS + 1;
    const lapsed = await laptop.me();
    expect(lapsed.body.kind).toBe('cookie');
    expect(lapsed.headers.get(SIGNED_OUT_HEADER)).toBe('1');
  });

  it('that names no session, or is no session cookie at all, leaves a new bare cookie person', async () => {
    const stranger = device();
    stranger.cookies.set(SESSION_COOKIE, `${'A'.repeat(43)}.1750000000`);
    expect((await stranger.me()).body.kind).toBe('cookie');
    const garbled = device();
    garbled.cookies.set(SESSION_COOKIE, 'nonsense');
    const answer = await garbled.me();
    expect(answer.body.kind).toBe('cookie');
    expect(answer.headers.get(SIGNED_OUT_HEADER)).toBe('1');
  });
});
