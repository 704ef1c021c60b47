/**
 * The `link_codes` table: a code one of a person's devices shows another, kept as its SHA-256 (hex)
 * only, and taken (deleted) by the statement that reads it, so it works once.
 */
import type { Queryable } from '../db/queryable';
import { iso, msOf } from '../db/rows';

/** Keeps a code of `person`'s until `expiresAtMs`, sweeping those that lapsed by `nowMs`. */
export async function keepLinkCode(tx: Queryable, code: { hash: string; person: string; expiresAtMs: number; nowMs: number }): Promise<void> {
  await tx.query('delete from link_codes where expires_at <= $1', [iso(code.nowMs)]);
  await tx.query('insert into link_codes (code_hash, person, expires_at) values ($1, $2, $3)', [code.hash, code.person, iso(code.expiresAtMs)]);
}

/** Takes the code that hashes to `hash`: whose it was and until when, or undefined when there is none. */
export async function takeLinkCode(tx: Queryable, hash: string): Promise<{ person: string; expiresAtMs: number } | undefined> {
  const { rows } = await tx.query<{ person: string; expires_at: Date | string }>('delete from link_codes where code_hash = $1 returning person, expires_at', [hash]);
  const row = rows[0];
  return row === undefined ? undefined : { person: row.person, expiresAtMs: msOf(row.expires_at) };
}
