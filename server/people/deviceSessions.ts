/**
 * The `device_sessions` table: a device signed in as a passkey person. The cookie carries a secret;
 * only its SHA-256 (hex) is kept and looked up, as the server (`asServer`), since the person is not
 * known until the session is found.
 */
import type { Queryable } from '../db/queryable';
import { iso, isUuid, msOf, onlyRow } from '../db/rows';

/** How a device came to be the person's: a passkey ceremony, or a code from another device. */
export type SessionVia = 'passkey' | 'link';

export interface SessionRow {
  id: string;
  person: string;
  via: SessionVia;
  label: string;
  createdAtMs: number;
  seenAtMs: number;
}

interface Row {
  id: string;
  person: string;
  via: SessionVia;
  label: string;
  created_at: Date | string;
  seen_at: Date | string;
}

const sessionOf = (row: Row): SessionRow => ({
  id: row.id,
  person: row.person,
  via: row.via,
  label: row.label,
  createdAtMs: msOf(row.created_at),
  seenAtMs: msOf(row.seen_at),
});

/** Starts a session at `nowMs`; answers its id. */
export async function startSession(tx: Queryable, session: { person: string; secretHash: string; via: SessionVia; label: string; nowMs: number }): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(
    'insert into device_sessions (person, secret_hash, via, label, created_at, seen_at) values ($1, $2, $3, $4, $5, $5) returning id',
    [session.person, session.secretHash, session.via, session.label, iso(session.nowMs)],
  );
  return onlyRow(rows, 'starting a device session').id;
}

/** The session whose secret hashes to `secretHash`, if any. */
export async function sessionByHash(tx: Queryable, secretHash: string): Promise<SessionRow | undefined> {
  const { rows } = await tx.query<Row>('select id, person, via, label, created_at, seen_at from device_sessions where secret_hash = $1', [secretHash]);
  const row = rows[0];
  return row === undefined ? undefined : sessionOf(row);
}

/** The session was seen at `nowMs`. */
export async function seeSession(tx: Queryable, id: string, nowMs: number): Promise<void> {
  await tx.query('update device_sessions set seen_at = $2 where id = $1 and seen_at < $2', [id, iso(nowMs)]);
}

/** A device linked by a code made a passkey of its own: from now on it is signed in by a passkey. */
export async function passkeyMadeOn(tx: Queryable, id: string): Promise<void> {
  await tx.query("update device_sessions set via = 'passkey' where id = $1", [id]);
}

/** A person's signed-in devices, the one seen last first. */
export async function sessionsOf(tx: Queryable, person: string): Promise<SessionRow[]> {
  const { rows } = await tx.query<Row>('select id, person, via, label, created_at, seen_at from device_sessions where person = $1 order by seen_at desc, id', [person]);
  return rows.map(sessionOf);
}

/** Ends a session of `person`'s; false when they have none with that id. */
export async function endSession(tx: Queryable, person: string, id: string): Promise<boolean> {
  if (!isUuid(id)) return false;
  const { rows } = await tx.query('delete from device_sessions where id = $1 and person = $2 returning id', [id, person]);
  return rows.length > 0;
}
