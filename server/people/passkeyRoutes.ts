/**
 * The two WebAuthn ceremonies, each begun and finished by a request (`@simplewebauthn/server`):
 *
 * - `POST /api/passkeys/register/options`, then `…/register/verify {response}`: a passkey made for
 *   the person asking, so a bare cookie person keeps everything they have. Resident key required
 *   (it signs in with no name typed), user verification preferred; their passkeys are excluded. The
 *   first passkey makes them a row of `people` — the owner when the server has none — and signs the
 *   device in.
 * - `POST /api/passkeys/sign-in/options`, then `…/sign-in/verify {response}`: any passkey this server
 *   keeps (discoverable, no list sent), checked against its public key and counter, signs the device
 *   in as its person.
 *
 * Every challenge is kept in the database for five minutes and taken by the one statement that reads
 * it, so a ceremony finishes on any instance, once: a replayed answer, or a late one, is refused with
 * a sentence.
 */
import { generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Hono } from 'hono';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Me } from '../../common/people';
import { readJson } from '../json';
import type { PersonEnv } from '../person';
import { refusal, requestWordsOf } from '../words/requestWords';
import { say } from '../words/words';
import { keepChallenge, takeChallenge } from './challenges';
import type { ChallengePurpose } from './challenges';
import { passkeyMadeOn } from './deviceSessions';
import { findPasskey, keepPasskey, passkeysOf, usedPasskey } from './passkeys';
import { findPerson, keepPerson } from './people';
import { relyingParty } from './relyingParty';
import { deviceLabel } from './deviceLabel';
import { beginDeviceSession, meOf, signedIn } from './signIn';
import type { PeopleDeps } from './signIn';

/** How long a ceremony may take, in ms, from its options to its answer: five minutes. */
export const CHALLENGE_MS = 5 * 60_000;
/** The relying party's name, as a passkey manager shows it beside the site's. */
const RP_NAME = 'Confab';

export function passkeyRoutes({ db, clock }: PeopleDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();

  /** A ceremony's check of its challenge: taken, for `purpose` and `person`, before it lapsed. */
  const challengeTaken = (c: Context, purpose: ChallengePurpose, person: string | null, nowMs: number) => async (challenge: string) => {
    const kept = await db.asServer((tx) => takeChallenge(tx, challenge));
    if (kept === undefined || kept.purpose !== purpose || kept.person !== person) throw refusal(c, 400, 'devices.challenge-used');
    if (kept.expiresAtMs <= nowMs) throw refusal(c, 400, 'devices.challenge-expired');
    return true;
  };

  routes.post('/passkeys/register/options', async (c) => {
    const rp = relyingParty(c);
    const person = c.get('person');
    const nowMs = clock();
    const [passkeys, row] = await db.readAsServer((reader) => Promise.all([passkeysOf(reader, person), findPerson(reader, person)]));
    const userName = row?.name ?? say(requestWordsOf(c), 'devices.passkey-user');
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: rp.id,
      userName,
      userDisplayName: userName,
      userID: new TextEncoder().encode(person),
      timeout: CHALLENGE_MS,
      attestationType: 'none',
      excludeCredentials: passkeys.map((passkey) => ({ id: passkey.id, transports: passkey.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    await db.asServer((tx) => keepChallenge(tx, options.challenge, { purpose: 'register', person, expiresAtMs: nowMs + CHALLENGE_MS, nowMs }));
    return c.json(options);
  });

  routes.post('/passkeys/register/verify', async (c) => {
    const response = responseOf(c, await readJson(c)) as unknown as RegistrationResponseJSON;
    const rp = relyingParty(c);
    const person = c.get('person');
    const nowMs = clock();
    const verified = await ceremony(c, () =>
      verifyRegistrationResponse({
        response,
        expectedChallenge: challengeTaken(c, 'register', person, nowMs),
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        // Preferred, not required: a passkey without a screen lock still proves the device.
        requireUserVerification: false,
      }),
    );
    if (!verified.verified) throw refusal(c, 400, 'devices.passkey-refused');
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const signIn = await db.asServer(async (tx) => {
      await keepPerson(tx, person);
      const passkey = { id: credential.id, person, publicKey: credential.publicKey, counter: credential.counter, transports: credential.transports ?? [], deviceType: credentialDeviceType, backedUp: credentialBackedUp };
      // Thrown, so that the person is not kept either: a cookie person stays one.
      if (!(await keepPasskey(tx, { ...passkey, label: labelOf(c) }, nowMs))) throw refusal(c, 409, 'devices.passkey-known');
      // A device already signed in as this person (linked by a code) keeps its session, now by a passkey of its own.
      const here = c.get('deviceSession');
      if (here === undefined) return beginDeviceSession(tx, c, person, 'passkey', nowMs);
      await passkeyMadeOn(tx, here);
      return undefined;
    });
    if (signIn !== undefined) signedIn(c, signIn, nowMs);
    return c.json<Me>(await meOf(db, c));
  });

  routes.post('/passkeys/sign-in/options', async (c) => {
    const rp = relyingParty(c);
    const nowMs = clock();
    const options = await generateAuthenticationOptions({ rpID: rp.id, timeout: CHALLENGE_MS, userVerification: 'preferred' });
    await db.asServer((tx) => keepChallenge(tx, options.challenge, { purpose: 'sign-in', person: null, expiresAtMs: nowMs + CHALLENGE_MS, nowMs }));
    return c.json(options);
  });

  routes.post('/passkeys/sign-in/verify', async (c) => {
    const given = responseOf(c, await readJson(c));
    const response = given as unknown as AuthenticationResponseJSON;
    const rp = relyingParty(c);
    const nowMs = clock();
    const passkey = typeof given.id === 'string' && given.id !== '' ? await db.readAsServer((reader) => findPasskey(reader, given.id as string)) : undefined;
    if (passkey === undefined) throw refusal(c, 400, 'devices.unknown-passkey');
    // The authenticator names whom the passkey was made for; it must be whom this server keeps it for.
    const userHandle = isRecord(given.response) ? given.response.userHandle : undefined;
    if (typeof userHandle === 'string' && Buffer.from(userHandle, 'base64url').toString('utf8') !== passkey.person) throw refusal(c, 400, 'devices.passkey-refused');
    const verified = await ceremony(c, () =>
      verifyAuthenticationResponse({
        response,
        expectedChallenge: challengeTaken(c, 'sign-in', null, nowMs),
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: { id: passkey.id, publicKey: passkey.publicKey, counter: passkey.counter, transports: passkey.transports },
        requireUserVerification: false,
      }),
    );
    if (!verified.verified) throw refusal(c, 400, 'devices.passkey-refused');
    const { newCounter, credentialBackedUp } = verified.authenticationInfo;
    const signIn = await db.asServer(async (tx) => {
      await usedPasskey(tx, passkey.id, { counter: newCounter, backedUp: credentialBackedUp, nowMs });
      return beginDeviceSession(tx, c, passkey.person, 'passkey', nowMs);
    });
    signedIn(c, signIn, nowMs);
    return c.json<Me>(await meOf(db, c));
  });

  return routes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body's `response`, the browser's answer to the ceremony, as @simplewebauthn/browser gave it. */
function responseOf(c: Context, body: Record<string, unknown>): Record<string, unknown> {
  const response = body.response;
  if (!isRecord(response)) throw refusal(c, 400, 'requests.not-record', { field: 'response' });
  return response;
}

/** What made the passkey, as the device's label says it. */
function labelOf(c: Context): string {
  return deviceLabel(requestWordsOf(c), c.req.header('user-agent'));
}

/**
 * Runs a verification: the library throws a plain Error for anything it cannot verify (an answer
 * malformed, for another origin or challenge, a bad signature, a counter gone back), which is the
 * person's 400; a refusal of ours passes as it is.
 */
async function ceremony<T>(c: Context, verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch (error) {
    if (error instanceof HTTPException) throw error;
    throw refusal(c, 400, 'devices.passkey-refused', {}, error);
  }
}
