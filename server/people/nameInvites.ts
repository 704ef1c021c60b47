/**
 * The `name_invites` table: a link the owner made that gives whoever opens it once a name. Kept as the
 * token's SHA-256 (hex) only, and taken (deleted) by the statement that reads it.
 */
import type { Queryable } from '../db/queryable';
import { iso, msOf } from '../db/rows';

/** Keeps an invitation the owner made, sweeping those that lapsed by `nowMs`. */
export async function keepInvite(tx: Queryable, invite: { hash: string; name: string; madeBy: string; expiresAtMs: number; nowMs: number }): Promise<void> {
  await tx.query('delete from name_invites where expires_at <= $1', [iso(invite.nowMs)]);
  await tx.query('insert into name_invites (token_hash, name, made_by, expires_at) values ($1, $2, $3, $4)', [invite.hash, invite.name, invite.madeBy, iso(invite.expiresAtMs)]);
}

/** Takes the invitation whose token hashes to `hash`: the name it gives and until when, or undefined. */
export async function takeInvite(tx: Queryable, hash: string): Promise<{ name: string; expiresAtMs: number } | undefined> {
  const { rows } = await tx.query<{ name: string; expires_at: Date | string }>('delete from name_invites where token_hash = $1 returning name, expires_at', [hash]);
  const row = rows[0];
  return row === undefined ? undefined : { name: row.name, expiresAtMs: msOf(row.expires_at) };
}
