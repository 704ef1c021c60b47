/**
 * Passkeys, end to end through the real app and @simplewebauthn/server's own verification, with a
 * software authenticator (test/helpers/softAuthenticator.ts) on each device: who becomes the owner,
 * what a cookie person keeps, one person on two devices, and every ceremony refused with a sentence.
 */
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBots } from '../../../server/bots';
import { SESSION_COOKIE, PERSON_COOKIE } from '../../../server/person';
import { CHALLENGE_MS } from '../../../server/people/passkeyRoutes';
import { SAFARI_ON_IPHONE, PasskeyDevice } from '../../helpers/passkeyDevice';
import { SoftAuthenticator } from '../../helpers/softAuthenticator';
import { openTestBackend, TEST_APP_CONFIG } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { requestRefusal } from '../../helpers/words';
import { DB_TEST_MS, OPENING_MS } from '../db/fixtures';

let backend: TestBackend;
let nowMs = 1_750_000_000_000;

beforeAll(async () => {
  backend = await openTestBackend({ bots: await loadBots('bots'), clock: () => nowMs });
}, OPENING_MS);

afterAll(async () => {
  await backend.close();
});

const device = (origin?: string, userAgent?: string, authenticator?: SoftAuthenticator) => new PasskeyDevice(backend.request, origin, userAgent, authenticator);

/** A conversation with Sage the person on `on` began, with one thing said in it; its thread's id. */
async function conversation(on: PasskeyDevice): Promise<string> {
  const thread = await on.call<{ id: string }>('POST', '/api/threads', { bot: 'demo' });
  expect(thread.status).toBe(201);
  expect((await on.call('POST', `/api/threads/${thread.body.id}/lines`, { who: 'person', text: 'Hello, Sage.', clientId: `line-${thread.body.id}` })).status).toBe(201);
  return thread.body.id;
}

/** The ids of the conversations with Sage the person on `on` has. */
async function conversations(on: PasskeyDevice): Promise<string[]> {
  return (await on.call<{ threads: { id: string }[] }>('GET', '/api/threads?bot=demo')).body.threads.map((thread) => thread.id);
}

describe('a passkey made for the person asking', { timeout: DB_TEST_MS }, () => {
  it('makes the first passkey person on a fresh server its owner, and the second not', async () => {
    const fresh = await openTestBackend({ clock: () => nowMs });
    try {
      const first = new PasskeyDevice(fresh.request);
      const second = new PasskeyDevice(fresh.request);
      expect((await first.me()).body).toEqual({ kind: 'cookie', owner: false, name: null });
      const made = await first.register();
      expect(made.status).toBe(200);
      expect(made.body).toEqual({ kind: 'passkey', owner: true, name: null });
      expect((await second.register()).body).toEqual({ kind: 'passkey', owner: false, name: null });
      expect((await first.me()).body.owner).toBe(true);
      expect((await first.call('GET', '/api/devices')).body).toMatchObject({ owner: true });
    } finally {
      await fresh.close();
    }
  });

  it('keeps everything a cookie person had: their threads are theirs after the passkey too', async () => {
    const laptop = device();
    const thread = await conversation(laptop);
    expect(laptop.cookies.has(PERSON_COOKIE)).toBe(true);
    expect((await laptop.register()).status).toBe(200);
    // The device is its session now, not the bare cookie.
    expect(laptop.cookies.has(SESSION_COOKIE)).toBe(true);
    expect(laptop.cookies.has(PERSON_COOKIE)).toBe(false);
    expect(await conversations(laptop)).toEqual([thread]);
  });

  it('no longer takes the bare cookie of a person who made a passkey for who they are', async () => {
    const laptop = device();
    await conversation(laptop);
    const bareCookie = laptop.cookies.get(PERSON_COOKIE) ?? '';
    await laptop.register();
    const copy = device();
    copy.cookies.set(PERSON_COOKIE, bareCookie);
    expect(await conversations(copy)).toEqual([]);
    expect(copy.cookies.get(PERSON_COOKIE)).not.toBe(bareCookie);
  });

  it('excludes the passkeys the person has; another authenticator adds a passkey of its own', async () => {
    const laptop = device();
    await laptop.register();
    const options = await laptop.call<PublicKeyCredentialCreationOptionsJSON>('POST', '/api/passkeys/register/options');
    expect(options.body.excludeCredentials?.map((credential) => credential.id)).toEqual(laptop.authenticator.passkeyIds);
    expect(options.body.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'preferred' });
    expect(() => laptop.authenticator.register(options.body, laptop.origin)).toThrow(/InvalidStateError/);
    const securityKey = new SoftAuthenticator({ verifies: false });
    expect((await laptop.finishRegistering(securityKey.register(options.body, laptop.origin))).body.kind).toBe('passkey');
    const devices = await laptop.call<{ passkeys: unknown[]; devices: unknown[] }>('GET', '/api/devices');
    expect(devices.body.passkeys).toHaveLength(2);
    expect(devices.body.devices).toHaveLength(1);
  });

  it('labels the passkey and the device by the browser that made it', async () => {
    const phone = device(undefined, SAFARI_ON_IPHONE, new SoftAuthenticator({ synced: true }));
    await phone.register();
    const devices = await phone.call<{ passkeys: { label: string; synced: boolean }[]; devices: { label: string; via: string; thisDevice: boolean }[] }>('GET', '/api/devices');
    expect(devices.body.passkeys).toMatchObject([{ label: 'Safari on iPhone', synced: true }]);
    expect(devices.body.devices).toMatchObject([{ label: 'Safari on iPhone', via: 'passkey', thisDevice: true }]);
  });
});

describe('signing in with a passkey', { timeout: DB_TEST_MS }, () => {
  it('makes a second device, with no cookie of its own, the same person', async () => {
    const laptop = device();
    const thread = await conversation(laptop);
    await laptop.register();
    // The same passkey, synced to the phone's manager.
    const phone = device(undefined, SAFARI_ON_IPHONE, new SoftAuthenticator());
    laptop.authenticator.syncedTo(phone.authenticator);
    const signedIn = await phone.signIn();
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.kind).toBe('passkey');
    expect(await conversations(phone)).toEqual([thread]);
    const devices = await phone.call<{ devices: { label: string; thisDevice: boolean }[] }>('GET', '/api/devices');
    expect(devices.body.devices.map((each) => [each.label, each.thisDevice]).sort()).toEqual([
      ['Chrome on Linux', false],
      ['Safari on iPhone', true],
    ]);
  });

  it('refuses a replayed assertion with a sentence, and the device stays who it was', async () => {
    const laptop = device();
    await laptop.register();
    const assertion = await laptop.assertion();
    expect((await laptop.finishSigningIn(assertion)).status).toBe(200);
    const thief = device();
    const replayed = await thief.finishSigningIn(assertion);
    expect(replayed.status).toBe(400);
    expect(replayed.body).toEqual({ error: requestRefusal('devices.challenge-used') });
    expect((await thief.me()).body.kind).toBe('cookie');
  });

  it('refuses an answer that came after the challenge lapsed', async () => {
    const laptop = device();
    await laptop.register();
    const assertion = await laptop.assertion();
    nowMs += CHALLENGE_MS;
    const late = await laptop.finishSigningIn(assertion);
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ error: requestRefusal('devices.challenge-expired') });
    // Taken all the same: a second try is not a late one but a used one.
    expect((await laptop.finishSigningIn(assertion)).body).toEqual({ error: requestRefusal('devices.challenge-used') });
  });

  it('refuses a registration finished late, and keeps the cookie person as they were', async () => {
    const laptop = device();
    const options = await laptop.call<PublicKeyCredentialCreationOptionsJSON>('POST', '/api/passkeys/register/options');
    nowMs += CHALLENGE_MS + 1;
    const late = await laptop.finishRegistering(laptop.authenticator.register(options.body, laptop.origin));
    expect(late).toMatchObject({ status: 400, body: { error: requestRefusal('devices.challenge-expired') } });
    expect((await laptop.me()).body.kind).toBe('cookie');
  });

  it('refuses a passkey it does not know, and one whose signature does not hold', async () => {
    const stranger = device();
    const laptop = device();
    await laptop.register();
    // A passkey made for this site whose making was never finished: the server never kept it.
    stranger.authenticator.register((await stranger.call<PublicKeyCredentialCreationOptionsJSON>('POST', '/api/passkeys/register/options')).body, stranger.origin);
    const unknown = await stranger.signIn();
    expect(unknown).toMatchObject({ status: 400, body: { error: requestRefusal('devices.unknown-passkey') } });
    const assertion = await laptop.assertion();
    const forged = { ...assertion, response: { ...assertion.response, signature: Buffer.from('not a signature').toString('base64url') } };
    expect(await laptop.finishSigningIn(forged)).toMatchObject({ status: 400, body: { error: requestRefusal('devices.passkey-refused') } });
  });

  it('refuses a registration someone else began, as a used challenge', async () => {
    const one = device();
    const other = device();
    await other.me();
    const options = await one.call<PublicKeyCredentialCreationOptionsJSON>('POST', '/api/passkeys/register/options');
    const answer = await other.finishRegistering(other.authenticator.register(options.body, other.origin));
    expect(answer).toMatchObject({ status: 400, body: { error: requestRefusal('devices.challenge-used') } });
  });
});

describe('the relying party', { timeout: DB_TEST_MS }, () => {
  it('is the page’s host name: a passkey made on localhost is for localhost', async () => {
    const options = await device().call<{ rp: { id: string; name: string } }>('POST', '/api/passkeys/register/options');
    expect(options.body.rp).toEqual({ id: 'localhost', name: 'Confab' });
  });

  it('tells a page on 127.0.0.1 to open localhost, since WebAuthn refuses an address', async () => {
    const local = device('http://127.0.0.1:8787');
    const refused = await local.call('POST', '/api/passkeys/sign-in/options');
    expect(refused).toMatchObject({ status: 400, body: { error: requestRefusal('devices.open-localhost', { url: 'http://localhost:8787/' }) } });
    expect((await device('http://[::1]:8787').call('POST', '/api/passkeys/register/options')).body).toEqual({
      error: requestRefusal('devices.open-localhost', { url: 'http://localhost:8787/' }),
    });
  });

  it('tells a page on a plain-http name elsewhere that passkeys need HTTPS', async () => {
    // A loopback-bound server answers no other name: this one serves a network.
    const served = await openTestBackend({ config: { ...TEST_APP_CONFIG, host: '0.0.0.0' } });
    try {
      const onLan = new PasskeyDevice(served.request, 'http://confab.lan:8787');
      expect((await onLan.call('POST', '/api/passkeys/sign-in/options')).body).toEqual({ error: requestRefusal('devices.needs-https', { origin: 'http://confab.lan:8787' }) });
    } finally {
      await served.close();
    }
  });
});
