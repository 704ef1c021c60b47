/**
 * The `people` table: a person who keeps Confab on their devices (a passkey person). Written and read
 * as the server (`asServer`) alone. The first one on a server is its owner, and there is one owner at
 * most (the unique index over the true rows), so two people making their first passkeys at once
 * cannot both become it.
 */
import type { Queryable } from '../db/queryable';
import { onlyRow } from '../db/rows';

export interface PersonRow {
  person: string;
  /** The name the owner gave them, lower-case; null when none. */
  name: string | null;
  owner: boolean;
}

/**
 * Whether the person of the transaction `tx` runs as keeps Confab on their devices: asked in their
 * own transaction (`asPerson`), where `people` cannot be read (migration 027).
 */
export async function keptOnDevices(tx: Queryable): Promise<boolean> {
  const { rows } = await tx.query<{ kept: boolean }>('select confab_kept_on_devices() as kept');
  return rows[0]?.kept === true;
}

export async function findPerson(tx: Queryable, person: string): Promise<PersonRow | undefined> {
  const { rows } = await tx.query<PersonRow>('select person, name, owner from people where person = $1', [person]);
  return rows[0];
}

/**
 * Makes `person` a passkey person, if they are not one yet: the owner when the server has none. The
 * first insert yields to any unique index, the one owner's included, so a race leaves one owner and
 * the other person kept as not the owner.
 */
export async function keepPerson(tx: Queryable, person: string): Promise<PersonRow> {
  await tx.query('insert into people (person, owner) values ($1, true) on conflict do nothing', [person]);
  await tx.query('insert into people (person, owner) values ($1, false) on conflict (person) do nothing', [person]);
  const { rows } = await tx.query<PersonRow>('select person, name, owner from people where person = $1', [person]);
  return onlyRow(rows, 'keeping a person');
}

/** Namespace of the per-name lock (first key of the two-key advisory lock); no other lock uses it. */
const NAME_LOCK = 0x4e_41_4d_45; // "NAME"

/**
 * Gives `person` `name`; false when somebody else holds it already. Taken under a lock on the name,
 * so two people taking one name at the same moment are one after the other: the second sees the first's.
 */
export async function givePersonName(tx: Queryable, person: string, name: string): Promise<boolean> {
  await tx.query('select pg_advisory_xact_lock($1::int, hashtext($2))', [NAME_LOCK, name]);
  const { rows } = await tx.query<{ person: string }>(
    `update people set name = $2 where person = $1 and not exists (select 1 from people where name = $2 and person <> $1)
     returning person`,
    [person, name],
  );
  return rows.length > 0;
}

/** Whether somebody holds `name`. */
export async function nameHeld(tx: Queryable, name: string): Promise<boolean> {
  const { rows } = await tx.query('select 1 from people where name = $1', [name]);
  return rows.length > 0;
}
