/**
 * What every way of becoming a passkey person on a device ends with — a passkey made or signed in
 * with, a code from another device — and what `GET /api/me` says of whoever is asking.
 */
import type { Context } from 'hono';
import type { Me } from '../../common/people';
import type { Database } from '../db/database';
import type { Queryable } from '../db/queryable';
import { setSessionCookie } from '../person';
import type { PersonEnv } from '../person';
import { requestWordsOf } from '../words/requestWords';
import { deviceLabel } from './deviceLabel';
import { endSession, startSession } from './deviceSessions';
import type { SessionVia } from './deviceSessions';
import { findPerson } from './people';
import { newSecret, sha256Hex } from './secrets';

/** What people's routes are given. */
export interface PeopleDeps {
  db: Database;
  /** Now, in ms since the epoch: challenges', codes' and invitations' expiry, sessions' `seen_at`. */
  clock: () => number;
}

/** A session begun in a transaction, whose cookie is set once it commits. */
export interface DeviceSignIn {
  person: string;
  id: string;
  secret: string;
}

/**
 * Begins this device's session as `person` in `tx`, ending the session it had (a device is one
 * person's at a time), named by its browser in the request's words.
 */
export async function beginDeviceSession(tx: Queryable, c: Context<PersonEnv>, person: string, via: SessionVia, nowMs: number): Promise<DeviceSignIn> {
  const had = c.get('deviceSession');
  if (had !== undefined) await endSession(tx, c.get('person'), had);
  const secret = newSecret();
  const label = deviceLabel(requestWordsOf(c), c.req.header('user-agent'));
  const id = await startSession(tx, { person, secretHash: sha256Hex(secret), via, label, nowMs });
  return { person, id, secret };
}

/** The device is `signIn`'s person from this response on: its cookie is set, and the rest of the request knows it. */
export function signedIn(c: Context<PersonEnv>, signIn: DeviceSignIn, nowMs: number): void {
  setSessionCookie(c, signIn.secret, nowMs);
  c.set('person', signIn.person);
  c.set('personKind', 'passkey');
  c.set('deviceSession', signIn.id);
}

/** Who is asking, as `GET /api/me` says it. */
export async function meOf(db: Database, c: Context<PersonEnv>): Promise<Me> {
  const kind = c.get('personKind');
  if (kind !== 'passkey') return { kind, owner: false, name: null };
  const row = await db.readAsServer((reader) => findPerson(reader, c.get('person')));
  return { kind, owner: row?.owner ?? false, name: row?.name ?? null };
}
