/**
 * The `passkeys` table: each passkey as @simplewebauthn/server verified it, kept by the server alone
 * (`asServer`). Signing in finds a passkey by its credential id before anybody is known, so no
 * person's transaction could.
 */
import type { Queryable } from '../db/queryable';
import { iso, msOf } from '../db/rows';

type PasskeyDeviceType = 'singleDevice' | 'multiDevice';

export interface PasskeyRow {
  /** The credential's id, base64url. */
  id: string;
  person: string;
  /** The COSE public key. */
  publicKey: Uint8Array<ArrayBuffer>;
  /** The signature counter it last showed. */
  counter: number;
  transports: string[];
  deviceType: PasskeyDeviceType;
  backedUp: boolean;
  label: string;
  createdAtMs: number;
  lastUsedAtMs: number | null;
}

export type NewPasskey = Omit<PasskeyRow, 'createdAtMs' | 'lastUsedAtMs'>;

interface Row {
  id: string;
  person: string;
  public_key: Uint8Array;
  counter: string | number;
  transports: string[];
  device_type: PasskeyDeviceType;
  backed_up: boolean;
  label: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
}

const COLUMNS = 'id, person, public_key, counter, transports, device_type, backed_up, label, created_at, last_used_at';

const passkeyOf = (row: Row): PasskeyRow => ({
  id: row.id,
  person: row.person,
  publicKey: new Uint8Array(row.public_key),
  // bigint: `pg` answers it as text.
  counter: Number(row.counter),
  transports: row.transports,
  deviceType: row.device_type,
  backedUp: row.backed_up,
  label: row.label,
  createdAtMs: msOf(row.created_at),
  lastUsedAtMs: msOf(row.last_used_at),
});

/** Keeps a new passkey made at `nowMs`; false when a passkey with its id is kept already. */
export async function keepPasskey(tx: Queryable, passkey: NewPasskey, nowMs: number): Promise<boolean> {
  const { rows } = await tx.query(
    `insert into passkeys (id, person, public_key, counter, transports, device_type, backed_up, label, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (id) do nothing returning id`,
    [passkey.id, passkey.person, passkey.publicKey, passkey.counter, passkey.transports, passkey.deviceType, passkey.backedUp, passkey.label, iso(nowMs)],
  );
  return rows.length > 0;
}

export async function findPasskey(tx: Queryable, id: string): Promise<PasskeyRow | undefined> {
  const { rows } = await tx.query<Row>(`select ${COLUMNS} from passkeys where id = $1`, [id]);
  const row = rows[0];
  return row === undefined ? undefined : passkeyOf(row);
}

/** A person's passkeys, oldest first. */
export async function passkeysOf(tx: Queryable, person: string): Promise<PasskeyRow[]> {
  const { rows } = await tx.query<Row>(`select ${COLUMNS} from passkeys where person = $1 order by created_at, id`, [person]);
  return rows.map(passkeyOf);
}

/** A passkey signed in with at `nowMs`, showing `counter` and whether it is backed up now. */
export async function usedPasskey(tx: Queryable, id: string, use: { counter: number; backedUp: boolean; nowMs: number }): Promise<void> {
  await tx.query('update passkeys set counter = $2, backed_up = $3, last_used_at = $4 where id = $1', [id, use.counter, use.backedUp, iso(use.nowMs)]);
}

/** Removes a passkey of `person`'s; false when they have none with that id. */
export async function removePasskey(tx: Queryable, person: string, id: string): Promise<boolean> {
  const { rows } = await tx.query('delete from passkeys where id = $1 and person = $2 returning id', [id, person]);
  return rows.length > 0;
}
