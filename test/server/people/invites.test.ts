/**
 * The owner's names: a link the owner makes gives whoever opens it once — a passkey person — a name a
 * bot's `for:` can list; nobody else can make one, and a link works once, for a week.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NameInvite } from '../../../common/people';
import { INVITE_MS } from '../../../server/people/inviteRoutes';
import { PasskeyDevice } from '../../helpers/passkeyDevice';
import { openTestBackend } from '../../helpers/testBackend';
import type { TestBackend } from '../../helpers/testBackend';
import { requestRefusal } from '../../helpers/words';
import { DB_TEST_MS, OPENING_MS } from '../db/fixtures';

let backend: TestBackend;
let nowMs = 1_750_000_000_000;
let owner: PasskeyDevice;

beforeAll(async () => {
  backend = await openTestBackend({ clock: () => nowMs });
  // The first passkey person on this fresh server.
  owner = new PasskeyDevice(backend.request);
  await owner.register();
}, OPENING_MS);

afterAll(async () => {
  await backend.close();
});

async function passkeyPerson(): Promise<PasskeyDevice> {
  const someone = new PasskeyDevice(backend.request);
  expect((await someone.register()).body).toMatchObject({ kind: 'passkey', owner: false });
  return someone;
}

async function invite(name: string): Promise<string> {
  const made = await owner.call<NameInvite>('POST', '/api/owner/invites', { name });
  expect(made.status).toBe(201);
  expect(made.body.expiresAt).toBe(nowMs + INVITE_MS);
  const url = new URL(made.body.url);
  expect(`${url.origin}${url.pathname}`).toBe('http://localhost:8787/invite');
  return url.hash.slice(1);
}

describe('a name the owner gives', { timeout: DB_TEST_MS }, () => {
  it('is taken, in lower case, by the passkey person who opens the link, once', async () => {
    const token = await invite('  Ana.María ');
    const ana = await passkeyPerson();
    expect(await ana.call('POST', '/api/invites/accept', { token })).toMatchObject({ status: 200, body: { kind: 'passkey', owner: false, name: 'ana.maría' } });
    expect((await ana.me()).body.name).toBe('ana.maría');
    const late = await passkeyPerson();
    expect(await late.call('POST', '/api/invites/accept', { token })).toMatchObject({ status: 400, body: { error: requestRefusal('devices.invite-unknown') } });
  });

  it('is made by the owner alone', async () => {
    const someone = await passkeyPerson();
    expect(await someone.call('POST', '/api/owner/invites', { name: 'bob' })).toMatchObject({ status: 403, body: { error: requestRefusal('devices.owner-only') } });
    const bare = new PasskeyDevice(backend.request);
    expect(await bare.call('POST', '/api/owner/invites', { name: 'bob' })).toMatchObject({ status: 403 });
  });

  it('is taken by a passkey person only: a bare cookie is told to keep Confab on its devices first', async () => {
    const token = await invite('carla');
    const bare = new PasskeyDevice(backend.request);
    expect(await bare.call('POST', '/api/invites/accept', { token })).toMatchObject({ status: 403, body: { error: requestRefusal('devices.keep-first') } });
    // Still there for a passkey person.
    expect((await (await passkeyPerson()).call('POST', '/api/invites/accept', { token })).body).toMatchObject({ name: 'carla' });
  });

  it('stops working a week after it was made', async () => {
    const token = await invite('dora');
    nowMs += INVITE_MS;
    expect(await (await passkeyPerson()).call('POST', '/api/invites/accept', { token })).toMatchObject({ status: 400, body: { error: requestRefusal('devices.invite-expired') } });
  });

  it('is one person’s: a name somebody holds is refused, when asked for and when taken', async () => {
    const first = await invite('eve');
    const second = await invite('eve');
    expect((await (await passkeyPerson()).call('POST', '/api/invites/accept', { token: first })).body).toMatchObject({ name: 'eve' });
    expect(await owner.call('POST', '/api/owner/invites', { name: 'Eve' })).toMatchObject({ status: 409, body: { error: requestRefusal('devices.name-taken', { name: 'eve' }) } });
    expect(await (await passkeyPerson()).call('POST', '/api/invites/accept', { token: second })).toMatchObject({ status: 409, body: { error: requestRefusal('devices.name-taken', { name: 'eve' }) } });
  });

  it('is letters and digits with a few marks between them, at most 40', async () => {
    for (const name of ['', ' ', '-ana', 'ana!', 'a,b', 'ana maria', 'x'.repeat(41)]) {
      expect(await owner.call('POST', '/api/owner/invites', { name })).toMatchObject({ status: 400, body: { error: requestRefusal('devices.name-format', { most: '40' }) } });
    }
    expect((await owner.call('POST', '/api/owner/invites', { name: 'x'.repeat(40) })).status).toBe(201);
  });
});
